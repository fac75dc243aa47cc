"""The Gym clock: dumbbells, the five-in-one-turn forfeit, and the workouts owed."""

from __future__ import annotations

from typing import Any

import pytest

from engine import GameState, Phase, Timeout, Workout
from engine.events import Dumbbell, GameOver, HandOver
from tests.engine.conftest import act, deal, events_of, new_state, position, refused
from tests.engine.test_engine_bonus import FIVE_DOUBLES
from tests.engine.test_engine_leads import LOCK_HANDS, LOCK_MOVES


def gym_position(players: int = 2, **kw: Any) -> GameState:
    hands = [["6-5", "1-0"], ["5-4", "2-1"], ["4-3", "3-2"], ["3-1", "2-0"]][:players]
    return position("citizen_gym", hands, lead="6-6", spinner="lead", **kw)


def test_no_clock_no_timeouts() -> None:
    for mode, settings in (("citizen", {}), ("fives", {}), ("citizen_gym", {"clock": None})):
        state = new_state(mode, players=2, **settings) if mode != "fives" else new_state(mode)
        error = refused(state, Timeout(0))
        assert error.code == "no_clock", mode


def test_a_timeout_is_a_dumbbell_and_still_your_turn() -> None:
    state = gym_position()
    events = state.apply(Timeout(0))
    assert [e.to_public() for e in events] == [
        {"type": "dumbbell", "seat": 0, "in_turn": 1, "in_game": 1}
    ]
    assert state.to_act == 0 and state.dumbbells == [1, 0]
    assert refused(state, Timeout(1)).code == "not_your_turn"
    act(state, "0 play 6-5 right")
    assert state.turn_dumbbells == 0
    events = state.apply(Timeout(1))
    assert events_of(events, Dumbbell)[0].in_turn == 1
    assert state.dumbbells == [1, 1] and state.scores == [0, 0]


def test_drawing_does_not_restart_the_turn() -> None:
    state = position("inmate_gym", [["5-4", "3-2"], ["2-1", "1-0"]], lead="6-6", spinner="lead")
    state.apply(Timeout(0))
    act(state, "0 draw 1-1")
    events = state.apply(Timeout(0))
    assert events_of(events, Dumbbell)[0].in_turn == 2


def test_forced_pass_runs_no_clock() -> None:
    state = new_state("citizen_gym", players=4, rock=0)
    deal(state, *LOCK_HANDS)
    act(state, *LOCK_MOVES)
    assert state.is_forced_pass()
    error = refused(state, Timeout(2))
    assert error.code == "no_clock"


def test_five_dumbbells_in_one_turn_forfeit_one_on_one() -> None:
    state = gym_position(scores=[30, 20], on_board=[True, True])
    for _ in range(4):
        state.apply(Timeout(0))
    events = state.apply(Timeout(0))
    assert [e.type for e in events] == ["dumbbell", "hand_over", "game_over"]
    assert events_of(events, HandOver)[0].result == "forfeit"
    over = events_of(events, GameOver)[0]
    assert (over.winner, over.forfeit, over.reason, over.skunked) == (1, 0, "forfeit", [0])
    # the loser owes the base 20 reps + 5 per dumbbell, doubled for the skunk (30 < 80)
    assert over.workouts == [Workout("reps", (20 + 25) * 2), None]
    assert state.phase is Phase.GAME_OVER
    result = state.result
    assert result is not None and (result.winner, result.forfeit) == (1, 0)


def test_forfeit_in_partners_loses_for_the_side() -> None:
    state = gym_position(
        players=4, settings={"partners": True, "workout": {"kind": "run", "amount": 10}},
        scores=[90, 100], on_board=[True, True], to_act=2, dumbbells=[2, 0, 0, 1],
    )  # fmt: skip
    for _ in range(5):
        events = state.apply(Timeout(2))
    over = events_of(events, GameOver)[0]
    assert (over.winner, over.forfeit, over.skunked) == (1, 2, [])
    # seats 0 and 2 lose: 1 mile + half a mile per own dumbbell (in tenths of a mile)
    assert over.workouts == [Workout("run", 20), None, Workout("run", 35), None]


@pytest.mark.parametrize(
    ("scores", "forfeiter", "winner"),
    [
        ([40, 90, 30, 90], 2, 3),
        ([40, 90, 30, 90], 0, 1),
        ([95, 10, 30, 95], 1, 3),
        ([1, 2, 3], 2, 1),
    ],
)  # fmt: skip
def test_cut_throat_forfeit_highest_other_wins_ties_to_next_in_turn(
    scores: list[int], forfeiter: int, winner: int
) -> None:
    state = gym_position(
        players=len(scores), scores=scores, on_board=[True] * len(scores), to_act=forfeiter
    )
    for _ in range(5):
        events = state.apply(Timeout(forfeiter))
    over = events_of(events, GameOver)[0]
    assert (over.winner, over.forfeit) == (winner, forfeiter)
    assert over.skunked == [s for s in range(len(scores)) if s != winner and scores[s] < 80]


def test_the_doubles_choice_is_a_turn_on_the_clock() -> None:
    state = new_state("citizen_gym", players=2)
    deal(state, *FIVE_DOUBLES)
    assert refused(state, Timeout(1)).code == "not_your_turn"
    for _ in range(4):
        state.apply(Timeout(0))
    act(state, "0 doubles play")
    assert state.turn_dumbbells == 0 and state.dumbbells == [4, 0]
    events = []
    for _ in range(5):
        events = state.apply(Timeout(0))
    assert events_of(events, GameOver)[0].forfeit == 0


def test_timeouts_after_the_game_are_refused() -> None:
    state = gym_position()
    for _ in range(5):
        state.apply(Timeout(0))
    assert refused(state, Timeout(1)).code == "game_over"
