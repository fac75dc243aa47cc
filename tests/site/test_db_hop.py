"""A socket's database work (dominoes_site/db_hop.py): in the event loop's thread by default."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from django.db import connection
from django.test import override_settings

from accounts.models import User
from dominoes_site import db_hop, layer


def _where() -> tuple[int, int, asyncio.AbstractEventLoop | None]:
    """The thread it ran in, a query's answer, and the loop `layer` would hand messages to."""
    return threading.get_ident(), User.objects.count(), layer._outer_loop()


@pytest.mark.django_db(transaction=True)
async def test_inline_work_runs_in_the_loops_thread_and_sends_to_that_loop() -> None:
    here = threading.get_ident()
    thread, users, loop = await db_hop.run(_where)
    assert thread == here
    assert users == await db_hop.run(User.objects.count)
    assert loop is asyncio.get_running_loop()
    assert db_hop.inline_loop() is None  # only while the work runs


@pytest.mark.django_db(transaction=True)
async def test_without_inline_the_work_goes_to_channels_database_thread() -> None:
    with override_settings(SOCKET_DATABASE_INLINE=False):
        thread, _users, loop = await db_hop.run(_where)
    assert thread != threading.get_ident()
    assert loop is asyncio.get_running_loop()  # through sync_to_async's own record


@pytest.mark.django_db(transaction=True)
async def test_an_error_inside_leaves_the_loop_as_it_was() -> None:
    def fails() -> None:
        raise ValueError("no")

    with pytest.raises(ValueError):
        await db_hop.run(fails)
    assert asyncio.get_running_loop() is not None
    assert db_hop.inline_loop() is None
    assert await db_hop.run(User.objects.count) >= 0


@pytest.mark.django_db(transaction=True)
async def test_connections_are_checked_at_most_once_a_second_unless_an_error_came(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checks: list[int] = []
    monkeypatch.setattr(db_hop, "close_old_connections", lambda: checks.append(1))
    clock = [1000.0]
    monkeypatch.setattr(db_hop.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(db_hop._state, "checked", 0.0, raising=False)

    def use(error: bool = False) -> None:
        User.objects.exists()
        connection.close_at = None  # as CONN_MAX_AGE=None: never too old
        connection.errors_occurred = error

    await db_hop.run(use)
    assert len(checks) == 1  # before the work; not again straight after it
    clock[0] += 0.5
    await db_hop.run(use)
    assert len(checks) == 1
    await db_hop.run(use, error=True)
    assert len(checks) == 2  # the error is looked at straight after the work
    connection.errors_occurred = False
    clock[0] += 1.5
    await db_hop.run(use)
    assert len(checks) == 3  # a second has gone by


@pytest.mark.django_db(transaction=True)
async def test_inline_work_does_not_nest() -> None:
    async def inner() -> Any:
        return await db_hop.run(User.objects.count)

    def nested() -> Any:
        coroutine = inner()
        try:
            coroutine.send(None)
        finally:
            coroutine.close()

    with pytest.raises(RuntimeError, match="does not nest"):
        await db_hop.run(nested)


# --- a connection the database dropped (PostgreSQL restarted) -----------------------------------

needs_postgres = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="PostgreSQL's dropped connections"
)


def _end_this_session() -> None:
    """End this thread's database session from another one, as a fast restart ends it."""
    from tests.tables.test_database_restart import end_session

    pid = connection.cursor().connection.info.backend_pid
    assert end_session(pid)
    with pytest.raises(Exception):  # noqa: B017 - the session is gone, whatever psycopg says
        connection.connection.execute("SELECT 1").fetchone()


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_work_whose_first_statement_meets_a_dropped_connection_is_made_again() -> None:
    _end_this_session()
    calls: list[int] = []

    def count_users() -> int:
        calls.append(1)
        return User.objects.count()

    assert db_hop.call_with_retry(count_users) >= 0
    assert len(calls) == 2  # once on the dead connection, once on a fresh one


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_work_that_did_something_first_is_not_made_again() -> None:
    from django.db import OperationalError

    calls: list[int] = []

    def read_then_lose_the_connection() -> int:
        calls.append(1)
        User.objects.count()
        _end_this_session()
        return User.objects.count()

    with pytest.raises(OperationalError):
        db_hop.call_with_retry(read_then_lose_the_connection)
    assert len(calls) == 1  # a later failure may follow a commit: never repeated
    assert db_hop.call_with_retry(User.objects.count) >= 0


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_an_unreachable_database_is_said_so() -> None:
    import socket

    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]  # nothing listens here once it is closed
    settings_dict = connection.settings_dict
    before = settings_dict["PORT"], settings_dict["HOST"]
    connection.close()
    settings_dict["HOST"], settings_dict["PORT"] = "127.0.0.1", port
    try:
        with pytest.raises(db_hop.DatabaseUnavailable):
            db_hop.call_with_retry(User.objects.count)
    finally:
        settings_dict["PORT"], settings_dict["HOST"] = before
        connection.close()
    assert User.objects.count() >= 0


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_a_transaction_cut_off_before_its_commit_is_made_again() -> None:
    """PostgreSQL stopping mid-transaction: what it did was rolled back with the connection,
    so the whole call is made again on a fresh one."""
    from django.db import transaction

    calls: list[int] = []

    def read_in_a_transaction_then_lose_the_connection() -> int:
        calls.append(1)
        with transaction.atomic():
            User.objects.count()
            if len(calls) == 1:
                _end_this_session()
            return User.objects.count()

    assert db_hop.call_with_retry(read_in_a_transaction_then_lose_the_connection) >= 0
    assert len(calls) == 2
