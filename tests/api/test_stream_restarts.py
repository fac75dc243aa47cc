"""The API's streams survive what the sockets survive (production stack: PostgreSQL + Redis).

Alice's game stream is on one daphne and Bob's on another, and each moves through the other
daphne, so every update reaches the stream that must hear it only through Redis. The channel
layer's Redis is killed and started again empty (every membership and queued message gone),
between moves and while a move is made: no stream ends, none goes deaf, none misses or repeats
a change (each seq once, in order). A daphne that is stopped ends its streams with `reconnect`,
and a stream opened again with `since` on the other daphne resumes with nothing missed. Every
connection to PostgreSQL is ended under open streams, as a restart ends them: the streams stay
open and every move goes through.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import signal
from typing import Any

import httpx
import pytest
from django.conf import settings

from tables import services
from tables.models import Game
from tests.api.helpers import token_for
from tests.live import start_server, stop_server
from tests.tables.test_database_restart import kept_connections  # noqa: F401
from tests.tables.test_redis_restart import PrivateRedis, private_redis  # noqa: F401

REDIS_ONLY = [
    pytest.mark.skipif(not settings.REDIS_URL, reason="the production stack's channel layer"),
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
]
ARRIVES_WITHIN = 30.0


class Seat:
    """One seat's stream (on one daphne) and its moves (sent through another)."""

    def __init__(self, stream_url: str, move_url: str, token: str, table_id: int) -> None:
        self.headers = {"Authorization": f"Bearer {token}"}
        self.stream_url, self.move_url, self.table_id = stream_url, move_url, table_id
        self.client = httpx.AsyncClient(timeout=httpx.Timeout(60.0), headers=self.headers)
        self.lines: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.seqs: list[int] = []
        self.view: dict[str, Any] = {}
        self.reader: asyncio.Task[None] | None = None

    def open(self, since: int | None = None) -> None:
        self.reader = asyncio.create_task(self._read(since))

    async def _read(self, since: int | None) -> None:
        params = {"since": since} if since is not None else {}
        url = f"{self.stream_url}/api/tables/{self.table_id}/stream"
        async with self.client.stream("GET", url, params=params) as response:
            assert response.status_code == 200
            async for raw in response.aiter_lines():
                if raw.strip():
                    await self.lines.put(json.loads(raw))

    async def until(self, version: int) -> dict[str, Any]:
        """Lines until one shows the game at `version` or later; every seq seen once, in
        order."""
        while True:
            message = await asyncio.wait_for(self.lines.get(), ARRIVES_WITHIN)
            assert message["type"] in ("snapshot", "resume", "update"), message
            if message["type"] == "update":
                assert not self.seqs or message["seq"] == self.seqs[-1] + 1, (self.seqs, message)
            self.seqs.append(message["seq"])
            if message.get("game"):
                self.view = message["game"]
                if message["game"]["version"] >= version:
                    return message

    async def move(self, rng: random.Random) -> int:
        action = dict(rng.choice(self.view["legal_actions"]))
        action.pop("seat")
        answer = await self.client.post(
            f"{self.move_url}/api/tables/{self.table_id}/move",
            json={"version": self.view["version"], "action": action},
        )
        assert answer.status_code == 200, answer.text
        return int(answer.json()["version"])

    async def close(self) -> None:
        if self.reader is not None:
            self.reader.cancel()
            with __import__("contextlib").suppress(BaseException):
                await self.reader
        await self.client.aclose()


def dealt_table(alice: Any, bob: Any) -> Any:
    """A one-on-one Citizen table to 250, both seated and ready: its first hand dealt."""
    table = services.table_create(host=alice, mode="citizen", players=2, target=250)
    services.seat_take(table_id=table.pk, user=bob, number=1)
    for user in (alice, bob):
        services.seat_ready(table_id=table.pk, user=user, ready=True)
    return table


def still_open(seats: list[Seat]) -> None:
    for seat in seats:
        assert seat.reader is not None and not seat.reader.done(), "a stream ended"


def crossed_seats(urls: list[str], tokens: list[str], table_id: int) -> list[Seat]:
    """Seat 0 streams from the first daphne and moves through the second; seat 1 the other
    way: every update reaches the stream that must hear it through the channel layer."""
    return [
        Seat(urls[0], urls[1], tokens[0], table_id),
        Seat(urls[1], urls[0], tokens[1], table_id),
    ]


async def one_move(seats: list[Seat], rng: random.Random) -> int:
    actor = next(s for s in seats if s.view.get("legal_actions"))
    version = await actor.move(rng)
    for seat in seats:
        await seat.until(version)
    return version


@REDIS_ONLY[0]
@REDIS_ONLY[1]
@pytest.mark.django_db(transaction=True)
def test_streams_hear_every_move_through_redis_restarts(
    alice: Any,
    bob: Any,
    private_redis: PrivateRedis,  # noqa: F811
) -> None:
    table = dealt_table(alice, bob)
    tokens = [token_for(u, "play") for u in (alice, bob)]
    servers = [start_server(), start_server()]
    urls = [f"http://127.0.0.1:{s.port.value}" for s in servers]
    try:
        asyncio.run(play(table.pk, tokens, urls, private_redis))
    finally:
        for server in servers:
            stop_server(server)
    assert Game.objects.get(table=table).version > 0


async def play(table_id: int, tokens: list[str], urls: list[str], redis: PrivateRedis) -> None:
    rng = random.Random(5)
    seats = crossed_seats(urls, tokens, table_id)
    try:
        for seat in seats:
            seat.open()
            await seat.until(0)
        await one_move(seats, rng)

        # 1. Restarted empty between two moves.
        redis.kill()
        redis.start()
        for _ in range(3):
            await one_move(seats, rng)

        # 2. Down while a move is made: the other stream has it once Redis is back.
        redis.kill()
        actor = next(s for s in seats if s.view.get("legal_actions"))
        version = await actor.move(rng)
        redis.start()
        for seat in seats:
            await seat.until(version)
        for _ in range(2):
            await one_move(seats, rng)
        still_open(seats)
    finally:
        for seat in seats:
            await seat.close()


@pytest.mark.django_db(transaction=True)
def test_a_stopped_daphne_ends_its_streams_with_reconnect_and_since_resumes(
    alice: Any, bob: Any
) -> None:
    from tests.live import free_port, serve_process

    table = dealt_table(alice, bob)
    token = token_for(alice, "play")
    other = token_for(bob, "play")
    port = free_port()
    log = settings.VAR_DIR / f"stream-drain-{os.getpid()}.log"
    process = serve_process(port, log)
    spare = start_server()
    try:
        asyncio.run(drained(table.pk, token, other, port, process, spare.port.value))
    finally:
        if process.poll() is None:
            process.kill()
        stop_server(spare)


async def drained(
    table_id: int, token: str, other: str, port: int, process: Any, spare: int
) -> None:
    rng = random.Random(9)
    first = Seat(f"http://127.0.0.1:{port}", f"http://127.0.0.1:{spare}", token, table_id)
    bob = Seat(f"http://127.0.0.1:{spare}", f"http://127.0.0.1:{spare}", other, table_id)
    try:
        for seat in (first, bob):
            seat.open()
            await seat.until(0)
        await one_move([first, bob], rng)
        process.send_signal(signal.SIGTERM)  # a rolling deploy stops this daphne
        message = await asyncio.wait_for(first.lines.get(), ARRIVES_WITHIN)
        assert message == {"type": "reconnect", "since": first.seqs[-1]}
        # A move while Alice is between daphnes; she resumes on the other with since.
        actor = next(s for s in (first, bob) if s.view.get("legal_actions"))
        if actor is bob:
            version = await bob.move(rng)
        else:
            first.move_url = f"http://127.0.0.1:{spare}"
            version = await first.move(rng)
        await bob.until(version)
        first.stream_url = f"http://127.0.0.1:{spare}"
        first.open(since=first.seqs[-1])
        resumed = await first.until(version)
        assert first.seqs[-1] == bob.seqs[-1]
        assert resumed["type"] in ("resume", "update")
        assert process.wait(timeout=30) == 0  # drained, not dropped
    finally:
        await first.close()
        await bob.close()


@pytest.mark.skipif(not settings.DATABASE_URL, reason="PostgreSQL: the production stack")
@pytest.mark.django_db(transaction=True)
def test_streams_and_moves_go_on_through_database_restarts(
    alice: Any,
    bob: Any,
    kept_connections: None,  # noqa: F811
) -> None:
    """Every server process of the database ended, as a fast restart ends them, three times
    while both streams are open (each on its own daphne, each seat moving through the other):
    no stream ends, every move is answered 200 and heard once, in order, on both streams."""
    from django.db import connections

    from tests.tables.test_database_restart import sessions_now

    table = dealt_table(alice, bob)
    tokens = [token_for(u, "play") for u in (alice, bob)]
    spared = sessions_now()
    servers = [start_server(), start_server()]
    connections["default"].settings_dict["CONN_MAX_AGE"] = 0  # this process: as in every test
    urls = [f"http://127.0.0.1:{s.port.value}" for s in servers]
    try:
        asyncio.run(play_across_database_restarts(table.pk, tokens, urls, spared))
    finally:
        for server in servers:
            stop_server(server)


async def play_across_database_restarts(
    table_id: int, tokens: list[str], urls: list[str], spared: set[int]
) -> None:
    from tests.tables.test_database_restart import end_every_session

    rng = random.Random(7)
    seats = crossed_seats(urls, tokens, table_id)
    try:
        for seat in seats:
            seat.open()
            await seat.until(0)
        for restart in range(3):
            ended = await asyncio.to_thread(end_every_session, spared)
            assert ended >= 1, restart  # the daphnes' kept connections
            for _ in range(2):
                await one_move(seats, rng)
        still_open(seats)
    finally:
        for seat in seats:
            await seat.close()
