"""Sending to the channel layer from synchronous code (services, Celery tasks).

Inside daphne, synchronous code runs in a thread started by the server's own event loop: the
messages are handed to that loop. A Celery worker has no event loop of its own, and async_to_sync
would make a new one for every call (and the layers keep connections per event loop, so that
would leak them per message). Here every such call shares one long-lived loop per process.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import threading
import time
from typing import Any

from asgiref.sync import SyncToAsync
from channels.layers import get_channel_layer

from dominoes_site import db_hop

log = logging.getLogger(__name__)

#: A batch the channel layer could not send (Redis restarting, out of reach) is tried again, in
#: order and ahead of later batches, for this long before it is given up (and logged).
RESEND_SECONDS = 30.0
#: How long synchronous code outside an event loop (a Celery task) waits for its batch to be
#: sent before going on; the batch is still tried again behind it. Nothing is raised to it:
#: its work is committed, and a socket that missed the batch is brought up to date anyway.
WAIT_SECONDS = 5.0

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


def outer_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop this thread's work belongs to (a daphne's), or None (a Celery task)."""
    return _outer_loop()


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
    order of their event numbers; a batch that fails (Redis restarting) is tried again before
    the next. Elsewhere (a Celery worker, a management command) the batch goes through one
    such sender on a background loop, and the call waits until it is sent (up to
    WAIT_SECONDS); it never raises: the caller's work is already committed.
    """
    layer = get_channel_layer()
    if layer is None or not messages:
        return
    loop = _outer_loop()
    if loop is not None:
        _hand_to(loop, layer, messages)
        return

    background = _background_loop()
    sent: concurrent.futures.Future[bool] = concurrent.futures.Future()
    queue = _outbox(background, layer)
    background.call_soon_threadsafe(queue.put_nowait, (messages, False, sent))
    try:
        if not sent.result(timeout=WAIT_SECONDS):
            log.error("channel layer: %d group messages were not sent", len(messages))
    except concurrent.futures.TimeoutError:
        log.warning("channel layer: %d group messages not sent yet; still trying", len(messages))


def group_send_many_on(
    loop: asyncio.AbstractEventLoop, messages: list[tuple[str, dict[str, Any]]]
) -> None:
    """As `group_send_many` inside a daphne, from code that runs on its event loop itself (a
    callback the loop calls, with no database work around it): handed to the loop's sender,
    never waited for."""
    layer = get_channel_layer()
    if layer is not None and messages:
        _hand_to(loop, layer, messages)


def _hand_to(
    loop: asyncio.AbstractEventLoop, layer: Any, messages: list[tuple[str, dict[str, Any]]]
) -> None:
    # This process's own sockets get theirs now (the Redis layer knows them: see its
    # deliver_local), the others' after the loop's sender has reached Redis.
    deliver_local = getattr(layer, "deliver_local", None)
    if deliver_local is not None:
        deliver_local(messages)
    batch: _Batch = (messages, deliver_local is not None, None)
    loop.call_soon_threadsafe(_outbox(loop, layer).put_nowait, batch)


async def _send_batch(
    layer: Any, messages: list[tuple[str, dict[str, Any]]], *, delivered_here: bool
) -> None:
    if delivered_here:
        await layer.group_send_many(messages, delivered_here=True)
    elif hasattr(layer, "group_send_many"):  # the house's layers: the whole batch at once
        await layer.group_send_many(messages)
    else:
        await asyncio.gather(*(layer.group_send(group, message) for group, message in messages))


async def _send_until_sent(
    layer: Any, messages: list[tuple[str, dict[str, Any]]], *, delivered_here: bool
) -> bool:
    """Send one batch, trying again (with a growing pause) for up to RESEND_SECONDS."""
    started = time.monotonic()
    pause = 0.1
    while True:
        try:
            await _send_batch(layer, messages, delivered_here=delivered_here)
            return True
        except Exception:
            from dominoes_site.metrics import LAYER_SEND_FAILURES

            if time.monotonic() - started >= RESEND_SECONDS:
                LAYER_SEND_FAILURES.labels(outcome="given_up").inc()
                log.exception(
                    "channel layer: could not send %d group messages for %.0f s; given up",
                    len(messages),
                    RESEND_SECONDS,
                )
                return False
            LAYER_SEND_FAILURES.labels(outcome="retried").inc()
            if pause == 0.1:
                log.warning(
                    "channel layer: could not send %d group messages; trying again",
                    len(messages),
                    exc_info=True,
                )
            await asyncio.sleep(pause)
            pause = min(pause * 2, 2.0)


_Batch = tuple[list[tuple[str, dict[str, Any]]], bool, "concurrent.futures.Future[bool] | None"]
_outboxes: dict[tuple[asyncio.AbstractEventLoop, Any], asyncio.Queue[_Batch]] = {}
_outbox_lock = threading.Lock()


def _outbox(loop: asyncio.AbstractEventLoop, layer: Any) -> asyncio.Queue[_Batch]:
    """The queue of batches waiting to be sent on `loop` through `layer`, with its sender task
    (made on first use, from any thread; the task itself starts on the loop)."""
    with _outbox_lock:
        queue = _outboxes.get((loop, layer))
        if queue is None:
            queue = asyncio.Queue()
            _outboxes[loop, layer] = queue
            loop.call_soon_threadsafe(lambda: loop.create_task(_sender(queue, layer)))
        return queue


async def _sender(queue: asyncio.Queue[_Batch], layer: Any) -> None:
    """Sends the batches in the order they were handed over; one that fails is tried again
    before the next (a table's updates must not overtake each other)."""
    while True:
        messages, delivered_here, sent = await queue.get()
        ok = await _send_until_sent(layer, messages, delivered_here=delivered_here)
        if sent is not None and not sent.done():
            sent.set_result(ok)
