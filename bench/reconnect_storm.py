"""A reconnect storm on one daphne: what a lost server or a drain sends to the daphnes that take
over. Run it through pytest (it uses the test database and the tests' fixtures):

    DATABASE_URL=postgres://... REDIS_URL=redis://... \\
        .venv/bin/python -m pytest bench/reconnect_storm.py -s -p no:cacheprovider

STORM_TABLES (default 20) one-on-one Citizen games are dealt, each with its two players and
STORM_PER - 2 (default 6) watchers, the same watchers at every table. One daphne is started as
deployed (`python -m dominoes_site.serve`, tests/live.py `serve_process`); then, twice, every
socket (160 by default) opens at once and says `hello`, and the script reports how long until
all were answered, each socket's time from its connect to its answer (p50, max), and the
daphne's CPU time per socket (from /proc). Between the rounds every socket closes with 4000 (a
lost connection) and the players come back from `away`; the second round is the warm one.
Compare two commits side by side: run it in a worktree of each, alternately.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

import pytest
import websockets
from django.db import connections

from tables import services
from tests.conftest import _english_first, _fresh_cache, make_user  # noqa: F401 (fixtures)
from tests.live import end_process, free_port, serve_process
from tests.tables.test_restart import cookie_for, next_picture, open_socket

TABLES = int(os.environ.get("STORM_TABLES", "20"))
PER = int(os.environ.get("STORM_PER", "8"))


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.django_db(transaction=True)
def test_storm(make_user: Any, tmp_path: Path) -> None:  # noqa: F811
    tables = []
    for t in range(TABLES):
        a, b = make_user(f"P{t}a"), make_user(f"P{t}b")
        table = services.table_create(host=a, mode="citizen", players=2)
        services.seat_take(table_id=table.pk, user=b, number=1)
        for user in (a, b):
            services.seat_ready(table_id=table.pk, user=user, ready=True)
        tables.append((table.pk, [cookie_for(a), cookie_for(b)]))
    watchers = [cookie_for(make_user(f"W{i}")) for i in range(PER - 2)]
    plan = [(table_id, c) for table_id, cs in tables for c in cs + watchers]
    port = free_port()
    server = serve_process(port, tmp_path / "server.log")
    connections.close_all()
    try:
        asyncio.run(storm(server.pid, port, plan))
    finally:
        end_process(server)


async def storm(pid: int, port: int, plan: list[tuple[int, str]]) -> None:
    retries = [0]

    async def one(table_id: int, cookie: str) -> tuple[float, Any]:
        """Connect and say hello; a failed connection is tried again a second later, as the
        page does (counted)."""
        began = time.perf_counter()
        for _attempt in range(10):
            try:
                socket = await open_socket(port, table_id, cookie)
                break
            except (OSError, websockets.exceptions.WebSocketException):
                retries[0] += 1
                await asyncio.sleep(1)
        await socket.send(json.dumps({"type": "hello", "last_seq": None}))
        await next_picture(socket, 0)
        return time.perf_counter() - began, socket

    for round_ in range(2):
        cpu_before, began = cpu_seconds(pid), time.perf_counter()
        done = await asyncio.gather(*(one(t, c) for t, c in plan))
        wall = time.perf_counter() - began
        cpu = (cpu_seconds(pid) - cpu_before) / len(plan)
        times = sorted(took for took, _ in done)
        print(
            f"\nSTORM round {round_}: {len(plan)} sockets all answered in {wall:.2f} s; "
            f"per socket p50 {statistics.median(times) * 1000:.0f} ms, "
            f"max {times[-1] * 1000:.0f} ms; daphne CPU {cpu * 1000:.1f} ms a socket; "
            f"connections tried again {retries[0]}"
        )
        retries[0] = 0
        for _, socket in done:
            await socket.close(code=4000)
        await asyncio.sleep(3)
