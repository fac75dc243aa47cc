"""A whole game played through sockets by four clients (and a spectator), checking every message."""

from __future__ import annotations

import random
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from engine import GameState
from tables import services
from tables.models import Game, GameAction, Table
from tests.tables.helpers import connect, receive_until


@pytest.fixture
def four(make_user: Any) -> list[Any]:
    return [make_user(name) for name in ("Alice", "Bob", "Carol", "Dave")]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("shape", [{"players": 4, "partners": True}, {"players": 3}])
async def test_whole_game_over_sockets_leaks_nothing(
    four: list[Any], make_user: Any, shape: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # These clients move as fast as the server answers, faster than the rate limit allows a
    # page (10 a second after a burst of 30): not what this test is about.
    monkeypatch.setattr("dominoes_site.consumers.BURST", 10_000.0)
    rng = random.Random(7)
    players = four[: shape["players"]]
    table = await sync_to_async(services.table_create)(host=players[0], mode="citizen", **shape)
    watcher = await sync_to_async(make_user)("Watcher")
    sockets = [await connect(p, table.pk) for p in players]
    spectator = await connect(watcher, table.pk)
    everyone = [*sockets, spectator]
    seats: list[int | None] = [*range(len(players)), None]
    for socket in everyone:
        await socket.send_json_to({"type": "hello", "last_seq": None})
        snapshot = await socket.receive_json_from(timeout=10)
        while snapshot["type"] == "watchers":  # the spectator arriving is counted
            snapshot = await socket.receive_json_from(timeout=10)
        assert snapshot["type"] == "snapshot"
    seq = snapshot["seq"]
    # Everyone sits (the host already has seat 0) and presses ready.
    for number, socket in enumerate(sockets):
        if number:
            await socket.send_json_to({"type": "sit", "seat": number})
            seq += 1
            for s, seat in zip(everyone, seats, strict=True):
                await receive_until(s, seq, seat if s is not spectator else None)
    for socket in sockets:
        await socket.send_json_to({"type": "ready", "ready": True})
        seq += 1
        last = [await receive_until(s, seq, seat) for s, seat in zip(everyone, seats, strict=True)]
    views = [m["game"] for m in last]
    assert views[0]["phase"] in ("playing", "choosing_doubles")
    moves = 0
    while views[0]["phase"] != "game_over":
        actor = views[0]["to_act"]
        view = views[actor]
        action = rng.choice(view["legal_actions"])
        action = {k: v for k, v in action.items() if k != "seat"}
        await sockets[actor].send_json_to(
            {"type": "act", "version": view["version"], "action": action, "request_id": f"m{moves}"}
        )
        seq += 1
        last = [await receive_until(s, seq, seat) for s, seat in zip(everyone, seats, strict=True)]
        views = [m["game"] for m in last]
        # The client sees exactly its own hand as the server holds it.
        game = await Game.objects.aget(table=table)
        state = GameState.from_json(game.state)
        for seat in range(len(players)):
            assert views[seat]["hand"] == [str(b) for b in state.hands[seat]]
            assert views[seat]["version"] == game.version
        moves += 1
        assert moves < 2000
    result = views[0]["game"]
    assert result is not None and max(views[0]["scores"]) >= 150
    game = await Game.objects.aget(table=table)
    assert game.status == "finished"
    assert (await Table.objects.aget(pk=table.pk)).status == "finished"
    # The action log rebuilds the game: versions run 1..N with no gap.
    versions = [
        v async for v in GameAction.objects.filter(game=game).values_list("version", flat=True)
    ]
    assert versions == list(range(1, game.version + 1))
    for socket in everyone:
        await socket.disconnect()


def test_the_leak_check_catches_leaks() -> None:
    """The checker used above fails on each kind of leak (so a pass means something)."""
    from tests.tables.helpers import assert_sees_only_its_own

    board = {"lead": {"bone": "6-6"}, "arms": {}, "ends": []}
    mine = {"seat": 0, "hand": ["1-0"], "yard": 3, "board": board}
    assert_sees_only_its_own({"game": mine, "events": []}, 0)
    leaks = [
        {"game": {**mine, "legal_actions": [{"bone": "5-5"}]}, "events": []},
        {"game": mine, "events": [{"type": "drew", "seat": 1, "bone": "4-4"}]},
        {"game": {**mine, "yard": ["2-2"]}, "events": []},
        {"game": {**mine, "seat": 1}, "events": []},
        {
            "game": {k: v for k, v in mine.items() if k not in ("hand", "seat")} | {"hand": []},
            "events": [],
        },
    ]
    for message in leaks:
        seat = None if "hand" in message["game"] and message["game"]["hand"] == [] else 0
        with pytest.raises(AssertionError):
            assert_sees_only_its_own(message, seat)
