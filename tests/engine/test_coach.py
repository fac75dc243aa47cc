"""The coach's analysis (engine/coach.py): forced moves left out, every choice's points exactly
the engine's, facts that only use what the seat can see, the five-doubles choice, reproducible,
and blind to anything outside the seat's view."""

from __future__ import annotations

import random
from typing import Any

from engine import Bone, DoublesChoice, GameState, Phase, Play, TableSettings, full_set, seat_view
from engine.bots import read_view
from engine.coach import analyse
from engine.events import BonePlayed
from tests.engine.conftest import deal, new_state


def _choices(
    seed: int, mode: str, players: int, partners: bool = False
) -> list[tuple[GameState, int]]:
    """Positions with a real choice from a seeded random game."""
    rng = random.Random(seed)
    options = (
        {"players": players}
        if mode in ("fives", "threes")
        else {
            "players": players,
            "partners": partners,
        }
    )
    state = GameState.new(TableSettings.build(mode, **options))
    out: list[tuple[GameState, int]] = []
    while not state.is_over:
        if state.phase is Phase.AWAITING_DEAL:
            order = full_set(state.settings.max_pip)
            rng.shuffle(order)
            state.deal(order)
            continue
        legal = state.legal_actions()
        seat = state.to_act
        assert seat is not None
        plays = [a for a in legal if isinstance(a, Play)]
        if len(plays) >= 2 and len(plays) == len(legal):
            out.append((state.copy(), seat))
        state.apply(rng.choice(legal))
    return out


def test_forced_moves_are_not_analysed() -> None:
    state = new_state("citizen", players=2)
    deal(
        state,
        ["6-6", "6-4", "5-0", "4-1", "2-2", "3-1", "6-0"],
        ["5-5", "4-4", "3-2", "5-4", "3-0", "2-1", "1-0"],
    )
    assert analyse(seat_view(state, 0), seed=1) is None  # the house double must lead
    state.apply(Play(0, Bone.parse("6-6")))
    assert analyse(seat_view(state, 1), seed=1) is None  # nothing fits: a draw
    while not any(isinstance(a, Play) for a in state.legal_actions()):
        state.apply(state.legal_actions()[0])  # seat 1 draws until a bone fits
    plays = [a for a in state.legal_actions() if isinstance(a, Play)]
    analysis = analyse(seat_view(state, 1), seed=1, worlds=4)
    assert (analysis is None) == (len(plays) == 1)


def test_every_choice_scores_what_the_engine_scores() -> None:
    checked = 0
    shapes = ((1, "citizen", 2, False), (2, "inmate", 3, False), (3, "fives", 2, False))
    for seed, mode, players, partners in (*shapes, (4, "citizen_gym", 4, True)):
        for state, seat in _choices(seed, mode, players, partners)[:25]:
            analysis = analyse(seat_view(state, seat), seed=seed, worlds=2)
            assert analysis is not None and analysis.kind == "play"
            assert [o.action for o in analysis.options] == state.legal_actions()
            seen = read_view(seat_view(state, seat))
            unseen = set(seen.unseen)
            for option in analysis.options:
                after = state.copy()
                played = next(e for e in after.apply(option.action) if isinstance(e, BonePlayed))
                assert option.points == played.points
                assert option.count == played.count
                if option.threat is not None:
                    # a bone the seat cannot see, scoring what the engine would score
                    assert option.threat.bone in unseen
                    assert option.threat.points > 0
                for value in option.dead:
                    assert not any(b.has(value) for b in unseen)
                checked += 1
    assert checked > 100


def test_the_five_doubles_choice_is_analysed() -> None:
    state = new_state("citizen", players=2)
    deal(
        state,
        ["6-6", "5-5", "4-4", "3-3", "2-2", "6-1", "6-0"],
        ["5-4", "5-3", "5-2", "5-1", "5-0", "4-3", "4-2"],
    )
    analysis = analyse(seat_view(state, 0), seed=3, worlds=60)
    assert analysis is not None and analysis.kind == "doubles"
    choices = [o.action for o in analysis.options]
    assert choices == [DoublesChoice(0, "play"), DoublesChoice(0, "reshuffle")]
    play, reshuffle = analysis.options
    assert play.estimate > reshuffle.estimate  # +100 at stake, against a new deal
    assert analysis.options[analysis.best].action == DoublesChoice(0, "play")


def test_the_analysis_is_reproducible_and_sees_only_the_seat() -> None:
    state, seat = _choices(5, "citizen", 3)[6]
    view = seat_view(state, seat)
    first = analyse(view, seed=9, worlds=40)
    assert first == analyse(view, seed=9, worlds=40)
    # A view with the other hands and the yard written into it: the same analysis.
    peeking: dict[str, Any] = {
        **view,
        "hands": [[str(b) for b in hand] for hand in state.hands],
        "yard_bones": [str(b) for b in state.yard],
    }
    assert analyse(peeking, seed=9, worlds=40) == first
    # Estimates add up: its parts, points for less against and a game won or lost.
    assert first is not None
    for o in first.options:
        assert abs(o.estimate - (o.gained - o.conceded + 200 * (o.won - o.lost))) < 1e-6
