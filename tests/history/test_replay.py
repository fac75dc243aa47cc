"""The replay rebuilds each game exactly: the deals from the published values, every action,
the recorded result and the final state."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from history.replay import replay_game
from history.selectors import game_deals, game_page, game_replay
from tables.models import Game, GameAction, Hand
from tests.history.helpers import play, start_table

SHAPES = [
    ("citizen", 2, {}),
    ("citizen", 4, {"partners": True}),
    ("inmate", 3, {}),
    ("fives", 2, {"limit": 100}),
    ("threes", 2, {"spinner": True}),
    ("citizen_gym", 2, {"clock": 60}),  # the longest clock: moves in real time are never late
]


def documented_deal(seed_hex: str, washes: dict[int, str], max_pip: int = 6) -> list[str]:
    """docs/fair-deals.md's recipe, written out independently of tables.fairdeal."""
    text = ",".join(f"{seat}={washes[seat]}" for seat in sorted(washes))
    key = hashlib.sha256(f"dominologist-deal-v1|{seed_hex}|{text}".encode()).digest()
    bones = [f"{hi}-{lo}" for hi in range(max_pip + 1) for lo in range(hi + 1)]
    for k, i in enumerate(range(len(bones) - 1, 0, -1)):
        block = hashlib.sha256(key + k.to_bytes(8, "big")).digest()
        j = int.from_bytes(block[:8], "big") % (i + 1)
        bones[i], bones[j] = bones[j], bones[i]
    return bones


@pytest.mark.django_db
@pytest.mark.parametrize(("mode", "players", "options"), SHAPES)
def test_the_replay_is_the_game(
    four: list[Any], mode: str, players: int, options: dict[str, Any]
) -> None:
    seated = four[:players]
    table = start_table(seated, mode, **options)
    game = play(table, seated, seed=players * 7, timeouts=0.1 if "gym" in mode else 0.0)
    assert game.status == Game.Status.FINISHED
    replay = game_replay(game)
    assert replay.complete and replay.error is None
    # The recorded result, and the whole final state, bone for bone.
    assert replay.state.result is not None
    assert replay.state.result.to_dict() == game.result
    assert replay.state.to_json() == game.state
    # One replayed hand per dealt hand; every action but the deals is a step.
    dealt = list(Hand.objects.filter(game=game, dealt_at__isnull=False).order_by("number"))
    assert [h.number for h in replay.hands] == [h.number for h in dealt]
    actions = GameAction.objects.filter(game=game)
    assert replay.steps() == actions.exclude(kind="deal").count()
    assert len(replay.hands) == actions.filter(kind="deal").count()
    # Each hand was dealt from its published values, by the documented recipe.
    size = replay.settings.deal
    for hand, row in zip(replay.hands, dealt, strict=True):
        washes = {int(k): v for k, v in row.contributions.items()}
        order = documented_deal(row.server_seed, washes, replay.settings.max_pip)
        assert hand.order == order
        assert hand.dealt == [order[s * size : (s + 1) * size] for s in range(players)]
    # The page's last frame shows the final scores.
    page = game_page(game)
    assert page["replay_matches"]
    frames = page["replay"]["frames"]
    last_scores = next(f["scores"] for f in reversed(frames) if "scores" in f)
    assert last_scores == game.state["scores"]
    assert len(frames) == len(replay.hands) + replay.steps()


@pytest.mark.django_db
def test_a_tampered_seed_breaks_the_replay(alice: Any, bob: Any) -> None:
    table = start_table([alice, bob], "citizen")
    game = play(table, [alice, bob], seed=3)
    hand = Hand.objects.get(game=game, number=1)
    hand.server_seed = hand.server_seed[:-1] + ("0" if hand.server_seed[-1] != "0" else "1")
    hand.save()
    replay = game_replay(game)
    # The first recorded play no longer matches the bones dealt, or the game ends elsewhere.
    assert not replay.complete or replay.state.result.to_dict() != game.result  # type: ignore[union-attr]
    assert not game_page(game)["replay_matches"]


@pytest.mark.django_db
def test_the_replay_stops_at_a_hand_without_its_seed(alice: Any, bob: Any) -> None:
    table = start_table([alice, bob], "citizen")
    game = play(table, [alice, bob], seed=4)
    deals = game_deals(game)
    assert len(deals) >= 2
    actions = [
        (a.version, a.seat, a.kind, a.action)
        for a in GameAction.objects.filter(game=game).order_by("version")
    ]
    from history.replay import ActionRecord

    records = [ActionRecord(*a) for a in actions]
    partial = replay_game(game.state["settings"], {1: deals[1]}, records)
    assert not partial.complete and partial.error is None
    assert [h.number for h in partial.hands] == [1]


@pytest.mark.django_db
def test_a_game_ended_outside_the_rules_of_play_keeps_its_recorded_result(
    four: list[Any],
) -> None:
    """A game the site ends itself (a player left for good, say) has a result the engine never
    reached: the replay covers every action, and the recorded result stands."""
    from django.test import Client
    from django.utils import timezone

    from history.models import PlayerGame
    from history.services import games_archive_pending

    players = four[:3]
    table = start_table(players, "inmate")
    game = play(table, players, seed=2, stop=lambda state: state.deal_number >= 2)
    result = {"winner": 1, "skunked": [0, 2], "forfeit": 0, "reason": "left", "workouts": None}
    Game.objects.filter(pk=game.pk).update(
        status=Game.Status.FINISHED, result=result, finished_at=timezone.now()
    )
    game.refresh_from_db()
    page = game_page(game)
    assert page["replay_matches"]
    # Every dealt hand is over now, the one in play when it ended included.
    assert [h["number"] for h in page["hands"]] == list(range(1, game.state["deal"] + 1))
    assert games_archive_pending() == 1
    records = {r.seat: r for r in PlayerGame.objects.filter(game=game)}
    assert records[1].won and records[1].skunks_given == 2
    assert records[0].skunked and records[2].skunked and not records[0].won
    client = Client()
    client.force_login(players[0])
    assert client.get(f"/games/{game.pk}/").status_code == 200
