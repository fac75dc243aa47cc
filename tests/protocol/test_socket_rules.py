"""The table socket keeps the rules docs/protocol.md states, one rule (and one past bug) a test.

Each test here failed before the fix it names: a crash (a traceback, close 1011) where the
document promises an `error` and an open socket, or a behaviour the document did not match.
"""

from __future__ import annotations

import asyncio
import json
import time
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from autobahn.exception import Disconnected
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client
from django.utils import timezone

from dominoes_site.asgi import application
from engine import GameState
from tables import presence, services
from tables.models import Game, Presence, Seat, Table
from tests.tables.helpers import connect

ORIGIN = (b"origin", b"http://localhost")


@pytest.fixture
def unlimited(monkeypatch: pytest.MonkeyPatch) -> None:
    """No rate limit: for tests that send more than a page would, about something else."""
    monkeypatch.setattr("dominoes_site.consumers.BURST", 100_000.0)


def started(alice: Any, bob: Any, **options: Any) -> Table:
    table = services.table_create(host=alice, mode="citizen", players=2, **options)
    services.seat_take(table_id=table.pk, user=bob, number=1)
    services.seat_ready(table_id=table.pk, user=alice, ready=True)
    services.seat_ready(table_id=table.pk, user=bob, ready=True)
    return table


def game_row(table: Table) -> tuple[int, dict[str, Any], str]:
    game = Game.objects.get(table=table)
    return game.version, game.state, game.status


def next_move(table: Table) -> tuple[int, int, dict[str, Any]]:
    """(the seat to act, the game version, a legal action without its seat)."""
    game = Game.objects.get(table=table)
    state = GameState.from_json(game.state)
    action = state.legal_actions()[0].to_dict()
    action.pop("seat")
    assert state.to_act is not None
    return state.to_act, game.version, action


def play_one(table: Table, players: list[Any]) -> None:
    seat, version, action = next_move(table)
    services.game_act(table_id=table.pk, user=players[seat], version=version, action=action)


async def cookie_of(user: Any) -> bytes:
    client = Client()
    await client.aforce_login(user)
    name = settings.SESSION_COOKIE_NAME
    return f"{name}={client.cookies[name].value}".encode()


async def hello(socket: WebsocketCommunicator, last: int | None = None) -> dict[str, Any]:
    await socket.send_json_to({"type": "hello", "last_seq": last})
    while True:
        message = await socket.receive_json_from(timeout=10)
        if message["type"] in ("snapshot", "resume"):
            return message


async def answers(
    socket: WebsocketCommunicator, message: Any = None, raw: str | None = None
) -> list[dict[str, Any]]:
    """Everything the socket says in answer to one message: it is followed by a ping, and
    messages are handled in order, so what comes before the pong answers it."""
    if raw is not None:
        await socket.send_to(text_data=raw)
    else:
        await socket.send_json_to(message)
    await socket.send_json_to({"type": "ping"})
    said = []
    while True:
        reply = await socket.receive_json_from(timeout=10)
        if reply["type"] == "pong":
            return said
        if reply["type"] not in ("update", "watchers", "chat"):
            said.append(reply)


async def error_of(
    socket: WebsocketCommunicator, message: Any = None, raw: str | None = None
) -> dict[str, Any]:
    said = await answers(socket, message, raw)
    assert len(said) == 1 and said[0]["type"] == "error", said
    return said[0]


async def next_update(socket: WebsocketCommunicator) -> dict[str, Any]:
    """The next message but a watcher count or a chat message (they come whenever)."""
    while True:
        message = await socket.receive_json_from(timeout=10)
        if message["type"] not in ("watchers", "chat"):
            return message


async def reply_to(socket: WebsocketCommunicator, message: dict[str, Any]) -> dict[str, Any]:
    """The answer to one message, with no ping after it (a ping is a sign of life too)."""
    await socket.send_json_to(message)
    while True:
        reply = await socket.receive_json_from(timeout=10)
        if reply["type"] not in ("update", "watchers", "chat"):
            return reply


# --- crashes that are now errors ---------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_deeply_nested_json_is_an_error_and_changes_nothing(alice: Any, bob: Any) -> None:
    table = await sync_to_async(started)(alice, bob)
    socket = await connect(alice, table.pk)
    await hello(socket)
    before = await sync_to_async(game_row)(table)
    version = before[0]
    frames = [
        "[" * 2000,  # under the size limit; once a RecursionError in the JSON parser
        "[" * 1500 + "]" * 1500,
        f'{{"type": "act", "version": {version}, "action": {"[" * 40 + "]" * 40}}}',
        '{"type": "chat", "text": ' + '{"a":' * 40 + "1" + "}" * 40 + "}",
    ]
    for raw in frames:
        assert (await error_of(socket, raw=raw))["code"] == "bad_json", raw[:60]
    # Nested, but within the limit: the message is read (and refused for what it says).
    shallow = f'{{"type": "act", "version": {version}, "action": {"[" * 20 + "]" * 20}}}'
    assert (await error_of(socket, raw=shallow))["code"] == "bad_field"
    for raw in ('{"type": "ping", "x": NaN}', '{"type": "ping", "x": "\\ud800"}'):
        assert (await error_of(socket, raw=raw))["code"] == "bad_json"
    assert await sync_to_async(game_row)(table) == before
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("message", "field"),
    [
        ({"type": "report"}, "user"),
        ({"type": "sit"}, "seat"),
        ({"type": "remove"}, "seat"),
        ({"type": "house_sit", "level": "rookie"}, "seat"),
        ({"type": "house_remove"}, "seat"),
        ({"type": "wash", "entropy": "ab" * 32}, "hand"),
        ({"type": "act", "action": {"type": "pass"}}, "version"),
        ({"type": "hello"}, "last_seq"),
    ],
)
async def test_whole_numbers_out_of_range_are_bad_fields(
    alice: Any, bob: Any, message: dict[str, Any], field: str
) -> None:
    """`{"type": "report", "user": 2**63}` once raised SQLite's OverflowError (close 1011)."""
    table = await sync_to_async(started)(alice, bob)
    socket = await connect(alice, table.pk)
    await hello(socket)
    before = await sync_to_async(game_row)(table)
    for value in (2**63, 2**64 + 1, 2**53, -1, True, 1.0, "1"):
        error = await error_of(socket, {**message, field: value})
        assert (error["code"], error["field"]) == ("bad_field", field), (value, error)
    assert await sync_to_async(game_row)(table) == before
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_chat_and_report_fields_of_the_wrong_type_are_bad_fields(
    alice: Any, bob: Any
) -> None:
    """A `quick` that is a list once raised TypeError in the chat service (close 1011)."""
    table = await sync_to_async(started)(alice, bob)
    socket = await connect(alice, table.pk)
    await hello(socket)
    for message, field in [
        ({"type": "chat", "quick": ["gg"]}, "quick"),
        ({"type": "chat", "emote": {"a": 1}}, "emote"),
        ({"type": "chat", "text": 5}, "text"),
        ({"type": "chat"}, "text"),
        ({"type": "chat", "text": "hi", "quick": "gg"}, "text"),
        ({"type": "report", "user": bob.pk, "reason": 7}, "reason"),
        ({"type": "report", "user": bob.pk, "reason": ["x"]}, "reason"),
    ]:
        error = await error_of(socket, message)
        assert (error["code"], error.get("field")) == ("bad_field", field), (message, error)
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_socket_closed_4004_reads_nothing_more(alice: Any) -> None:
    """A hello after the 4004 close once raised Table.DoesNotExist in the consumer."""
    socket = WebsocketCommunicator(
        application,
        "/ws/tables/987654321/",
        headers=[(b"cookie", await cookie_of(alice)), ORIGIN],
    )
    connected, _ = await socket.connect()
    assert connected
    assert await socket.receive_output(timeout=5) == {"type": "websocket.close", "code": 4004}
    await socket.send_json_to({"type": "hello", "last_seq": None})
    await socket.send_json_to({"type": "ping"})
    await socket.disconnect()  # raises what the consumer raised, if anything
    assert await socket.receive_nothing()


class LikeDaphne:
    """The ASGI app as daphne runs it: once the client's close frame has arrived (`gone`), a
    send raises autobahn's Disconnected until the disconnect itself is delivered."""

    def __init__(self) -> None:
        self.gone = False
        self.refused: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def guarded(message: dict[str, Any]) -> None:
            if message["type"] == "websocket.send" and self.gone:
                self.refused.put_nowait(message)
                raise Disconnected("Attempt to send on a closed protocol")
            await send(message)

        await application(scope, receive, guarded)


@pytest.mark.django_db(transaction=True)
async def test_a_watcher_count_for_a_socket_that_just_closed_is_dropped(
    alice: Any, bob: Any, make_user: Any
) -> None:
    table = await sync_to_async(started)(alice, bob)
    app = LikeDaphne()
    socket = WebsocketCommunicator(
        app, f"/ws/tables/{table.pk}/", headers=[(b"cookie", await cookie_of(alice)), ORIGIN]
    )
    assert (await socket.connect())[0]
    await hello(socket)
    app.gone = True  # Alice's page closed; the disconnect has not reached the consumer yet
    carol = await sync_to_async(make_user)("Carol")
    watcher = await connect(carol, table.pk)  # a watcher arrives: everyone is told the count
    refused = await asyncio.wait_for(app.refused.get(), timeout=10)
    assert json.loads(refused["text"])["type"] == "watchers"
    await socket.disconnect()  # raises Disconnected if the consumer died of it
    await watcher.disconnect()


# --- ordering ----------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_nothing_with_a_seq_comes_before_the_answer_to_hello(
    alice: Any, bob: Any, make_user: Any
) -> None:
    table = await sync_to_async(started)(alice, bob)
    carol, dave = [await sync_to_async(make_user)(n) for n in ("Carol", "Dave")]
    witness = await connect(alice, table.pk)
    first = await hello(witness)
    late = await connect(carol, table.pk)  # open, but has not said hello yet
    await sync_to_async(play_one)(table, [alice, bob])
    while (await witness.receive_json_from(timeout=10)).get("seq") != first["seq"] + 1:
        pass  # the move's update has gone out to every group, Carol's included
    other = await connect(dave, table.pk)  # a watcher count goes out too
    await late.send_json_to({"type": "hello", "last_seq": None})
    await late.send_json_to({"type": "ping"})
    said = []
    while not said or said[-1]["type"] != "pong":
        said.append(await late.receive_json_from(timeout=10))
    assert said[0]["type"] == "snapshot", [m["type"] for m in said]
    assert said[0]["seq"] == first["seq"] + 1
    assert said[0]["watchers"] == 2  # Carol and Dave, counted in the answer
    assert not [m for m in said[1:] if m.get("seq") is not None and m["seq"] <= said[0]["seq"]]
    for socket in (witness, late, other):
        await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_held_updates_newer_than_the_answer_follow_it_in_order(
    alice: Any, bob: Any, make_user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An update the answer does not cover (here: an answer read just before the move) is sent
    right after it; one it covers is not sent at all."""
    from tables.consumers import TableConsumer

    read = TableConsumer._read_answer

    def one_event_older(self: Any, last: int | None) -> dict[str, Any] | None:
        answer = read(self, last)
        assert answer is not None
        answer["seq"] -= 1
        return answer

    monkeypatch.setattr(TableConsumer, "_read_answer", one_event_older)
    table = await sync_to_async(started)(alice, bob)
    carol = await sync_to_async(make_user)("Carol")
    witness = await connect(alice, table.pk)
    await witness.send_json_to({"type": "hello", "last_seq": None})
    late = await connect(carol, table.pk)
    seq = (await Table.objects.aget(pk=table.pk)).seq
    await sync_to_async(play_one)(table, [alice, bob])
    while (await witness.receive_json_from(timeout=10)).get("seq") != seq + 1:
        pass
    await late.send_json_to({"type": "hello", "last_seq": None})
    await late.send_json_to({"type": "ping"})
    said = []
    while not said or said[-1]["type"] != "pong":
        said.append(await late.receive_json_from(timeout=10))
    kinds = [(m["type"], m.get("seq")) for m in said if m["type"] != "watchers"]
    assert kinds == [("snapshot", seq), ("update", seq + 1), ("pong", None)], kinds
    for socket in (witness, late):
        await socket.disconnect()


# --- presence ----------------------------------------------------------------------------------


async def age_presence(user: Any, table: Table, seconds: int) -> None:
    await Presence.objects.filter(table=table, user=user).aupdate(
        seen_at=timezone.now() - timedelta(seconds=seconds)
    )


async def presence_age(user: Any, table: Table) -> float:
    row = await Presence.objects.aget(table=table, user=user)
    return (timezone.now() - row.seen_at).total_seconds()


@pytest.mark.django_db(transaction=True)
async def test_any_message_is_a_sign_of_life_refreshed_at_most_every_15_seconds(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await sync_to_async(started)(alice, bob)
    socket = await connect(alice, table.pk)
    await hello(socket)
    # The last refresh long ago: any message (here one the server does not even understand).
    monkeypatch.setattr("tables.consumers.PRESENCE_REFRESH_SECONDS", 0.0)
    await age_presence(alice, table, 80)
    assert (await reply_to(socket, {"type": "dance"}))["code"] == "unknown_type"
    assert await presence_age(alice, table) < 10
    # Refreshed a moment ago: the next messages, pings included, cost no write.
    monkeypatch.setattr("tables.consumers.PRESENCE_REFRESH_SECONDS", 15.0)
    await age_presence(alice, table, 80)
    for message in ({"type": "dance"}, {"type": "ping"}, {"type": "sit", "seat": 1}):
        await reply_to(socket, message)
    assert await presence_age(alice, table) > 70
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_player_who_moves_without_pinging_stays_present(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once only `ping` counted: a client that moved but never pinged was swept away after
    90 s, its seat held for a grace, and one on one the opponent's claim won."""
    table = await sync_to_async(started)(alice, bob)
    players = [alice, bob]
    seat, version, action = await sync_to_async(next_move)(table)
    sockets = [await connect(u, table.pk) for u in players]
    for socket in sockets:
        await hello(socket)
    # The mover has been silent but for moves, for longer than a socket may be.
    monkeypatch.setattr("tables.consumers.PRESENCE_REFRESH_SECONDS", 0.0)
    await age_presence(players[seat], table, presence.PRESENCE_STALE_SECONDS + 5)
    await sockets[seat].send_json_to({"type": "act", "version": version, "action": action})
    while (await sockets[seat].receive_json_from(timeout=10))["type"] != "ack":
        pass
    await sync_to_async(presence.grace_sweep)()
    assert (await Seat.objects.aget(table=table, number=seat)).away_since is None
    error = await error_of(sockets[1 - seat], {"type": "claim"})
    assert error["code"] == "not_claimable"
    for socket in sockets:
        await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_seated_players_coming_and_going_is_an_event(
    alice: Any, bob: Any, make_user: Any
) -> None:
    """Before the game a seated player's socket opening or closing changed `online` with no new
    event number: two snapshots at one number showed different tables."""
    table = await sync_to_async(services.table_create)(host=alice, mode="citizen", players=2)
    carol = await sync_to_async(make_user)("Carol")
    watcher = await connect(carol, table.pk)
    first = await hello(watcher)
    assert first["table"]["seats"][0]["online"] is False  # Alice, the host, is not here
    host = await connect(alice, table.pk)
    update = await next_update(watcher)
    assert update["type"] == "update" and update["seq"] == first["seq"] + 1
    assert update["events"] == [{"type": "online", "seat": 0, "online": True}]
    assert update["table"]["seats"][0]["online"] is True
    again = await hello(watcher)
    assert again["seq"] == update["seq"] and again["table"] == update["table"]
    await host.disconnect()
    gone = await next_update(watcher)
    assert gone["seq"] == again["seq"] + 1
    assert gone["events"] == [{"type": "online", "seat": 0, "online": False}]
    assert gone["table"]["seats"][0]["online"] is False
    assert (await hello(watcher))["table"] == gone["table"]  # one number, one picture
    await watcher.disconnect()


# --- fields and limits -------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_pong_and_every_server_time_are_epoch_milliseconds(alice: Any, bob: Any) -> None:
    table = await sync_to_async(started)(alice, bob)
    socket = await connect(alice, table.pk)
    snapshot = await hello(socket)
    pong = await reply_to(socket, {"type": "ping"})
    now = time.time() * 1000
    for message in (snapshot, pong):
        assert isinstance(message["server_time"], int)
        assert abs(message["server_time"] - now) < 60_000, message["server_time"]
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_the_picture_holds_nothing_that_changes_without_an_event(
    alice: Any, bob: Any
) -> None:
    """`game_version` went stale in the picture (updates after a move leave it out); the watcher
    count changes with no event: neither is in it. The answer to hello carries the count."""
    table = await sync_to_async(started)(alice, bob)
    socket = await connect(alice, table.pk)
    snapshot = await hello(socket)
    assert "game_version" not in snapshot["table"] and "watchers" not in snapshot["table"]
    assert snapshot["watchers"] == 0 and isinstance(snapshot["game"]["version"], int)
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_the_frame_limit_counts_bytes_of_utf8(alice: Any, bob: Any) -> None:
    table = await sync_to_async(started)(alice, bob)
    socket = await connect(alice, table.pk)
    await hello(socket)
    # 1,420 characters, 4,220 bytes: once read (and answered as a chat too long).
    raw = json.dumps({"type": "chat", "text": "€" * 1400}, ensure_ascii=False)
    assert len(raw) < 4096 < len(raw.encode())
    assert (await error_of(socket, raw=raw))["code"] == "too_large"

    def padded(size: int) -> str:
        head = '{"type": "ping", "pad": "'
        filler = "é" * ((size - len(head) - 2) // 2)
        frame = head + filler + "a" * ((size - len(head) - 2) % 2) + '"}'
        assert len(frame.encode()) == size
        return frame

    await socket.send_to(text_data=padded(4096))
    assert (await next_update(socket))["type"] == "pong"  # read: a ping, answered
    assert (await error_of(socket, raw=padded(4097)))["code"] == "too_large"
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_request_id_is_1_to_64_characters_or_nothing_is_done(alice: Any, bob: Any) -> None:
    table = await sync_to_async(started)(alice, bob)
    players = [alice, bob]
    seat, version, action = await sync_to_async(next_move)(table)
    socket = await connect(players[seat], table.pk)
    await hello(socket)
    before = await sync_to_async(game_row)(table)
    for bad in ("x" * 65, "", 42, None, ["a"]):
        message = {"type": "act", "version": version, "action": action, "request_id": bad}
        error = await error_of(socket, message)
        assert (error["code"], error["field"]) == ("bad_field", "request_id"), error
        assert "request_id" not in error
    assert await sync_to_async(game_row)(table) == before  # a legal move, not made
    longest = "é" * 64
    said = await answers(
        socket, {"type": "act", "version": version, "action": action, "request_id": longest}
    )
    assert said == [{"type": "ack", "request_id": longest, "version": said[0]["version"]}]
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_rate_limited_names_the_message_it_refused(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No refill: however slowly a loaded machine sends them, the 31st message on is refused.
    monkeypatch.setattr("dominoes_site.consumers.RATE_PER_SECOND", 0.0)
    monkeypatch.setattr("dominoes_site.consumers.BURST", 30.0)
    table = await sync_to_async(started)(alice, bob)
    socket = await connect(alice, table.pk)
    await hello(socket)
    sent = [{"type": "dance", "request_id": f"r{n}"} for n in range(40)]
    for message in sent:
        await socket.send_json_to(message)
    await socket.send_to(text_data="{nope")
    replies = [await socket.receive_json_from(timeout=10) for _ in range(41)]
    limited = [(m, r) for m, r in zip([*sent, None], replies, strict=True) if r["type"] == "error"]
    refused = [(m, r) for m, r in limited if r["code"] == "rate_limited"]
    # 40 + 1 sent after connecting took two of the burst of 30 (a ping for presence, hello).
    assert len(refused) == 41 - (30 - 2)
    for message, reply in refused:
        if message is None:  # not even JSON: nothing to name
            assert "request_id" not in reply and "request_type" not in reply
        else:
            assert reply["request_id"] == message["request_id"]
            assert reply["request_type"] == "dance"
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_ready_and_want_are_required(alice: Any, bob: Any) -> None:
    """`{"type": "ready"}` once meant ready; a true/false field is now always named."""
    table = await sync_to_async(services.table_create)(host=alice, mode="citizen", players=2)
    socket = await connect(alice, table.pk)
    await hello(socket)
    for message, field in [
        ({"type": "ready"}, "ready"),
        ({"type": "ready", "ready": 1}, "ready"),
        ({"type": "rematch"}, "want"),
        ({"type": "rematch", "want": "yes"}, "want"),
    ]:
        error = await error_of(socket, message)
        assert (error["code"], error["field"]) == ("bad_field", field)
    assert not (await Seat.objects.aget(table=table, number=0)).ready
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_someone_watching_a_game_who_presses_ready_is_not_seated(
    alice: Any, bob: Any, make_user: Any
) -> None:
    table = await sync_to_async(started)(alice, bob)
    carol = await sync_to_async(make_user)("Carol")
    socket = await connect(carol, table.pk)
    await hello(socket)
    assert (await error_of(socket, {"type": "ready", "ready": True}))["code"] == "not_seated"
    # A player of the game still hears that it has started.
    player = await connect(alice, table.pk)
    await hello(player)
    assert (await error_of(player, {"type": "ready", "ready": False}))["code"] == "game_started"
    for s in (socket, player):
        await s.disconnect()


# --- the door ----------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("host", "origin", "allowed"),
    [
        (None, b"http://localhost", True),  # test clients send no Host: allowed hosts only
        (None, b"http://evil.example", False),
        (b"localhost:8000", b"http://localhost:8000", True),
        (b"127.0.0.1:8000", b"http://localhost:8000", True),  # one machine, one port
        (b"localhost:8000", b"http://localhost:9000", False),  # another port: another site
        (b"localhost:8000", b"http://localhost", False),
        (b"localhost", b"http://localhost:8000", False),
        (b"localhost", b"http://localhost", True),
        (b"localhost", b"https://localhost", True),  # behind a proxy passing `Host $host`
        (b"localhost", b"https://localhost:8443", False),
        (b"localhost:8000", b"http://evil.example:8000", False),
        (b"evil.example:8000", b"http://evil.example:8000", False),  # not one of our hosts
        (b"localhost:8000", b"ftp://localhost:8000", False),
        (b"localhost:8000", None, False),
        (b"localhost:8000", b"http://localhost:99999", False),
    ],
)
async def test_the_origin_must_be_our_host_on_the_sockets_port(
    alice: Any, host: bytes | None, origin: bytes | None, allowed: bool
) -> None:
    """The origin check once looked at the host alone: a page on another port of the same
    host (another site) could open a socket with the player's cookies."""
    headers = [(b"cookie", await cookie_of(alice))]
    if origin is not None:
        headers.append((b"origin", origin))
    if host is not None:
        headers.append((b"host", host))
    socket = WebsocketCommunicator(application, "/ws/heartbeat/", headers=headers)
    connected, _ = await socket.connect()
    assert connected is allowed
    if connected:
        assert (await socket.receive_json_from(timeout=5))["type"] == "hello"
        await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_refused_table_sockets_open_then_close_with_the_documented_code(
    alice: Any, bob: Any
) -> None:
    """They were closed before the handshake finished: a browser saw HTTP 403, not 4001/4003."""
    from accounts.models import AgeStatus, User

    table = await sync_to_async(started)(alice, bob)
    anonymous = WebsocketCommunicator(application, f"/ws/tables/{table.pk}/", headers=[ORIGIN])
    assert (await anonymous.connect())[0]
    assert await anonymous.receive_output(timeout=5) == {"type": "websocket.close", "code": 4001}
    cookie = await cookie_of(bob)
    await User.objects.filter(pk=bob.pk).aupdate(age_status=AgeStatus.SUSPENDED)
    suspended = WebsocketCommunicator(
        application, f"/ws/tables/{table.pk}/", headers=[(b"cookie", cookie), ORIGIN]
    )
    assert (await suspended.connect())[0]
    assert await suspended.receive_output(timeout=5) == {"type": "websocket.close", "code": 4003}


@pytest.mark.django_db(transaction=True)
async def test_a_move_after_the_end_is_no_game(alice: Any, bob: Any) -> None:
    table = await sync_to_async(started)(alice, bob)
    game = await Game.objects.aget(table=table)
    await sync_to_async(presence.presence_join)(table_id=table.pk, user=bob, channel_name="b")
    await sync_to_async(presence.presence_leave)(channel_name="b", on_purpose=True)
    await Seat.objects.filter(table=table, number=1).aupdate(
        grace_until=timezone.now() - timedelta(seconds=1)
    )
    socket = await connect(alice, table.pk)
    await hello(socket)
    await answers(socket, {"type": "claim"})  # Bob left: Alice wins the game
    assert (await Game.objects.aget(pk=game.pk)).status == Game.Status.FINISHED
    error = await error_of(
        socket, {"type": "act", "version": game.version + 1, "action": {"type": "pass"}}
    )
    assert error["code"] == "no_game"
    await socket.disconnect()


# --- order across processes ------------------------------------------------------------------


def _update(table: Table, seq: int) -> dict[str, Any]:
    """A table update as the broadcast sends it (events only: enough for the order)."""
    return {
        "type": "table.update",
        "seq": seq,
        "events": [{"type": "test_marker", "seq": seq}],
        "table": None,
        "game": None,
    }


async def _watching(table: Table, watcher: Any) -> tuple[Any, int]:
    """A watcher's socket at `table`, its hello answered: the socket and the snapshot's seq."""
    socket = await connect(watcher, table.pk)
    await socket.send_json_to({"type": "hello", "last_seq": None})
    answer = await socket.receive_json_from(timeout=10)
    while answer["type"] != "snapshot":
        answer = await socket.receive_json_from(timeout=10)
    return socket, int(answer["seq"])


@pytest.mark.django_db(transaction=True)
async def test_an_update_that_overtook_the_one_before_it_waits_for_it(
    alice: Any, bob: Any, make_user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes (two daphnes, a worker) each send their own change after their own commit,
    so the later number can arrive first: the socket still sends them in order, no gap."""
    from channels.layers import get_channel_layer

    from tables.broadcast import public_group

    # The wait is longer than any loaded machine takes between the three sends below.
    monkeypatch.setattr("tables.consumers.REORDER_WAIT_SECONDS", 30.0)
    table = await sync_to_async(started)(alice, bob)
    socket, seq = await _watching(table, await sync_to_async(make_user)("Carol"))
    layer = get_channel_layer()
    for n in (seq + 2, seq + 3, seq + 1):
        await layer.group_send(public_group(table.pk), _update(table, n))
    got = []
    while len(got) < 3:
        message = await socket.receive_json_from(timeout=10)
        if message["type"] == "update":
            got.append(message["seq"])
    assert got == [seq + 1, seq + 2, seq + 3]
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_number_that_never_comes_is_given_up_and_the_client_resumes(
    alice: Any, bob: Any, make_user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An update lost on the way is not waited for forever: after the wait, the updates that
    came are sent in order and the gap is the client's to resume from, as the docs say."""
    from channels.layers import get_channel_layer

    from tables.broadcast import public_group

    monkeypatch.setattr("tables.consumers.REORDER_WAIT_SECONDS", 0.2)
    table = await sync_to_async(started)(alice, bob)
    socket, seq = await _watching(table, await sync_to_async(make_user)("Carol"))
    layer = get_channel_layer()
    # Both in one batch, so they reach the socket together, well inside the wait.
    await layer.group_send_many(
        [(public_group(table.pk), _update(table, n)) for n in (seq + 3, seq + 2)]
    )
    got = []
    while len(got) < 2:
        message = await socket.receive_json_from(timeout=10)
        if message["type"] == "update":
            got.append(message["seq"])
    assert got == [seq + 2, seq + 3]  # seq + 1 never came: a gap the client resumes from
    await layer.group_send(public_group(table.pk), _update(table, seq + 1))
    await socket.send_json_to({"type": "ping"})
    message = await socket.receive_json_from(timeout=10)
    while message["type"] == "watchers":
        message = await socket.receive_json_from(timeout=10)
    assert message["type"] == "pong"  # the late one is not sent behind the later ones
    await socket.disconnect()
