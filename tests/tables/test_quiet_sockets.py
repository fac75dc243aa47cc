"""Quiet sockets stay open: a player who thinks for half a minute keeps the connection.

On PostgreSQL + Redis the channel layer's blocking read once timed out at 5 s (redis-py's default
read timeout equalled the layer's 5 s blocking pop) and every socket that heard nothing for that
long was closed with 1011. Here real daphne serves the real stack (CI runs this on both), the
sockets send nothing at all for 30 s (no pings either, from the page or the WebSocket library),
then a move is made and every socket must still be open and get it, in order.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import websockets

from tables import services
from tables.models import Game
from tests.live import start_server, stop_server
from tests.tables.test_restart import cookie_for

QUIET_SECONDS = 30


async def _connect(port: int, table_id: int, cookie: str) -> Any:
    return await websockets.connect(
        f"ws://127.0.0.1:{port}/ws/tables/{table_id}/",
        additional_headers={"Cookie": cookie, "Origin": f"http://localhost:{port}"},
        ping_interval=None,  # truly silent: the library sends no keep-alive of its own
    )


async def _next_of(socket: Any, kinds: tuple[str, ...]) -> dict[str, Any]:
    while True:
        message = json.loads(await asyncio.wait_for(socket.recv(), timeout=30))
        assert message["type"] != "error", message
        if message["type"] in kinds:
            return message


async def _quiet_then_move(port: int, table_id: int, cookies: list[str]) -> list[int]:
    players = [await _connect(port, table_id, c) for c in cookies]
    watcher = await _connect(port, table_id, cookies[2])
    sockets = [*players, watcher]
    for socket in sockets:
        await socket.send(json.dumps({"type": "hello", "last_seq": None}))
    views = [await _next_of(s, ("snapshot",)) for s in sockets]
    seq = views[0]["seq"]
    assert {v["seq"] for v in views} == {seq}

    await asyncio.sleep(QUIET_SECONDS)  # nobody sends anything

    for socket in sockets:
        assert socket.close_code is None, f"closed while quiet with {socket.close_code}"
    game = views[0]["game"]
    actor = game["to_act"]
    mine = views[actor]["game"]
    action = dict(mine["legal_actions"][0])
    action.pop("seat")
    await players[actor].send(
        json.dumps({"type": "act", "version": mine["version"], "action": action})
    )
    updates = [await _next_of(s, ("update",)) for s in sockets]
    assert [u["seq"] for u in updates] == [seq + 1] * len(sockets)
    for socket in sockets:
        await socket.close()
    return [u["game"]["version"] for u in updates]


@pytest.mark.django_db(transaction=True)
def test_sockets_quiet_for_30_seconds_stay_open_and_get_the_next_move(
    alice: Any, bob: Any, make_user: Any
) -> None:
    carol = make_user("Carol")  # watches: the public group must survive the quiet too
    table = services.table_create(host=alice, mode="citizen", players=2)
    services.seat_take(table_id=table.pk, user=bob, number=1)
    for user in (alice, bob):
        services.seat_ready(table_id=table.pk, user=user, ready=True)
    before = Game.objects.get(table=table).version
    cookies = [cookie_for(u) for u in (alice, bob, carol)]
    server = start_server()
    try:
        versions = asyncio.run(_quiet_then_move(server.port.value, table.pk, cookies))
    finally:
        stop_server(server)
    assert Game.objects.get(table=table).version == before + 1
    assert set(versions) == {before + 1}
