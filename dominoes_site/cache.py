"""Production's cache: Django's Redis cache that a Redis restart or outage cannot break.

The cache holds only what may be lost: rate limits, who is online now, sessions that logged out
(sockets check these, dominoes_site/user_sockets.py), short-lived page counters. Some of it is
read on a daphne's event loop, inline with a socket's action. Django's own RedisCache raises
when Redis is away, and redis-py retries with back-off for seconds: a socket then closed with
1011, and a whole daphne stalled while Redis came back. Here a failed call is answered as an
empty cache would answer it (nothing found, nothing kept: rate limits and marks are open for
those seconds), logged once, and for `PAUSE_SECONDS` after it the cache is not asked at all, so
no caller waits on a Redis that is not there.

One Redis client (and connection pool) a process. Django keeps a cache object per thread and,
under ASGI, per async context: every socket's consumer got its own, with its own pool, and kept
its connection open for as long as the socket lived (10,000 sockets held 10,000 connections to
Redis, which then refused everyone else: "max number of clients reached"). Here every cache
object of a process shares one client, and one memory of an outage.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

#: After a failed call, how long the cache answers as empty without asking Redis.
PAUSE_SECONDS = 1.0

_T = TypeVar("_T")


class _Shared:
    """What every cache object of a process shares for one Redis: its client, and whether it
    was found away (and until when the cache is not asked)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.lock = threading.Lock()
        self.down_until = 0.0
        self.failing = False
        self._count_window: Any = None

    def count_window_script(self, cache_client: Any) -> Any:
        """`COUNT_WINDOW`, registered once, on the writable server's client."""
        if self._count_window is None:
            client = cache_client.get_client(None, write=True)
            self._count_window = client.register_script(COUNT_WINDOW)
        return self._count_window


_SHARED: dict[tuple[str, ...], _Shared] = {}
_SHARED_LOCK = threading.Lock()


class HouseRedisCacheClient(RedisCacheClient):
    """Django's client, keeping one redis.Redis for each server's pool: Django's makes a new one
    (a few dozen attributes, its own response callbacks) at every cache call, which was most of
    the CPU of a cache read or a rate-limit count. redis.Redis over a pool is thread-safe."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            pool = self._get_connection_pool(write)
            client = self._clients.setdefault(index, self._client(connection_pool=pool))
        return client


class HouseRedisCache(RedisCache):
    def __init__(self, server: Any, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = HouseRedisCacheClient

    @property
    def _shared(self) -> _Shared:
        key = tuple(self._servers)
        shared = _SHARED.get(key)
        if shared is None:
            with _SHARED_LOCK:
                shared = _SHARED.get(key)
                if shared is None:
                    shared = _SHARED[key] = _Shared(self._class(self._servers, **self._options))
        return shared

    @property
    def _cache(self) -> Any:  # Django's is a client (and pool) per cache object
        return self._shared.client

    def _try(self, call: Callable[[], _T], empty: _T) -> _T:
        shared = self._shared
        if time.monotonic() < shared.down_until:
            return empty
        try:
            result = call()
        except RedisError:
            with shared.lock:
                shared.down_until = time.monotonic() + PAUSE_SECONDS
                first, shared.failing = not shared.failing, True
            if first:
                log.warning("cache: Redis unreachable; answering as an empty cache", exc_info=True)
            return empty
        if shared.failing:
            shared.failing = False
            log.warning("cache: Redis reachable again")
        return result

    def add(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None
    ) -> bool:
        return self._try(
            lambda: super(HouseRedisCache, self).add(key, value, timeout, version), True
        )

    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        return self._try(lambda: super(HouseRedisCache, self).get(key, default, version), default)

    def set(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None
    ) -> None:
        self._try(lambda: super(HouseRedisCache, self).set(key, value, timeout, version), None)

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        return self._try(lambda: super(HouseRedisCache, self).touch(key, timeout, version), False)

    def delete(self, key: Any, version: int | None = None) -> bool:
        return self._try(lambda: super(HouseRedisCache, self).delete(key, version), False)

    def get_many(self, keys: Any, version: int | None = None) -> dict[Any, Any]:
        return self._try(lambda: super(HouseRedisCache, self).get_many(keys, version), {})

    def has_key(self, key: Any, version: int | None = None) -> bool:
        return self._try(lambda: super(HouseRedisCache, self).has_key(key, version), False)

    def incr(self, key: Any, delta: int = 1, version: int | None = None) -> int:
        # A missing key still raises ValueError, as Django's does; an outage counts afresh.
        return self._try(lambda: super(HouseRedisCache, self).incr(key, delta, version), delta)

    def set_many(
        self, data: dict[Any, Any], timeout: Any = DEFAULT_TIMEOUT, version: int | None = None
    ) -> list[Any]:
        return self._try(lambda: super(HouseRedisCache, self).set_many(data, timeout, version), [])

    def delete_many(self, keys: Any, version: int | None = None) -> None:
        self._try(lambda: super(HouseRedisCache, self).delete_many(keys, version), None)

    def count_window(self, key: str, previous: str, timeout: int) -> tuple[int, int]:
        """One more in the count at `key` (made, kept `timeout` seconds, when it is new), and
        the count at `previous`: one command (`COUNT_WINDOW`, a script Redis runs whole), for
        the rate limits (dominoes_site.limits), which a request made three round trips of
        otherwise. An outage counts afresh: (1, 0)."""

        def call() -> tuple[int, int]:
            now_key = self.make_and_validate_key(key)
            before_key = self.make_and_validate_key(previous)
            count, before = self._shared.count_window_script(self._cache)(
                keys=[now_key, before_key], args=[timeout]
            )
            return int(count), int(before)

        return self._try(call, (1, 0))


#: KEYS[1]: this window's count, made with its expiry (ARGV[1] seconds) when new; KEYS[2]: the
#: window before's. Django's Redis cache keeps an int as its digits, so INCR and GET read the
#: same counts that cache.incr and cache.get do.
COUNT_WINDOW = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return {n, tonumber(redis.call('GET', KEYS[2]) or '0') or 0}
"""
