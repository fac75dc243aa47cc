"""A move answered in front of Django's handler (api/move_route.py) answers exactly as the
documented operation (api/routes/tables.py `move`) does: two tables dealt alike, a whole hand
played on each, every request of every turn (the move, and the refusals around it: stale, not
your turn, illegal, a read-only token, a bad token, no such table, in English and Spanish) sent
to one table through the lean route and to the other through the operation, and the two
answers compared: status, body and headers. What the lean route does not take as it is goes to
the operation, body and all."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import HttpCommunicator

from api import access
from api.asgi import ApiHandler
from dominoes_site import db_hop, limits
from engine import GameState
from tables import services
from tables.models import Game, Table
from tests.api.helpers import SHARED_HEADERS, token_for
from tests.history.helpers import start_table

pytestmark = pytest.mark.django_db(transaction=True)

COMPARED = (
    *SHARED_HEADERS,
    "Vary",
    "WWW-Authenticate",
    "Retry-After",
    "X-RateLimit-Remaining",
    "X-RateLimit-Reset",
)
#: The rate limiter's clock, stopped, so that both ways count in the same instant.
NOW = 1_800_000_030.0


class Answer:
    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status, self.headers, self.body = status, headers, body

    def json(self) -> Any:
        return json.loads(self.body)

    def same_as(self, other: Answer, what: str) -> None:
        assert (self.status, self.json()) == (other.status, other.json()), what
        for name in COMPARED:
            assert self.headers.get(name.lower()) == other.headers.get(name.lower()), (what, name)
        assert "set-cookie" not in self.headers


async def post(
    handler: Any, path: str, body: bytes, token: str | None = None, language: str = "en"
) -> Answer:
    headers = [(b"host", b"localhost"), (b"accept-language", language.encode())]
    if token is not None:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    answer = await HttpCommunicator(handler, "POST", path, body=body, headers=headers).get_response(
        timeout=30
    )
    found = {k.decode().lower(): v.decode() for k, v in answer["headers"]}
    return Answer(answer["status"], found, answer["body"])


@pytest.fixture
def handlers(monkeypatch: pytest.MonkeyPatch) -> tuple[ApiHandler, ApiHandler, list[str]]:
    """The lean route's handler (counting what it hands to Django's), and one without it; the
    rate limiter's clock stopped."""
    monkeypatch.setattr(limits, "time", SimpleNamespace(time=lambda: NOW))
    lean, operation = ApiHandler(), ApiHandler(lean_moves=False)
    handed: list[str] = []
    real = lean.handle

    async def handle(scope: dict[str, Any], receive: Any, send: Any) -> None:
        handed.append(scope["path"])
        await real(scope, receive, send)

    monkeypatch.setattr(lean, "handle", handle)
    return lean, operation, handed


def twin_tables(players: list[list[Any]], monkeypatch: pytest.MonkeyPatch) -> list[Table]:
    """One table for each pair of players, dealt alike (the same seeds, the same washes)."""
    monkeypatch.setattr(services, "new_seed", lambda: "5e" * 32)
    tables = []
    for pair in players:
        table = services.table_create(host=pair[0], mode="fives", players=2, limit=100)
        services.seat_take(table_id=table.pk, user=pair[1], number=1)
        for number, user in enumerate(pair):
            services.hand_wash(table_id=table.pk, user=user, hand=1, entropy=f"{number + 1:x}" * 64)
        for user in pair:
            services.seat_ready(table_id=table.pk, user=user, ready=True)
        tables.append(table)
    return tables


@pytest.fixture
def twins(
    alice: Any, bob: Any, make_user: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> tuple[list[list[Any]], list[Table]]:
    """Alice and Bob at one table, Carol and Dave at its twin, dealt alike."""
    pairs = [[alice, bob], [make_user("Carol"), make_user("Dave")]]
    return pairs, twin_tables(pairs, monkeypatch)


def body(**fields: Any) -> bytes:
    return json.dumps(fields).encode()


async def test_the_lean_route_answers_every_request_of_a_hand_as_the_operation_does(
    handlers: tuple[ApiHandler, ApiHandler, list[str]],
    twins: tuple[list[list[Any]], list[Table]],
) -> None:
    lean, operation, handed = handlers
    pairs, tables = twins
    play = [[await sync_to_async(token_for)(u, "play") for u in pair] for pair in pairs]
    read = [await sync_to_async(token_for)(pair[0], "read") for pair in pairs]
    via = [lean, operation]
    turns = 0
    while True:
        games = [await Game.objects.aget(table=t, number=1) for t in tables]
        states = [GameState.from_json(g.state) for g in games]
        assert games[0].version == games[1].version and states[0].to_json() == states[1].to_json()
        state, version = states[0], games[0].version
        if state.is_over or state.deal_number > 1 or state.to_act is None:
            break
        action = state.legal_actions()[turns % len(state.legal_actions())].to_dict()
        action.pop("seat")
        mover, waiting = state.to_act, 1 - state.to_act
        stale, fly = {"version": version - 1, "action": action}, {"type": "fly"}
        now = {"version": version, "action": action}
        requests = [  # what, the table, the body, whose token, the language
            ("stale", "this", stale, "mover", "en"),
            ("stale, in Spanish", "this", stale, "mover", "es"),
            ("not your turn", "this", now, "waiting", "en"),
            ("illegal", "this", {"version": version, "action": fly}, "mover", "es"),
            ("a read-only token", "this", now, "read", "en"),
            ("a bad token", "this", now, "bad", "es"),
            ("no such table", "none", now, "mover", "en"),
            ("the move", "this", {**now, "request_id": f"m{turns}"}, "mover", "en"),
        ]
        for what, where, fields, whose, language in requests:
            answers = []
            for i in (0, 1):
                token = {
                    "mover": play[i][mover],
                    "waiting": play[i][waiting],
                    "read": read[i],
                    "bad": "dom_nope",
                }[whose]
                table_id = tables[i].pk if where == "this" else 2_000_000_000 + i
                path = f"/api/tables/{table_id}/move"
                answers.append(await post(via[i], path, body(**fields), token, language))
            answers[0].same_as(answers[1], f"turn {turns}: {what}")
            if what == "the move":
                assert answers[0].status == 200, answers[0].body
                ack = answers[0].json()
                assert ack["type"] == "ack" and ack["request_id"] == f"m{turns}"
                assert ack["version"] > version  # the move, and any step it brought on
            else:
                assert answers[0].status in (401, 403, 404, 409), (what, answers[0].body)
        turns += 1
    assert turns > 5
    assert handed == []  # every one of them answered in front of Django's handler
    games = [await Game.objects.aget(table=t, number=1) for t in tables]
    assert games[0].version == games[1].version == version
    assert games[0].state == games[1].state


async def test_what_the_lean_route_does_not_take_as_it_is_goes_to_the_operation(
    handlers: tuple[ApiHandler, ApiHandler, list[str]],
    twins: tuple[list[list[Any]], list[Table]],
) -> None:
    lean, operation, handed = handlers
    pairs, tables = twins
    play = [[await sync_to_async(token_for)(u, "play") for u in pair] for pair in pairs]
    game = await Game.objects.aget(table=tables[0], number=1)
    state = GameState.from_json(game.state)
    action = state.legal_actions()[0].to_dict()
    action.pop("seat")
    mover = state.to_act
    assert mover is not None
    v = game.version
    cases = [
        ("no body", b"", True, 400),
        ("not JSON", b"{version", True, 400),
        ("a list", b"[]", True, 400),
        ("no version", body(action=action), True, 400),
        ("a version in words", body(version="x", action=action), True, 400),
        ("a negative version", body(version=-1, action=action), True, 400),
        ("an action that is no object", body(version=v, action="play"), True, 400),
        ("a request id too long", body(version=v, action=action, request_id="r" * 65), True, 400),
        # Past what the lean route reads; the operation takes it (and finds it stale).
        ("a body too large", body(version=v + 7, action=action, pad="x" * 20_000), True, 409),
        ("no token", body(version=v, action=action), False, 401),
        # pydantic takes a version written as a string: the operation plays it.
        ("a version as a string", body(version=str(v), action=action), True, 200),
    ]  # fmt: skip
    for what, sent, with_token, status in cases:
        answers = [
            await post(
                handler,
                f"/api/tables/{tables[i].pk}/move",
                sent,
                play[i][mover] if with_token else None,
            )
            for i, handler in enumerate((lean, operation))
        ]
        answers[0].same_as(answers[1], what)
        assert answers[0].status == status, (what, answers[0].body)
    assert len(handed) == len(cases)
    games = [await Game.objects.aget(table=t, number=1) for t in tables]
    assert games[0].version == games[1].version == game.version + 1


async def test_over_the_limit_and_while_the_database_restarts_the_answers_are_the_same(
    handlers: tuple[ApiHandler, ApiHandler, list[str]],
    twins: tuple[list[list[Any]], list[Table]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lean, operation, handed = handlers
    pairs, tables = twins
    play = [await sync_to_async(token_for)(pair[1], "play") for pair in pairs]
    game = await Game.objects.aget(table=tables[0], number=1)
    sent = body(version=game.version, action={"type": "pass"})
    monkeypatch.setitem(access.LIMITS, "play", 2)
    for n in range(3):
        answers = [
            await post(handler, f"/api/tables/{tables[i].pk}/move", sent, play[i], "es")
            for i, handler in enumerate((lean, operation))
        ]
        answers[0].same_as(answers[1], f"request {n + 1}")
    assert answers[0].status == 429 and answers[0].json()["code"] == "rate_limited"
    assert int(answers[0].headers["retry-after"]) > 0

    monkeypatch.setitem(access.LIMITS, "play", 1200)
    real = db_hop.run

    async def restarting(fn: Any, *args: Any, **kwargs: Any) -> Any:
        raise db_hop.DatabaseUnavailable("the database is restarting")

    monkeypatch.setattr(db_hop, "run", restarting)
    answers = [
        await post(handler, f"/api/tables/{tables[i].pk}/move", sent, play[i], "es")
        for i, handler in enumerate((lean, operation))
    ]
    monkeypatch.setattr(db_hop, "run", real)
    answers[0].same_as(answers[1], "the database restarting")
    assert answers[0].status == 503 and answers[0].json()["code"] == "unavailable"
    assert handed == []


async def test_a_body_in_parts_is_read_whole_and_a_long_one_reaches_the_operation_whole(
    alice: Any,
    bob: Any,
    handlers: tuple[ApiHandler, ApiHandler, list[str]],
) -> None:
    """A client may send a body in several parts: a short move in three is taken here; a long
    body (past MOST_BODY, in parts) goes to the operation with every byte."""
    lean, _operation, handed = handlers
    table = await sync_to_async(start_table)([alice, bob], "fives", limit=100)
    game = await Game.objects.aget(table=table, number=1)
    state = GameState.from_json(game.state)
    action = state.legal_actions()[0].to_dict()
    action.pop("seat")
    mover = [alice, bob][state.to_act]
    token = await sync_to_async(token_for)(mover, "play")

    async def send_in_parts(sent: bytes, parts: int) -> tuple[int, Any]:
        size = -(-len(sent) // parts)
        chunks = [sent[i : i + size] for i in range(0, len(sent), size)]
        messages = [
            {"type": "http.request", "body": c, "more_body": n < len(chunks) - 1}
            for n, c in enumerate(chunks)
        ]
        out: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            if messages:
                return messages.pop(0)
            await asyncio.Event().wait()  # the client stays connected
            raise AssertionError

        async def send(message: dict[str, Any]) -> None:
            out.append(message)

        scope = {
            "type": "http",
            "http_version": "1.1",
            "method": "POST",
            "path": f"/api/tables/{table.pk}/move",
            "raw_path": f"/api/tables/{table.pk}/move".encode(),
            "query_string": b"",
            "root_path": "",
            "scheme": "http",
            "server": ("localhost", 80),
            "client": ("127.0.0.1", 5000),
            "headers": [(b"host", b"localhost"), (b"authorization", f"Bearer {token}".encode())],
        }
        await asyncio.wait_for(lean(scope, receive, send), 30)
        status = out[0]["status"]
        return status, json.loads(b"".join(m.get("body", b"") for m in out[1:]))

    stale = body(version=game.version + 3, action=action, pad="x" * 40_000)
    status, problem = await send_in_parts(stale, 4)
    assert (status, problem["code"]) == (409, "stale") and handed  # the operation read it all
    status, ack = await send_in_parts(body(version=game.version, action=action), 3)
    assert status == 200 and ack["version"] > game.version
    assert len(handed) == 1
