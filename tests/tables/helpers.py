"""Socket clients for table tests: real consumers, the real channel layer, the test database."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from dominoes_site.asgi import application

BONE = re.compile(r"^\d-\d$")
REVEALING = {"hand_over", "game_over"}


async def socket_at(user: Any, path: str) -> WebsocketCommunicator:
    """A socket of `user`'s (logged in, from the site's own origin) at `path`, open."""
    client = Client()
    await client.aforce_login(user)
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    socket = WebsocketCommunicator(
        application, path, headers=[(b"cookie", cookie.encode()), (b"origin", b"http://localhost")]
    )
    connected, code = await socket.connect()
    assert connected, f"{path}: socket refused with {code}"
    return socket


async def connect(user: Any, table_id: int, query: str = "") -> WebsocketCommunicator:
    socket = await socket_at(user, f"/ws/tables/{table_id}/{query}")
    # The socket joins the table's presence just after it opens, before it reads any frame: a
    # pong says that is done (so the next socket's snapshot counts this one as there).
    await socket.send_json_to({"type": "ping"})
    answer = await socket.receive_json_from(timeout=30)
    assert answer["type"] == "pong", answer
    return socket


async def connect_lobby(user: Any) -> WebsocketCommunicator:
    """`user`'s lobby socket (`/ws/lobby/`), open."""
    return await socket_at(user, "/ws/lobby/")


def bones_in(value: Any) -> set[str]:
    """Every bone written anywhere in a JSON value."""
    found: set[str] = set()
    if isinstance(value, str):
        if BONE.match(value):
            found.add(value)
    elif isinstance(value, dict):
        for item in value.values():
            found |= bones_in(item)
    elif isinstance(value, list):
        for item in value:
            found |= bones_in(item)
    return found


def board_bones(view: dict[str, Any] | None) -> set[str]:
    return bones_in(view["board"]) if view else set()


def assert_sees_only_its_own(message: dict[str, Any], seat: int | None) -> None:
    """No bone a connection may not see: others' hands and the yard stay hidden.

    Allowed: its own hand (seated), bones on the board (and on the board of the hand that just
    ended), bones just played, its own draws, and
    the hands shown once a hand is over (hand_over and game_over events).
    """
    game = message.get("game")
    allowed = board_bones(game)
    if game is not None:
        assert isinstance(game.get("yard"), int), "the yard is only ever a count"
        if seat is None:
            assert "hand" not in game and not game.get("legal_actions"), "a spectator has no hand"
        else:
            assert game["seat"] == seat
            allowed |= set(game["hand"])
    batches = message.get("events") or []
    if batches and isinstance(batches[0], dict) and "events" in batches[0]:
        batches = [e for batch in batches for e in batch["events"]]  # a resume's batches
    for event in batches:
        if event.get("type") in REVEALING:
            continue
        if event.get("type") == "bone_played":
            allowed.add(event["bone"])
        if event.get("type") == "hand_board":  # the finished hand's board: bones played
            allowed |= bones_in(event["board"])
        if event.get("type") == "drew" and event.get("seat") == seat:
            allowed |= bones_in(event)
    outside = {k: v for k, v in message.items() if k not in ("events",)}
    seen = bones_in(outside) | bones_in([e for e in batches if e.get("type") not in REVEALING])
    leaked = seen - allowed
    assert not leaked, f"seat {seat} was sent bones it may not see: {sorted(leaked)}"


async def receive_until(
    socket: WebsocketCommunicator, seq: int, seat: int | None, timeout: float = 30
) -> dict[str, Any]:
    """Read messages until one brings the client to `seq`, checking each for leaks.

    Like the real page, a client that sees a gap in the event numbers asks to resume from the
    last number it saw.
    """
    last_seen: int | None = None
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        left = deadline - asyncio.get_running_loop().time()
        if left <= 0:
            raise AssertionError(f"seat {seat} never got seq {seq}")
        try:
            message = await socket.receive_json_from(timeout=left)
        except TimeoutError as exc:  # (the communicator stops the consumer on a timeout)
            raise AssertionError(f"seat {seat} never got seq {seq}") from exc
        assert message["type"] != "error", message
        assert_sees_only_its_own(message, seat)
        number = message.get("seq")
        if message["type"] == "update" and last_seen is not None and number > last_seen + 1:
            await socket.send_json_to({"type": "hello", "last_seq": last_seen})
            continue
        if message["type"] in ("update", "snapshot", "resume"):
            last_seen = max(last_seen or 0, number)
            if number >= seq:
                return message


async def next_reply(socket: WebsocketCommunicator, timeout: float = 30) -> dict[str, Any]:
    """The next message other than a watcher count (those come whenever someone arrives).
    The wait is only a limit for a message that never comes: 30 s, which a machine running both
    stacks' suites side by side meets (10 s once did not, for a game start with a house move)."""
    while True:
        message = await socket.receive_json_from(timeout=timeout)
        if message["type"] != "watchers":
            return message
