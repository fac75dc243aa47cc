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
