"""A game in progress shows only the hands that are over: never the seed, the bones or the plays
of the hand in play (nor the seed of the next, already committed, hand)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client

from engine import GameState
from history.selectors import hands_over_through
from tables.models import Game, Hand
from tests.history.helpers import play, start_table


def replay_data(html: str) -> Any:
    match = re.search(
        r'<script id="replay-data" type="application/json">(.*?)</script>', html, re.S
    )
    assert match
    return json.loads(match.group(1))


def verify_data(html: str) -> Any:
    match = re.search(
        r'<script id="verify-data" type="application/json">(.*?)</script>', html, re.S
    )
    assert match
    return json.loads(match.group(1))


@pytest.mark.django_db
def test_a_game_in_progress_leaks_nothing(four: list[Any], make_user: Any) -> None:
    players = four[:3]
    table = start_table(players, "citizen")
    game = play(table, players, seed=5, stop=lambda state: state.deal_number >= 3)
    assert game.status == Game.Status.PLAYING
    state = GameState.from_json(game.state)
    current = state.deal_number
    assert hands_over_through(game) == current - 1
    # Seeds: the hands that are over are revealed, the hand in play and the next one are not.
    hands = {h.number: h for h in Hand.objects.filter(game=game)}
    assert {n for n, h in hands.items() if h.revealed} == set(range(1, current))
    secret = [hands[current].server_seed, hands[current + 1].server_seed]
    assert hands[current + 1].dealt_at is None
    watcher = make_user("Watcher")
    for viewer in (players[0], watcher):
        client = Client()
        client.force_login(viewer)
        html = client.get(f"/games/{game.pk}/").content.decode()
        text = client.get(f"/games/{game.pk}/export.txt").content.decode()
        for content in (html, text):
            for seed in secret:
                assert seed not in content
            for n in range(1, current):
                assert hands[n].server_seed in content
            # No seat's bones of the hand in play, as dealt or as now held.
            for seat in range(len(players)):
                bones = [str(b) for b in state.hands[seat]]
                assert len(bones) == state.settings.deal  # stopped right at the deal
                assert " ".join(bones) not in content
            # The hand in play shows its commitment only.
            assert hands[current].commitment in content
        frames = replay_data(html)["frames"]
        assert frames and {f["hand"] for f in frames} == set(range(1, current))
        assert [v["hand"] for v in verify_data(html)] == list(range(1, current))
        assert f'id="hand-{current}"' not in html
        # Not even the hand in play's opening move.
        assert f"Hand {current} is dealt" not in html
        assert f"Hand {current} is dealt" not in text


@pytest.mark.django_db
def test_a_game_just_started_shows_no_hand(alice: Any, bob: Any) -> None:
    table = start_table([alice, bob], "citizen")
    game = Game.objects.get(table=table)
    hands = {h.number: h for h in Hand.objects.filter(game=game)}
    client = Client()
    client.force_login(alice)
    html = client.get(f"/games/{game.pk}/").content.decode()
    assert replay_data(html)["frames"] == [] or all(
        f["hand"] < game.state["deal"] for f in replay_data(html)["frames"]
    )
    current = game.state["deal"]
    assert hands[current].server_seed not in html
    assert hands[current].commitment in html
    assert not hands[current].revealed


@pytest.mark.django_db
def test_every_dealt_hand_is_revealed_when_the_game_ends(alice: Any, bob: Any) -> None:
    table = start_table([alice, bob], "fives", limit=100)
    game = play(table, [alice, bob], seed=8)
    assert game.status == Game.Status.FINISHED
    rows = list(Hand.objects.filter(game=game))
    assert all(h.revealed for h in rows if h.dealt_at is not None)
    # The hand committed for a deal that never came is never dealt, so never revealed.
    assert [h.revealed for h in rows if h.dealt_at is None] == [False]
    client = Client()
    client.force_login(bob)
    html = client.get(f"/games/{game.pk}/").content.decode()
    undealt = next(h for h in rows if h.dealt_at is None)
    assert undealt.server_seed not in html
