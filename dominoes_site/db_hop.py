"""How a socket's handlers reach the database: in the event loop's own thread, or in a thread.

channels' `database_sync_to_async` runs each piece of database work in one worker thread per
process (thread-sensitive), so every action costs two hand-offs between the event loop's thread
and that thread, and a wait for the GIL at each of the action's round trips to the database
while the loop's thread holds it. With `SOCKET_DATABASE_INLINE` (the default) the work runs
in the event loop's own thread instead, start to finish with no `await` inside: the loop waits
for the database (one short transaction, a few round trips) and nothing interleaves with the
transaction. Django refuses synchronous database calls in a thread with a running event loop
(they would block it without meaning to); here blocking it is the intent, so the running loop
is hidden from the check for the call's duration, and `dominoes_site.layer` hands the messages
sent on commit to the same loop, as it does from the worker thread.

Connections are checked as `database_sync_to_async` does, before and after the call, except
that a connection that was checked less than `HEALTH_CHECK_SECONDS` ago and has had no error
since is not checked again: with CONN_HEALTH_CHECKS each check is a `SELECT 1` round trip.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import close_old_connections, connections

_P = ParamSpec("_P")
_T = TypeVar("_T")

HEALTH_CHECK_SECONDS = 1.0

_state = threading.local()


def inline_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop whose thread is running inline database work now, if any."""
    loop: asyncio.AbstractEventLoop | None = getattr(_state, "loop", None)
    return loop


def _check_connections() -> None:
    now = time.monotonic()
    checked = getattr(_state, "checked", 0.0)
    if now - checked < HEALTH_CHECK_SECONDS and not any(
        c.errors_occurred or (c.close_at is not None and c.close_at <= now)
        for c in connections.all(initialized_only=True)
    ):
        return
    close_old_connections()
    _state.checked = now


async def run(fn: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
    """`fn(*args, **kwargs)` with the database, inline or in the database thread."""
    if not settings.SOCKET_DATABASE_INLINE:
        result: _T = await database_sync_to_async(fn)(*args, **kwargs)
        return result
    if getattr(_state, "loop", None) is not None:
        raise RuntimeError("inline database work does not nest")
    loop = asyncio.get_running_loop()
    asyncio.events._set_running_loop(None)
    _state.loop = loop
    try:
        _check_connections()
        try:
            return fn(*args, **kwargs)
        finally:
            _check_connections()
    finally:
        _state.loop = None
        asyncio.events._set_running_loop(loop)
