"""A PostgreSQL restart closes no socket: the next action goes through on a fresh connection.

The production stack only. Every server process of the test database is ended as a restart
ends them (`pg_terminate_backend`: the same "terminating connection due to administrator
command", SQLSTATE 57P01, that `pg_ctl restart -m fast` sends): each daphne's kept connection
is dead, and the socket's next action finds it so. It must be made once more on a new
connection: an `ack`, the other player's update, and no close.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.conf import settings
from django.db import connection, connections

from tables import services
from tests.live import start_server, stop_server
from tests.tables.test_redis_restart import act, heard
from tests.tables.test_restart import cookie_for, open_socket

pytestmark = pytest.mark.skipif(
    not settings.DATABASE_URL, reason="PostgreSQL: the production stack"
)


def _admin() -> psycopg.Connection[Any]:
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    return psycopg.connect(**params, autocommit=True)


def sessions_now() -> set[int]:
    """The server processes of the test database open now."""
    with _admin() as admin:
        rows = admin.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
        ).fetchall()
    return {pid for (pid,) in rows}


def end_every_session(spared: set[int]) -> int:
    """End every session of the test database but `spared`, as a fast restart does; how many.

    `spared` are this test process's own (opened before the daphnes started): connections that
    other tests' threads keep would otherwise be found dead by the tests after this one."""
    with _admin() as admin:
        rows = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid() "
            "AND NOT (pid = ANY(%s))",
            [list(spared)],
        ).fetchall()
    return sum(1 for (ended,) in rows if ended)


def end_session(pid: int) -> bool:
    """End one session of the test database, as a fast restart ends it."""
    with _admin() as admin:
        row = admin.execute("SELECT pg_terminate_backend(%s)", [pid]).fetchone()
    return bool(row and row[0])


@pytest.fixture
def kept_connections() -> Iterator[None]:
    """Daphnes forked in this fixture keep their connections, as in production (tests close
    them after each use, and a connection opened afresh for every action never finds one dead)."""
    settings_dict = connections["default"].settings_dict
    before = settings_dict["CONN_MAX_AGE"]
    settings_dict["CONN_MAX_AGE"] = 600
    try:
        yield
    finally:
        settings_dict["CONN_MAX_AGE"] = before


@pytest.mark.django_db(transaction=True)
def test_a_database_restart_closes_no_socket(alice: Any, bob: Any, kept_connections: None) -> None:
    table = services.table_create(host=alice, mode="citizen", players=2, target=250)
    services.seat_take(table_id=table.pk, user=bob, number=1)
    for user in (alice, bob):
        services.seat_ready(table_id=table.pk, user=user, ready=True)
    cookies = [cookie_for(u) for u in (alice, bob)]
    spared = sessions_now()
    servers = [start_server(), start_server()]
    connections["default"].settings_dict["CONN_MAX_AGE"] = 0  # this process: as in every test
    try:
        asyncio.run(play_across_restarts(table.pk, cookies, servers, spared))
    finally:
        for server in servers:
            stop_server(server)


async def play_across_restarts(
    table_id: int, cookies: list[str], servers: list[Any], spared: set[int]
) -> None:
    rng = random.Random(5)
    sockets = [
        await open_socket(server.port.value, table_id, cookie)
        for server, cookie in zip(servers, cookies, strict=True)
    ]
    for s in sockets:
        await s.send(json.dumps({"type": "hello", "last_seq": None}))
    views = await heard(sockets, 0)
    for restart in range(3):
        ended = await asyncio.to_thread(end_every_session, spared)
        # The first time, each daphne's kept connection (both answered a hello). Later, the
        # daphnes that acted since: a player may act twice in a row (a draw, then a play), and
        # the other daphne then reads nothing and holds no connection until its next action.
        assert ended >= (2 if restart == 0 else 1)
        # Both players act on their dead connections in turn: every move is acked and heard.
        for _ in range(2):
            actor = views[0]["game"]["to_act"]
            await act(sockets[actor], views[actor], rng)
            views = await heard(sockets, max(v["seq"] for v in views) + 1)
    for s in sockets:
        assert s.close_code is None, f"a socket closed: {s.close_code}"
        await s.close()
