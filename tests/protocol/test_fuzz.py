"""Random messages of every shape at the table socket: never a crash, never a change but a move.

Hypothesis writes the messages (every type, known and not; fields missing, of the wrong type,
huge or negative numbers, numbers as text, nested values, deep nesting, bad JSON, binary
frames) and sends each on one of three sockets of a game in progress (its two players and a
spectator). After each: the socket still answers a ping (no traceback, no close), and the game's
version and state in the database are as before, unless the socket's `ack` says the message was
a legal move.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connections
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine import GameState
from tables import services
from tables.models import Game, Table
from tests.tables.helpers import connect

TYPES = [
    "hello",
    "ping",
    "sit",
    "stand",
    "ready",
    "remove",
    "house_sit",
    "house_remove",
    "wash",
    "act",
    "abort",
    "claim",
    "rematch",
    "chat",
    "report",
    "halve_clock",
]
FIELDS = [
    "last_seq",
    "seat",
    "ready",
    "level",
    "hand",
    "entropy",
    "version",
    "action",
    "want",
    "text",
    "quick",
    "emote",
    "user",
    "reason",
    "request_id",
    "type",
]
EDGES = [0, 1, 2, 3, -1, 2**31, 2**53 - 1, 2**53, 2**63, -(2**63), 10**30]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from(EDGES),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.sampled_from(EDGES).map(str),
    st.sampled_from(["6-4", "0-0", "9-9", "7-7", "left", "up", "gg", "👍", "rookie", "ab" * 32]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
actions = st.fixed_dictionaries(
    {"type": st.sampled_from(["play", "draw", "pass", "doubles", "timeout", "fly", 3])},
    optional={
        "bone": values,
        "end": st.sampled_from(["left", "right", "up", "down", None, 1]),
        "position": st.one_of(st.sampled_from(EDGES), values),
        "choice": st.sampled_from(["play", "reshuffle", "no", 0]),
        "seat": st.one_of(st.sampled_from(EDGES), values),
    },
)
messages = st.builds(
    lambda kind, fields: {**fields, "type": kind} if kind is not None else fields,
    st.one_of(st.sampled_from(TYPES), st.text(max_size=12), st.sampled_from([None, 5])),
    st.dictionaries(st.sampled_from(FIELDS), st.one_of(values, actions), max_size=5),
)
deep = st.integers(min_value=30, max_value=3000).map(
    lambda n: '{"type": "act", "version": 1, "action": ' + "[" * n + "]" * n + "}"
)
frames = st.one_of(
    messages.map(lambda m: ("text", json.dumps(m))),
    messages.map(lambda m: ("text", json.dumps(m, ensure_ascii=False))),
    st.text(min_size=1, max_size=60).map(
        lambda t: ("text", t)
    ),  # (the test client sends no empty frame)
    deep.map(lambda t: ("text", t)),
    st.integers(min_value=1, max_value=3000).map(lambda n: ("text", "[" * n)),
    st.sampled_from(['{"type": "ping", "x": NaN}', '{"type": "act", "x": "\\udc00"}']).map(
        lambda t: ("text", t)
    ),
    st.binary(min_size=1, max_size=20).map(lambda b: ("bytes", b)),
    st.just(("legal", "")),  # the player to act makes a legal move: the game goes on
)


def every_type(test: Any) -> Any:
    """Each message type at least once: bare, and with every field as text."""
    for kind in TYPES:
        for message in ({"type": kind}, {"type": kind, **dict.fromkeys(FIELDS[:-1], "1")}):
            test = example(frame=("text", json.dumps(message)), target=0)(test)
    return test


def started(alice: Any, bob: Any) -> Table:
    """A game in progress whose first bone is down (so `abort` is refused)."""
    table = services.table_create(host=alice, mode="citizen", players=2)
    services.seat_take(table_id=table.pk, user=bob, number=1)
    services.seat_ready(table_id=table.pk, user=alice, ready=True)
    services.seat_ready(table_id=table.pk, user=bob, ready=True)
    make_legal_move(table, [alice, bob], plays_only=True)
    return table


def make_legal_move(table: Table, players: list[Any], plays_only: bool = False) -> None:
    """One legal move; `plays_only`: moves until a bone has been played (a deal can leave the
    first player to act without a play: a draw, a pass or a doubles choice comes first)."""
    while True:
        game = Game.objects.get(table=table)
        state = GameState.from_json(game.state)
        legal = state.legal_actions()
        plays = [a for a in legal if a.to_dict()["type"] == "play"]
        action = (plays or legal)[0].to_dict()
        action.pop("seat")
        assert state.to_act is not None
        user = players[state.to_act]
        services.game_act(table_id=table.pk, user=user, version=game.version, action=action)
        if not plays_only or plays:
            return


def the_game(table: Table) -> tuple[int, int, dict[str, Any], str]:
    game = Game.objects.filter(table=table).order_by("number").first()
    assert game is not None
    return game.pk, game.version, game.state, game.status


def legal_message(table: Table) -> tuple[int, dict[str, Any]] | None:
    """The seat to act and a legal `act` for it, or None when the game is over."""
    game = Game.objects.filter(table=table).order_by("number").first()
    assert game is not None
    state = GameState.from_json(game.state)
    if game.status != Game.Status.PLAYING or state.to_act is None:
        return None
    action = state.legal_actions()[0].to_dict()
    return state.to_act, {"type": "act", "version": game.version, "action": action}


MARKS = iter(range(10**9))


async def exchange(socket: WebsocketCommunicator, kind: str, frame: Any) -> list[dict[str, Any]]:
    """Send one frame, then a marker (a move naming no version, with a request_id of its own)
    and a ping: what comes before the marker's error answers the frame (the frame may be a ping
    itself); the pong after it shows the socket still open. A close or a crash of the consumer
    fails here (the communicator raises what the consumer raised)."""
    mark = f"mark-{next(MARKS)}"
    if kind == "bytes":
        await socket.send_to(bytes_data=frame)
    else:
        await socket.send_to(text_data=frame)
    await socket.send_json_to({"type": "act", "request_id": mark})
    await socket.send_json_to({"type": "ping"})
    said: list[dict[str, Any]] = []
    marked = False
    while True:
        output = await socket.receive_output(timeout=10)
        assert output["type"] == "websocket.send", f"the socket was closed: {output}"
        message = json.loads(output["text"])
        if message.get("request_id") == mark:
            assert (message["code"], message["field"]) == ("bad_field", "version")
            marked = True
        elif marked and message["type"] == "pong":
            return said
        elif not marked:
            said.append(message)


@pytest.mark.django_db(transaction=True)
async def test_random_messages_never_crash_and_change_nothing_but_moves(
    alice: Any, bob: Any, make_user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Hypothesis sends far faster than a page may (10 a second): the limit is not under test.
    monkeypatch.setattr("dominoes_site.consumers.BURST", 1_000_000.0)
    table = await sync_to_async(started)(alice, bob)
    carol = await sync_to_async(make_user)("Carol")
    sockets = [await connect(user, table.pk) for user in (alice, bob, carol)]
    for socket in sockets:
        await exchange(socket, "text", json.dumps({"type": "hello", "last_seq": None}))
    loop = asyncio.get_running_loop()
    seen: dict[str, int] = {}

    def run(coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, loop).result(timeout=60)

    @settings(
        max_examples=200,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @every_type
    @given(frame=frames, target=st.integers(min_value=0, max_value=2))
    def one(frame: tuple[str, Any], target: int) -> None:
        kind, payload = frame
        before = the_game(table)
        if kind == "legal":
            legal = legal_message(table)
            if legal is None:
                return
            target, message = legal
            kind, payload = "text", json.dumps(message)
        with contextlib.suppress(ValueError, AttributeError, TypeError, RecursionError):
            seen[json.loads(payload).get("type")] = 1
        said = run(exchange(sockets[target], kind, payload))
        for message in said:
            if message["type"] == "error":
                assert isinstance(message["code"], str) and isinstance(message["message"], str)
        after = the_game(table)
        if any(m["type"] == "ack" for m in said):
            assert after[0] == before[0] and after[1] > before[1]  # a legal move, applied
        else:
            assert after == before, (frame, said)

    def fuzz() -> None:
        try:
            one()
        finally:
            connections.close_all()  # this thread's database connection

    await asyncio.to_thread(fuzz)
    assert set(TYPES) <= set(seen), sorted(set(TYPES) - set(seen))  # every type was tried
    for socket in sockets:  # all still open, all still answering, none crashed
        said = await exchange(socket, "text", '{"type": "ping"}')
        assert [m["type"] for m in said if m["type"] not in ("update", "chat")] == ["pong"]
        await socket.disconnect()
