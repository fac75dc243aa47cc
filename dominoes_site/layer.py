"""Sending to the channel layer from synchronous code (services, Celery tasks).

Inside daphne, synchronous code runs in a thread that async_to_sync can hand back to the
server's own event loop. A Celery worker has no event loop of its own, and async_to_sync would
make a new one for every call; the SQLite layer keeps a connection pool per event loop, so that
would leak a pool per message. Here every such call shares one long-lived loop per process.
"""

from __future__ import annotations

import asyncio
import os
import threading
from typing import Any

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import get_channel_layer

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
    """The event loop that handed this thread its work through sync_to_async, if any."""
    local = SyncToAsync.threadlocal
    if getattr(local, "main_event_loop_pid", None) != os.getpid():
        return None
    loop = getattr(local, "main_event_loop", None)
    return loop if loop is not None and loop.is_running() else None


def group_send(group: str, message: dict[str, Any]) -> None:
    """Send `message` to every channel in `group` (a no-op without a channel layer)."""
    group_send_many([(group, message)])


def group_send_many(messages: list[tuple[str, dict[str, Any]]]) -> None:
    """Send several group messages at once: one hop to the event loop, the sends concurrent."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return

    async def send_all() -> None:
        await asyncio.gather(*(layer.group_send(group, message) for group, message in messages))

    if _outer_loop() is not None:
        async_to_sync(send_all)()
    else:
        asyncio.run_coroutine_threadsafe(send_all(), _background_loop()).result(timeout=30)
