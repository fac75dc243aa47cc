"""Production's cache keeps one Redis client a process, however many sockets use it.

Django keeps a cache object per thread and per async context, so under ASGI every socket's
consumer had its own client and connection pool, and kept its connection for the life of the
socket: 10,000 sockets held 10,000 Redis connections and Redis refused everyone else ("max
number of clients reached"). The production stack only.
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
import redis
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.cache import cache, caches

from dominoes_site.cache import HouseRedisCache

pytestmark = pytest.mark.skipif(not settings.REDIS_URL, reason="the Redis cache (production)")


def connections_to_redis() -> int:
    client = redis.Redis.from_url(settings.REDIS_URL)
    try:
        return len(client.client_list())
    finally:
        client.close()


def test_many_sockets_share_one_pool() -> None:
    """200 consumers, each its own async context (as daphne runs them), each reading the cache
    and keeping its context alive: a handful of connections, not one each."""
    before = connections_to_redis()
    hold = asyncio.Event()

    async def consumer(n: int) -> None:
        await sync_to_async(cache.get)(f"probe:{n}")  # in the shared database thread
        await asyncio.sleep(0)
        cache.get(f"probe:{n}")  # and inline, on the loop (presence, rate limits)
        await hold.wait()

    async def many() -> int:
        tasks = [asyncio.create_task(consumer(n)) for n in range(200)]
        await asyncio.sleep(0.5)
        opened = await asyncio.to_thread(connections_to_redis)
        hold.set()
        await asyncio.gather(*tasks)
        return opened

    # A thread of its own starts with an empty context, as daphne's consumers find it: none has
    # a cache object yet, and each makes its own on first use.
    result: list[int] = []
    runner = threading.Thread(target=lambda: result.append(asyncio.run(many())))
    runner.start()
    runner.join(60)
    opened = result[0] - before
    assert opened <= 10, f"{opened} more connections to Redis for 200 sockets"


def test_every_cache_object_shares_the_client_and_the_outage() -> None:
    one = caches.create_connection("default")
    other = caches.create_connection("default")
    assert isinstance(one, HouseRedisCache) and isinstance(other, HouseRedisCache)
    assert one._cache is other._cache
    shared = one._shared
    try:
        shared.down_until = time.monotonic() + 60  # one of them found Redis away
        other.set("shared-outage", 1)
        assert other.get("shared-outage") is None  # the other does not ask it either
    finally:
        shared.down_until = 0.0
    other.set("shared-outage", 1)
    assert one.get("shared-outage") == 1


def test_a_rate_limit_counts_in_one_round_trip_and_every_count_expires() -> None:
    """limits.take on Redis: one command a request (a script: not an add, an incr and a get,
    nor a MULTI/EXEC of them), the same counts as before, and a count key never left without
    its expiry."""
    from dominoes_site import limits

    client = redis.Redis.from_url(settings.REDIS_URL)

    def calls(command: str) -> int:
        return int(client.info("commandstats").get(f"cmdstat_{command}", {}).get("calls", 0))

    caches["default"]._shared.down_until = 0.0  # an outage another test made is over
    try:
        before = {c: calls(c) for c in ("incr", "evalsha", "eval", "exec")}
        at = 60 * 16_666.0  # the start of a 60 s window
        allowances = [limits.take("one-trip", 3, 60, now=at + i) for i in range(5)]
        made = {c: calls(c) - n for c, n in before.items()}
        assert made["incr"] == 5  # one count each, in the script
        assert made["evalsha"] + made["eval"] == 5  # each one command: one round trip
        assert made["exec"] == 0
        assert [a.allowed for a in allowances] == [True, True, True, False, False]
        assert [a.remaining for a in allowances[:3]] == [2, 1, 0]
        # The next window reads this one's count: at its start all 5 still weigh in.
        later = limits.take("one-trip", 3, 60, now=at + 60)
        assert (later.allowed, later.remaining) == (False, 0)
        assert limits.take("one-trip", 3, 60, now=at + 179).allowed  # two windows on: room
        keys = client.keys("*limit:one-trip:*")
        assert keys and all(0 < client.ttl(k) <= 121 for k in keys)
    finally:
        client.close()


def test_a_cache_call_makes_no_new_redis_client(monkeypatch: pytest.MonkeyPatch) -> None:
    """Django's Redis cache made a redis.Redis for every call (most of a rate-limit count's
    CPU); here each process keeps one a server."""
    from dominoes_site import limits

    caches["default"]._shared.down_until = 0.0  # an outage another test made is over
    cache.set("one-client", 1)  # the client made, if no test made it before
    made: list[int] = []
    real = redis.Redis.__init__

    def counted(self: redis.Redis, *args: object, **kwargs: object) -> None:
        made.append(1)
        real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(redis.Redis, "__init__", counted)
    for n in range(10):
        cache.set(f"one-client:{n}", n)
        assert cache.get(f"one-client:{n}") == n
        limits.take("one-client", 100, 60)
    assert made == []
