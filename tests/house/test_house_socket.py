"""House players over the real socket path: a practice game to its end, and the host's controls."""

from __future__ import annotations

import random
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from accounts.models import User
from engine import GameState
from house import services as house
from tables import services as tables
from tables.models import Game, GameAction, Table
from tests.tables.helpers import assert_sees_only_its_own, connect, next_reply


async def next_turn(socket: Any, seat: int, last_seq: int) -> tuple[dict[str, Any], int]:
    """Read until the game waits for `seat` (or is over); check every message for leaks.

    Once a view says it is this seat's turn nothing else can move, so that view is current.
    A gap in the event numbers is filled by resuming, as the real page does.
    """
    while True:
        message = await socket.receive_json_from(timeout=60)
        assert message["type"] != "error", message
        assert_sees_only_its_own(message, seat)
        if message["type"] == "ack":
            continue
        number = message.get("seq", last_seq)
        if message["type"] == "update" and number > last_seq + 1:
            await socket.send_json_to({"type": "hello", "last_seq": last_seq})
            continue
        last_seq = max(last_seq, number)
        game = message.get("game")
        if game and (
            game["phase"] == "game_over" or (game["to_act"] == seat and game["legal_actions"])
        ):
            return game, last_seq


@pytest.mark.django_db(transaction=True)
async def test_a_practice_game_against_three_house_players_to_its_end(
    make_user: Any, eager: None
) -> None:
    alice = await sync_to_async(make_user)("Alice")
    rng = random.Random(3)
    table = await sync_to_async(house.practice_start)(
        user=alice, mode="citizen", level="shark", players=4
    )
    socket = await connect(alice, table.pk)
    await socket.send_json_to({"type": "hello", "last_seq": None})
    snapshot = await socket.receive_json_from(timeout=10)
    assert snapshot["type"] == "snapshot"
    assert_sees_only_its_own(snapshot, 0)
    seats = snapshot["table"]["seats"]
    assert seats[0]["player"]["house"] is None
    assert all(s["player"]["house"] == "shark" for s in seats[1:])
    assert all(s["player"]["name"].endswith("(house)") for s in seats[1:])
    view, seq = snapshot["game"], snapshot["seq"]
    if not (view["phase"] == "game_over" or (view["to_act"] == 0 and view["legal_actions"])):
        view, seq = await next_turn(socket, 0, seq)
    moves = 0
    while view["phase"] != "game_over":
        action = rng.choice(view["legal_actions"])
        action = {k: v for k, v in action.items() if k != "seat"}
        await socket.send_json_to(
            {"type": "act", "version": view["version"], "action": action, "request_id": f"a{moves}"}
        )
        view, seq = await next_turn(socket, 0, seq)
        moves += 1
        assert moves < 1000
    assert max(view["scores"]) >= 150 and view["game"] is not None
    game = await Game.objects.aget(table=table)
    assert game.status == Game.Status.FINISHED
    assert (await Table.objects.aget(pk=table.pk)).status == Table.Status.FINISHED
    versions = [
        v async for v in GameAction.objects.filter(game=game).values_list("version", flat=True)
    ]
    assert versions == list(range(1, game.version + 1))
    # the house players moved through game_act like anyone: their own actions, by seat
    by_bots = [
        a async for a in GameAction.objects.filter(game=game, seat__in=[1, 2, 3], by_server=False)
    ]
    assert {a.seat for a in by_bots} == {1, 2, 3}
    assert {a.kind for a in by_bots} >= {"play"}
    state = GameState.from_json(game.state)
    assert state.is_over
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_the_host_adds_and_removes_house_players_over_the_socket(
    make_user: Any, eager: None
) -> None:
    alice = await sync_to_async(make_user)("Alice")
    bob = await sync_to_async(make_user)("Bob")
    table = await sync_to_async(tables.table_create)(host=alice, mode="citizen", players=3)
    host = await connect(alice, table.pk)
    guest = await connect(bob, table.pk)
    for socket in (host, guest):
        await socket.send_json_to({"type": "hello", "last_seq": None})
        await socket.receive_json_from(timeout=10)

    async def answer(socket: Any) -> dict[str, Any]:
        reply = await next_reply(socket)  # (the hello's snapshot may come late: skipped too)
        while reply["type"] == "snapshot":
            reply = await next_reply(socket)
        return reply

    # only the host, only a known level, only an empty seat
    await guest.send_json_to({"type": "house_sit", "seat": 1, "level": "shark"})
    assert (await answer(guest))["code"] == "not_host"
    await host.send_json_to({"type": "house_sit", "seat": 1, "level": 3})
    assert (await answer(host))["code"] == "bad_field"
    await host.send_json_to({"type": "house_sit", "seat": 1, "level": "grandmaster"})
    assert (await answer(host))["code"] == "bad_field"
    await host.send_json_to({"type": "house_sit", "seat": 0, "level": "shark"})
    assert (await answer(host))["code"] == "seat_taken"
    # the host seats a Shark: everyone sees it sit down, ready, labelled a house player
    await host.send_json_to({"type": "house_sit", "seat": 1, "level": "shark"})
    for socket in (host, guest):
        taken = await answer(socket)
        assert taken["events"][0]["type"] == "seat_taken"
        assert taken["events"][0]["player"]["house"] == "shark"
        ready = await answer(socket)
        assert ready["events"][0] == {"type": "ready", "seat": 1, "ready": True}
        assert ready["table"]["seats"][1]["player"]["name"] == "Shark Sam (house)"
    # ... and removes it before the game starts
    await guest.send_json_to({"type": "house_remove", "seat": 1})
    assert (await answer(guest))["code"] == "not_host"
    await host.send_json_to({"type": "house_remove", "seat": 1})
    for socket in (host, guest):
        left = await answer(socket)
        assert left["events"][0] == {"type": "seat_left", "seat": 1}
        assert left["table"]["seats"][1]["player"] is None
    # two house players and Bob fill the table; when all are ready the game starts and the
    # house players move at once when it is their turn
    await host.send_json_to({"type": "house_sit", "seat": 1, "level": "rookie"})
    await guest.send_json_to({"type": "sit", "seat": 2})
    await host.send_json_to({"type": "ready", "ready": True})
    await guest.send_json_to({"type": "ready", "ready": True})
    started = None
    for _ in range(40):
        message = await answer(guest)
        if message.get("game"):
            started = message["game"]
            break
    assert started is not None
    game = await Game.objects.aget(table=table)
    bots = [u async for u in User.objects.filter(pk__in=game.players).exclude(house_level="")]
    assert len(bots) == 1
    # after the start nobody seats or removes a house player
    await host.send_json_to({"type": "house_remove", "seat": 1})
    reply = await answer(host)
    while reply["type"] != "error":
        reply = await answer(host)
    assert reply["code"] == "game_started"
    for socket in (host, guest):
        await socket.disconnect()
