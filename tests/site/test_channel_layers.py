"""The house's channel layers: the embedded one (memory + Unix sockets) and Redis's batch send.

The embedded layer is tested across real processes: a second Python process sends, this one
receives, as the Celery worker and daphne do under `make run`.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import textwrap
from pathlib import Path

import pytest
from channels.exceptions import ChannelFull
from django.conf import settings

from dominoes_site.socket_layer import HouseSocketChannelLayer

ROOT = Path(__file__).resolve().parents[2]


def _layer(tmp_path: Path, **options: object) -> HouseSocketChannelLayer:
    return HouseSocketChannelLayer(folder=tmp_path / "channels", **options)  # type: ignore[arg-type]


async def test_groups_in_one_process(tmp_path: Path) -> None:
    layer = _layer(tmp_path)
    a, b = await layer.new_channel(), await layer.new_channel()
    await layer.group_add("table.1.public", a)
    await layer.group_add("table.1.public", b)
    await layer.group_send("table.1.public", {"type": "x.y", "n": 1})
    assert await layer.receive(a) == {"type": "x.y", "n": 1}
    assert await layer.receive(b) == {"type": "x.y", "n": 1}
    await layer.group_discard("table.1.public", b)
    await layer.group_send_many([("table.1.public", {"type": "x.y", "n": 2})])
    assert await layer.receive(a) == {"type": "x.y", "n": 2}
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(layer.receive(b), timeout=0.2)
    await layer.send(b, {"type": "x.y", "n": 3})
    assert await layer.receive(b) == {"type": "x.y", "n": 3}


async def test_a_full_queue_drops_group_messages_and_refuses_sends(tmp_path: Path) -> None:
    layer = _layer(tmp_path, capacity=3)
    channel = await layer.new_channel()
    await layer.group_add("g", channel)
    for n in range(5):
        await layer.group_send("g", {"type": "x.y", "n": n})
    with pytest.raises(ChannelFull):
        await layer.send(channel, {"type": "x.y", "n": 99})
    assert [(await layer.receive(channel))["n"] for _ in range(3)] == [0, 1, 2]


async def test_channels_nobody_reads_are_forgotten(tmp_path: Path) -> None:
    layer = _layer(tmp_path, expiry=60)
    gone, kept = await layer.new_channel(), await layer.new_channel()
    await layer.group_add("g", gone)
    await layer.group_add("g", kept)
    reading = asyncio.ensure_future(layer.receive(kept))  # a live consumer waits on its channel
    await asyncio.sleep(0)
    for inbox in layer.inboxes._by_name.values():
        inbox.used -= 61  # a minute without a read
    layer.inboxes._swept -= 61
    await layer.new_channel()
    assert gone not in layer.inboxes and kept in layer.inboxes
    assert set(layer._groups["g"]) == {kept}
    await layer.group_send("g", {"type": "x.y"})
    assert await reading == {"type": "x.y"}


SENDER = textwrap.dedent(
    """
    import asyncio, sys
    from dominoes_site.socket_layer import HouseSocketChannelLayer

    async def main():
        layer = HouseSocketChannelLayer(folder=sys.argv[1])
        for n in range(200):
            await layer.group_send_many(
                [("table.7.seat.0", {"type": "x.y", "n": n}), ("lobby", {"type": "x.y", "n": n})]
            )
        await layer.send(sys.argv[2], {"type": "x.y", "n": "direct"})
        await layer.close()

    asyncio.run(main())
    """
)


async def test_another_process_reaches_this_ones_consumers_in_order(tmp_path: Path) -> None:
    layer = _layer(tmp_path)
    seat, lobby = await layer.new_channel(), await layer.new_channel()
    await layer.group_add("table.7.seat.0", seat)
    await layer.group_add("lobby", lobby)
    # A socket file left by a process that died: senders skip it and clear it away.
    stale = layer.folder / "p1x00000000.sock"
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(stale))
    dead.close()
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        SENDER,
        str(layer.folder),
        seat,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert await asyncio.wait_for(process.wait(), timeout=60) == 0
    got = [(await asyncio.wait_for(layer.receive(seat), 10))["n"] for _ in range(201)]
    assert got == [*range(200), "direct"]
    assert [(await layer.receive(lobby))["n"] for _ in range(200)] == list(range(200))
    assert not stale.exists()


@pytest.mark.skipif(not settings.REDIS_URL, reason="the Redis layer runs on the production stack")
async def test_redis_batch_send_reaches_every_member_in_order() -> None:
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    a, b = await layer.new_channel(), await layer.new_channel()
    await layer.group_add("batch.one", a)
    await layer.group_add("batch.one", b)
    await layer.group_add("batch.two", a)
    for n in range(20):
        await layer.group_send_many(
            [("batch.one", {"type": "x.y", "n": n}), ("batch.two", {"type": "x.z", "n": n})]
        )
    from_a = [await asyncio.wait_for(layer.receive(a), 10) for _ in range(40)]
    from_b = [await asyncio.wait_for(layer.receive(b), 10) for _ in range(20)]
    assert [(m["type"], m["n"]) for m in from_a] == [
        (kind, n) for n in range(20) for kind in ("x.y", "x.z")
    ]
    assert [m["n"] for m in from_b] == list(range(20))
    for group, channel in (("batch.one", a), ("batch.one", b), ("batch.two", a)):
        await layer.group_discard(group, channel)


def test_make_run_folder_is_short_enough_for_unix_sockets() -> None:
    folder = Path(settings.CHANNEL_LAYERS["default"]["CONFIG"].get("folder", "/tmp"))
    layer = HouseSocketChannelLayer(folder=folder / ("deep" * 40))
    assert len(str(layer.path)) < 108


@pytest.mark.skipif(not settings.REDIS_URL, reason="the Redis layer runs on the production stack")
async def test_redis_layer_serves_its_own_members_itself_and_the_others_through_redis() -> None:
    """A group with a member in this process and one in another: this process's member gets
    the messages without Redis (its process's queue stays empty), the other's through Redis,
    both in the order sent."""
    from channels.layers import get_channel_layer

    from dominoes_site.channel_layer import HouseRedisChannelLayer

    here = get_channel_layer()
    there = HouseRedisChannelLayer(**settings.CHANNEL_LAYERS["default"]["CONFIG"])
    mine, theirs = await here.new_channel(), await there.new_channel()
    assert mine.split("!")[0] != theirs.split("!")[0]  # two processes' queues
    await here.group_add("split.group", mine)
    await here.group_add("split.group", theirs)
    try:
        for n in range(10):
            await here.group_send("split.group", {"type": "x.y", "n": n})
        redis = here.connection(0)
        assert await redis.zcard(here.prefix + here.non_local_name(mine)) == 0
        assert await redis.zcard(here.prefix + there.non_local_name(theirs)) == 10
        got_mine = [await asyncio.wait_for(here.receive(mine), 10) for _ in range(10)]
        got_theirs = [await asyncio.wait_for(there.receive(theirs), 10) for _ in range(10)]
        assert [m["n"] for m in got_mine] == list(range(10))
        assert [m["n"] for m in got_theirs] == list(range(10))
    finally:
        await here.group_discard("split.group", mine)
        await here.group_discard("split.group", theirs)


@pytest.mark.skipif(not settings.REDIS_URL, reason="the Redis layer runs on the production stack")
async def test_redis_layer_hands_its_own_members_theirs_before_any_await() -> None:
    """From synchronous code (a move's on-commit broadcast), this process's members get the
    message on their queues at once, before the event loop has run anything (Redis is only
    for the other processes' members); a member that left gets nothing more."""
    from channels.layers import get_channel_layer

    from dominoes_site import layer as sending

    here = get_channel_layer()
    mine, other = await here.new_channel(), await here.new_channel()
    await here.group_add("now.group", mine)
    await here.group_add("now.elsewhere", other)
    waiting = asyncio.ensure_future(here.receive(mine))
    await asyncio.sleep(0)  # the consumer waits on its queue
    here.deliver_local([("now.group", {"type": "x.y", "n": 1}), ("now.other", {"type": "x.z"})])
    assert here.inboxes._by_name[mine].queue.qsize() == 1  # there before any await
    assert (await asyncio.wait_for(waiting, 10))["n"] == 1
    # ... and the sender that follows (delivered_here) does not give it to them a second time
    await here.group_send_many([("now.group", {"type": "x.y", "n": 1})], delivered_here=True)
    await here.group_send("now.group", {"type": "x.y", "n": 2})
    assert (await asyncio.wait_for(here.receive(mine), 10))["n"] == 2
    # the synchronous path as the site uses it: from a thread, handed to this loop
    from asgiref.sync import sync_to_async

    await sync_to_async(sending.group_send_many)([("now.group", {"type": "x.y", "n": 3})])
    assert (await asyncio.wait_for(here.receive(mine), 10))["n"] == 3
    await here.group_discard("now.group", mine)
    await here.group_add("now.marker", mine)
    here.deliver_local([("now.group", {"type": "x.y", "n": 4})])
    await here.group_send("now.group", {"type": "x.y", "n": 5})
    await here.group_send("now.marker", {"type": "x.y", "n": 6})
    assert (await asyncio.wait_for(here.receive(mine), 10))["n"] == 6  # not 4 or 5
    await here.group_discard("now.marker", mine)
    await here.group_discard("now.elsewhere", other)


class _FlakyLayer:
    """A channel layer whose first `failures` batch sends fail, as on a Redis restarting."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.sent: list[list[tuple[str, dict[str, object]]]] = []

    async def group_send_many(self, messages: list[tuple[str, dict[str, object]]]) -> None:
        if self.failures:
            self.failures -= 1
            raise ConnectionError("Error UNKNOWN while writing to socket")
        self.sent.append(messages)


def test_a_batch_that_fails_is_sent_again_in_order_and_the_caller_never_sees_the_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Outside an event loop (a Celery task that already committed a house move): the send is
    tried again until it goes, the batches keep their order, nothing is raised to the task."""
    from dominoes_site import layer as layer_module

    flaky = _FlakyLayer(failures=3)
    monkeypatch.setattr(layer_module, "get_channel_layer", lambda: flaky)
    layer_module.group_send_many([("table.1.public", {"type": "table.update", "seq": 1})])
    layer_module.group_send_many([("table.1.public", {"type": "table.update", "seq": 2})])
    assert [batch[0][1]["seq"] for batch in flaky.sent] == [1, 2]
    assert flaky.failures == 0


def test_a_batch_still_failing_is_left_to_its_sender_and_the_caller_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from dominoes_site import layer as layer_module

    flaky = _FlakyLayer(failures=10**6)
    monkeypatch.setattr(layer_module, "get_channel_layer", lambda: flaky)
    monkeypatch.setattr(layer_module, "WAIT_SECONDS", 0.2)
    monkeypatch.setattr(layer_module, "RESEND_SECONDS", 0.5)
    layer_module.group_send_many([("table.1.public", {"type": "table.update", "seq": 1})])
    assert flaky.sent == []
