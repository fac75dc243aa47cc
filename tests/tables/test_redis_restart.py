"""A Redis restart freezes nothing: sockets on two daphnes keep hearing each other's moves.

The production stack only. The channel layer gets a private Redis server of its own, which the
test kills and starts again empty (as after a crash without persistence, or a failover to a
replica that missed the last writes): every group membership and queued message is gone, every
pooled connection dead. Each daphne must notice, write its sockets' memberships again, and bring
every socket up to date; no socket closes, none goes deaf, and a move made while Redis was down
reaches the other player once it is back.
"""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import socket as socket_module
import subprocess
import tempfile
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from django.conf import settings
from django.test import override_settings

from tables import services
from tables.models import Game
from tests.live import start_server, stop_server
from tests.tables.test_restart import cookie_for, next_picture, open_socket

pytestmark = [
    pytest.mark.skipif(not settings.REDIS_URL, reason="the production stack's channel layer"),
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
]

#: How long a socket may wait for an update that must come (generous: a loaded machine).
ARRIVES_WITHIN = 30.0


def _free_port() -> int:
    with socket_module.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PrivateRedis:
    """A redis-server of the test's own, with no persistence: a restart starts it empty."""

    def __init__(self) -> None:
        self.port = _free_port()
        self.folder = tempfile.mkdtemp(prefix="redis-restart-")
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", self.folder],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        client = redis.Redis.from_url(self.url)
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        client.close()

    def kill(self) -> None:
        """Gone at once, as in a crash: no goodbye to any client, nothing saved."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None

    def run_id(self) -> str:
        client = redis.Redis.from_url(self.url)
        try:
            return str(client.info("server")["run_id"])
        finally:
            client.close()


@pytest.fixture
def private_redis() -> Iterator[PrivateRedis]:
    server = PrivateRedis()
    server.start()
    layers = {
        "default": {
            **settings.CHANNEL_LAYERS["default"],
            "CONFIG": {
                **settings.CHANNEL_LAYERS["default"]["CONFIG"],
                "hosts": [
                    {
                        **settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"][0],
                        "address": server.url,
                    }
                ],
            },
        }
    }
    try:
        # The daphnes are forked inside the override: their channel layer is the private one,
        # and so is this process's (it moves as the worker would, from outside any daphne).
        with override_settings(CHANNEL_LAYERS=layers):
            yield server
    finally:
        server.kill()
        shutil.rmtree(server.folder, ignore_errors=True)


async def act(socket: Any, view: dict[str, Any], rng: random.Random) -> None:
    action = dict(rng.choice(view["game"]["legal_actions"]))
    action.pop("seat")
    message = {"type": "act", "version": view["game"]["version"], "action": action}
    await socket.send(json.dumps(message))


async def heard(sockets: list[Any], seq: int) -> list[dict[str, Any]]:
    """Every socket's next picture at `seq` or later: an update, or a resume the server sent
    unasked after Redis came back."""
    return list(
        await asyncio.gather(
            *(asyncio.wait_for(next_picture(s, seq), ARRIVES_WITHIN) for s in sockets)
        )
    )


async def one_move(
    sockets: list[Any], views: list[dict[str, Any]], rng: random.Random
) -> list[dict[str, Any]]:
    """The player to act moves on their own socket; both sockets must hear it."""
    actor = views[0]["game"]["to_act"]
    await act(sockets[actor], views[actor], rng)
    return await heard(sockets, max(v["seq"] for v in views) + 1)


def worker_move(
    table_id: int, views: list[dict[str, Any]], users: list[Any], rng: random.Random
) -> None:
    """A move committed in this process, outside any daphne (as the worker plays the house's):
    its update reaches the sockets only through Redis."""
    actor = views[0]["game"]["to_act"]
    view = views[actor]  # only the actor's own view lists its legal actions
    action = dict(rng.choice(view["game"]["legal_actions"]))
    action.pop("seat")
    services.game_act(
        table_id=table_id, user=users[actor], version=view["game"]["version"], action=action
    )


@pytest.mark.django_db(transaction=True)
def test_a_redis_restart_leaves_no_socket_deaf(
    alice: Any, bob: Any, private_redis: PrivateRedis
) -> None:
    from channels.layers import get_channel_layer

    assert get_channel_layer().hosts[0]["address"] == private_redis.url
    table = services.table_create(host=alice, mode="citizen", players=2, target=250)
    services.seat_take(table_id=table.pk, user=bob, number=1)
    for user in (alice, bob):
        services.seat_ready(table_id=table.pk, user=user, ready=True)
    users = [alice, bob]
    cookies = [cookie_for(u) for u in users]
    # Alice's socket on one daphne, Bob's on another: every update one of them causes reaches
    # the other only through Redis.
    servers = [start_server(), start_server()]
    try:
        asyncio.run(play_through_restarts(table.pk, users, cookies, servers, private_redis))
    finally:
        for server in servers:
            stop_server(server)
    game = Game.objects.get(table=table)
    assert game.version > 0


async def play_through_restarts(
    table_id: int, users: list[Any], cookies: list[str], servers: list[Any], redis: PrivateRedis
) -> None:
    rng = random.Random(11)
    sockets = [
        await open_socket(server.port.value, table_id, cookie)
        for server, cookie in zip(servers, cookies, strict=True)
    ]
    for s in sockets:
        await s.send(json.dumps({"type": "hello", "last_seq": None}))
    views = await heard(sockets, 0)
    views = await one_move(sockets, views, rng)  # across Redis before any restart

    # 1. Restarted empty between two moves: the next move on either daphne is heard on the
    # other (the memberships are written again), and so is one made outside the daphnes.
    first_run = redis.run_id()
    redis.kill()
    redis.start()
    assert redis.run_id() != first_run
    for _ in range(2):
        views = await one_move(sockets, views, rng)
    await asyncio.to_thread(worker_move, table_id, views, users, rng)
    views = await heard(sockets, max(v["seq"] for v in views) + 1)

    # 2. Down while a move is made: the mover's own page has it at once; the other player's
    # page gets it once Redis is back (the send is tried again, or the socket brought up to
    # date), with nothing closed on either side.
    redis.kill()
    actor = views[0]["game"]["to_act"]
    await act(sockets[actor], views[actor], rng)
    seq = max(v["seq"] for v in views) + 1
    views[actor] = (await heard([sockets[actor]], seq))[0]
    redis.start()
    other = 1 - actor
    views[other] = (await heard([sockets[other]], seq))[0]
    assert views[other]["game"]["version"] == views[actor]["game"]["version"]
    for _ in range(2):
        views = await one_move(sockets, views, rng)

    for s in sockets:
        assert s.close_code is None, f"a socket closed: {s.close_code}"
        await s.close()
