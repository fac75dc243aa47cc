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

A connection the database dropped since it was last used (PostgreSQL restarted, a failover, a
proxy or network that closed it) fails the call. When nothing it did had taken effect (no
statement outside a transaction, no transaction committed: the dropped connection rolled back
whatever was open), the call is made once more on a fresh connection, and the player notices
nothing. Once something took effect, a later failure may follow a commit whose answer was
lost, and the error goes to the caller. A call that fails again on the fresh connection (the
database still restarting, or out of reach) raises `DatabaseUnavailable`: nothing was done,
and the socket answers with an error and stays open.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import (
    DEFAULT_DB_ALIAS,
    InterfaceError,
    OperationalError,
    close_old_connections,
    connections,
)

log = logging.getLogger(__name__)

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


class DatabaseUnavailable(Exception):
    """The database could not be reached, even on a fresh connection: nothing was done."""


def _counted(done: list[int]) -> Callable[..., Any]:
    """An execute wrapper that counts what took effect: a statement outside a transaction (it
    committed by itself), or a transaction's commit (counted on commit). A statement inside a
    transaction that never committed did nothing."""
    armed: list[object] = [None]

    def committed() -> None:
        done[0] += 1

    def wrapper(
        execute: Callable[..., Any], sql: Any, params: Any, many: bool, context: Any
    ) -> Any:
        result = execute(sql, params, many, context)
        connection = context["connection"]
        if not connection.in_atomic_block:
            done[0] += 1
        elif connection.atomic_blocks and armed[0] is not connection.atomic_blocks[0]:
            armed[0] = connection.atomic_blocks[0]  # once per transaction
            connection.on_commit(committed)
        return result

    return wrapper


def _dropped(exc: Exception) -> bool:
    """Whether a database error says the connection is gone (rather than a refusal of the
    statement): no answer from the server at all, a connection exception (SQLSTATE class 08),
    or the server shutting down or starting (57P01-57P03: a restart, a failover)."""
    sqlstate = getattr(exc.__cause__, "sqlstate", None)
    return sqlstate is None or sqlstate.startswith(("08", "57P"))


def call_with_retry(fn: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
    """`fn(*args, **kwargs)`, made once more on a fresh connection when it failed on a dropped
    connection before anything it did took effect (see the module's docstring)."""
    connection = connections[DEFAULT_DB_ALIAS]
    done = [0]
    try:
        with connection.execute_wrapper(_counted(done)):
            return fn(*args, **kwargs)
    except (OperationalError, InterfaceError) as exc:
        if done[0] or connection.in_atomic_block or not _dropped(exc):
            raise  # something took effect, or not a dropped connection
        log.warning("database: the connection was dropped; trying again on a new one")
        connection.close()
    from dominoes_site.metrics import DATABASE_RETRIES

    done[0] = 0
    try:
        with connection.execute_wrapper(_counted(done)):
            result = fn(*args, **kwargs)
    except (OperationalError, InterfaceError) as exc:
        if done[0] or connection.in_atomic_block or not _dropped(exc):
            raise
        connection.close()
        DATABASE_RETRIES.labels(outcome="unavailable").inc()
        raise DatabaseUnavailable(str(exc)) from exc
    DATABASE_RETRIES.labels(outcome="ok").inc()
    return result


async def run(fn: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
    """`fn(*args, **kwargs)` with the database, inline or in the database thread (made once
    more on a fresh connection when the database had dropped the one it found)."""
    if not settings.SOCKET_DATABASE_INLINE:
        result: _T = await database_sync_to_async(call_with_retry)(fn, *args, **kwargs)
        return result
    if getattr(_state, "loop", None) is not None:
        raise RuntimeError("inline database work does not nest")
    loop = asyncio.get_running_loop()
    asyncio.events._set_running_loop(None)
    _state.loop = loop
    try:
        _check_connections()
        try:
            return call_with_retry(fn, *args, **kwargs)
        finally:
            _check_connections()
    finally:
        _state.loop = None
        asyncio.events._set_running_loop(loop)
