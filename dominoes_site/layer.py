"""Sending to the channel layer from synchronous code (services, Celery tasks).

Inside daphne, synchronous code runs in a thread started by the server's own event loop: the
messages are handed to that loop. A Celery worker has no event loop of its own, and async_to_sync
would make a new one for every call (and the layers keep connections per event loop, so that
would leak them per message). Here every such call shares one long-lived loop per process.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from typing import Any

from asgiref.sync import SyncToAsync
from channels.layers import get_channel_layer

from dominoes_site import db_hop

log = logging.getLogger(__name__)

_loop: asyncio.AbstractEventLoop | None = None
_loop_lock = threading.Lock()


def _background_loop() -> asyncio.AbstractEventLoop:
    global _loop
    with _loop_lock:
        if _loop is None or _loop.is_closed():
            _loop = asyncio.new_event_loop()
            threading.Thread(target=_loop.run_forever, name="channel-layer", daemon=True).start()
        return _loop


def _outer_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop that handed this thread its work (through sync_to_async, or inline: see
    dominoes_site/db_hop.py), if any."""
    inline = db_hop.inline_loop()
    if inline is not None:
        return inline
    local = SyncToAsync.threadlocal
    if getattr(local, "main_event_loop_pid", None) != os.getpid():
        return None
    loop = getattr(local, "main_event_loop", None)
    return loop if loop is not None and loop.is_running() else None


def group_send(group: str, message: dict[str, Any]) -> None:
    """Send `message` to every channel in `group` (a no-op without a channel layer)."""
    group_send_many([(group, message)])


def group_send_many(messages: list[tuple[str, dict[str, Any]]]) -> None:
    """Send several group messages at once: one hop to the event loop, the sends concurrent.

    On the Redis layer this process's own sockets get their messages at once, from here (the
    layer knows its own members: HouseRedisChannelLayer.deliver_local). Inside daphne the batch
    is handed to the server's event loop and not waited for: the
    database thread (one per daphne, shared by every socket) goes straight on to the next
    message instead of idling while the channel layer writes. One sender task per event loop
    sends the batches in the order they were handed over, so a table's updates leave in the
    order of their event numbers. Elsewhere (a Celery worker, a management command) the call
    waits until the batch is sent.
    """
    layer = get_channel_layer()
    if layer is None or not messages:
        return
    loop = _outer_loop()
    if loop is not None:
        # This process's own sockets get theirs now (the Redis layer knows them: see its
        # deliver_local), the others' after the loop's sender has reached Redis.
        deliver_local = getattr(layer, "deliver_local", None)
        if deliver_local is not None:
            deliver_local(messages)
        batch = (messages, deliver_local is not None)
        loop.call_soon_threadsafe(_outbox(loop, layer).put_nowait, batch)
        return

    async def send_all() -> None:
        await _send_batch(layer, messages, delivered_here=False)

    asyncio.run_coroutine_threadsafe(send_all(), _background_loop()).result(timeout=30)


async def _send_batch(
    layer: Any, messages: list[tuple[str, dict[str, Any]]], *, delivered_here: bool
) -> None:
    if delivered_here:
        await layer.group_send_many(messages, delivered_here=True)
    elif hasattr(layer, "group_send_many"):  # the house's layers: the whole batch at once
        await layer.group_send_many(messages)
    else:
        await asyncio.gather(*(layer.group_send(group, message) for group, message in messages))


_Batch = tuple[list[tuple[str, dict[str, Any]]], bool]
_outboxes: dict[asyncio.AbstractEventLoop, asyncio.Queue[_Batch]] = {}
_outbox_lock = threading.Lock()


def _outbox(loop: asyncio.AbstractEventLoop, layer: Any) -> asyncio.Queue[_Batch]:
    """The queue of batches waiting to be sent on `loop`, with its sender task (made on first
    use, from any thread; the task itself starts on the loop)."""
    with _outbox_lock:
        queue = _outboxes.get(loop)
        if queue is None:
            queue = asyncio.Queue()
            _outboxes[loop] = queue
            loop.call_soon_threadsafe(lambda: loop.create_task(_sender(queue, layer)))
        return queue


async def _sender(queue: asyncio.Queue[_Batch], layer: Any) -> None:
    while True:
        messages, delivered_here = await queue.get()
        try:
            await _send_batch(layer, messages, delivered_here=delivered_here)
        except Exception:  # a lost update is caught up by the client's resume; keep sending
            log.exception("channel layer: could not send %d group messages", len(messages))
