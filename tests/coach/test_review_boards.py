"""The review draws two boards for a decision: the board after the move the player made and the
board after the Shark's. Both are the engine's own board after that move; a review stored
before it kept the player's board shows it all the same (worked out again from the log)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from django.utils import translation

from coach import selectors, services, words
from coach.models import Review
from engine import DoublesChoice, Play, parse_action
from tests.coach.helpers import real_orders, walk
from tests.history.helpers import play, start_table


@pytest.fixture
def reviewed(
    alice: Any, bob: Any, eager: None, fixed_seeds: None, django_capture_on_commit_callbacks: Any
) -> Review:
    table = start_table([alice, bob], "fives", limit=100)
    game = play(table, [alice, bob], seed=9)
    with django_capture_on_commit_callbacks(execute=True):
        review = services.review_request(game_id=game.pk, user=alice)
    review.refresh_from_db()
    assert review.status == Review.Status.DONE, review.error
    return review


@pytest.mark.django_db
def test_each_decision_keeps_the_board_after_the_move_played_and_the_sharks(
    reviewed: Review,
) -> None:
    stored = {d["version"]: d for d in reviewed.result["decisions"]}
    seen = differs = 0
    for version, state, action in walk(reviewed.game, real_orders(reviewed.game)):
        d = stored.get(version)
        if d is None:
            continue
        seen += 1
        assert action.to_dict() == d["options"][d["played"]]["action"]
        if isinstance(action, DoublesChoice):
            assert d["played_board"] is None and d["board"] is None
            continue
        assert isinstance(action, Play)
        after = state.copy()
        after.apply(action)
        if after.board.lead is not None:  # the hand went on: the engine's board, as it stands
            assert d["played_board"] == after.board.to_view()
        best = parse_action(dict(d["options"][d["best"]]["action"]))
        shark = state.copy()
        shark.apply(best)
        if shark.board.lead is not None:
            assert d["board"] == shark.board.to_view()
        if d["best"] == d["played"]:
            assert d["played_board"] == d["board"]
        else:
            differs += 1
            assert d["played_board"] != d["board"]
    assert seen == len(stored) > 0 and differs > 0


@pytest.mark.django_db
def test_the_payload_names_and_draws_both_moves(reviewed: Review) -> None:
    payload = selectors.review_payload(reviewed)
    stored = reviewed.result["decisions"]
    assert len(payload["decisions"]) == len(stored)
    for shown, d in zip(payload["decisions"], stored, strict=True):
        mine = d["options"][d["played"]]["action"]
        assert shown["played_board"] == d["played_board"]
        assert shown["board"] == d["board"]
        assert (shown["played_bone"], shown["played_end"]) == (mine.get("bone"), mine.get("end"))
        if shown["played_bone"]:
            drawn = [b["bone"] for b in _bones(shown["played_board"])]
            assert _canonical(shown["played_bone"]) in {_canonical(b) for b in drawn}


@pytest.mark.django_db
def test_a_review_stored_before_it_kept_the_players_board_still_shows_it(
    reviewed: Review,
) -> None:
    expected = [d["played_board"] for d in selectors.review_payload(reviewed)["decisions"]]
    old = copy.deepcopy(reviewed.result)
    for d in old["decisions"]:
        del d["played_board"]
    Review.objects.filter(pk=reviewed.pk).update(result=old)
    reviewed.refresh_from_db()
    assert all("played_board" not in d for d in reviewed.result["decisions"])
    shown = [d["played_board"] for d in selectors.review_payload(reviewed)["decisions"]]
    assert shown == expected and any(b is not None for b in shown)


def _bones(view: dict[str, Any]) -> list[dict[str, Any]]:
    """Every bone a board view draws (the lead, the arms)."""
    found: list[dict[str, Any]] = []

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("bone"), str):
                found.append(node)
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(view)
    return found


def _canonical(bone: str) -> str:
    a, b = (int(x) for x in bone.split("-"))
    return f"{max(a, b)}-{min(a, b)}"


def test_the_boards_captions_in_spanish() -> None:
    with translation.override("es"):
        strings = words.review_strings()
    assert strings["board_yours"].format(move="6-4") == "Tu jugada: 6-4"
    assert strings["board_sharks"].format(move="6-4") == "La jugada del Tiburón: 6-4"
    assert "Tiburón" in strings["board_same"]
