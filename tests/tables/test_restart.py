"""A server restart loses no game: daphne is stopped mid-game, started again, and play goes on."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest
import websockets
from django.conf import settings
from django.test import Client

from tables import services
from tables.models import Game
from tests.live import start_server, stop_server


def cookie_for(user: Any) -> str:
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


async def open_socket(port: int, table_id: int, cookie: str) -> Any:
    socket = await websockets.connect(
        f"ws://127.0.0.1:{port}/ws/tables/{table_id}/",
        additional_headers={"Cookie": cookie, "Origin": f"http://localhost:{port}"},
    )
    # The socket joins the table's presence just after it opens, before it reads any frame: a
    # pong says that is done (so the next socket's snapshot counts this one as there).
    await socket.send(json.dumps({"type": "ping"}))
    assert json.loads(await socket.recv())["type"] == "pong"
    return socket


async def next_picture(socket: Any, min_seq: int) -> dict[str, Any]:
    while True:
        message = json.loads(await socket.recv())
        assert message["type"] != "error", message
        if message["type"] in ("snapshot", "resume", "update") and message["seq"] >= min_seq:
            return message


async def play(
    sockets: list[Any], views: list[dict[str, Any]], seq: int, moves: int, rng: random.Random
) -> tuple[list[dict[str, Any]], int]:
    for _ in range(moves):
        game = views[0]["game"]
        if game["phase"] == "game_over":
            break
        actor = game["to_act"]
        action = dict(rng.choice(views[actor]["game"]["legal_actions"]))
        action.pop("seat")
        await sockets[actor].send(
            json.dumps(
                {"type": "act", "version": views[actor]["game"]["version"], "action": action}
            )
        )
        seq += 1
        views = [await next_picture(s, seq) for s in sockets]
    return views, seq


@pytest.mark.django_db(transaction=True)
def test_a_restart_loses_no_game(alice: Any, bob: Any) -> None:
    table = services.table_create(host=alice, mode="citizen", players=2)
    services.seat_take(table_id=table.pk, user=bob, number=1)
    for user in (alice, bob):
        services.seat_ready(table_id=table.pk, user=user, ready=True)
    cookies = [cookie_for(u) for u in (alice, bob)]
    rng = random.Random(3)
    # Servers are forked from this thread with no event loop running (as a fresh process starts);
    # the clients run in event loops of their own between the restarts.
    server = start_server()
    port = server.port.value
    try:
        seq, version = asyncio.run(before_restart(port, table.pk, cookies, rng))
    finally:
        stop_server(server)
    server = start_server(port)
    try:
        after = asyncio.run(after_restart(port, table.pk, cookies, rng, seq, version))
    finally:
        stop_server(server)
    game = Game.objects.get(table=table)
    assert game.version == after > version


async def before_restart(
    port: int, table_id: int, cookies: list[str], rng: random.Random
) -> tuple[int, int]:
    sockets = [await open_socket(port, table_id, c) for c in cookies]
    for socket in sockets:
        await socket.send(json.dumps({"type": "hello", "last_seq": None}))
    views = [await next_picture(s, 0) for s in sockets]
    views, seq = await play(sockets, views, views[0]["seq"], 4, rng)
    for socket in sockets:
        await socket.close()
    return seq, views[0]["game"]["version"]


async def after_restart(
    port: int, table_id: int, cookies: list[str], rng: random.Random, seq: int, version: int
) -> int:
    sockets = [await open_socket(port, table_id, c) for c in cookies]
    for socket in sockets:
        await socket.send(json.dumps({"type": "hello", "last_seq": seq}))
    views = [await next_picture(s, seq) for s in sockets]
    # Resumed from the number each client last saw. The players' leaving may have been
    # recorded before the server stopped (events past `seq`, no moves): the game is exactly
    # where it was.
    assert all(v["type"] == "resume" and v["seq"] >= seq for v in views)
    assert all(v["game"]["version"] == version for v in views)
    views, seq = await play(sockets, views, max(v["seq"] for v in views), 4, rng)
    for socket in sockets:
        await socket.close()
    return int(views[0]["game"]["version"])
