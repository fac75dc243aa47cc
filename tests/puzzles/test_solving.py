"""Solving puzzles: the first try is a rated Glicko-2 game between the player and the puzzle,
later tries are practice; a bad choice is refused and changes nothing; the next puzzle is one
not tried, near the player's rating, of the theme asked for."""

from __future__ import annotations

from typing import Any

import pytest

from engine.puzzles import Puzzle as MinedPuzzle
from puzzles import services
from puzzles.models import Attempt, Puzzle, Solver
from ratings.glicko2 import DEFAULT_RATING, Glicko, Result, rate

pytestmark = pytest.mark.django_db

VIEW = {"legal_actions": [{"type": "play"}, {"type": "play"}, {"type": "play"}]}


def make_puzzle(rating: float = DEFAULT_RATING, themes: list[str] | None = None) -> Puzzle:
    return Puzzle.objects.create(
        version=1,
        seat=0,
        mode="citizen",
        players=2,
        view=VIEW,
        answer=[1],
        runner_up=[0],
        margin=10.0,
        estimates=[1.0, 11.0, 0.0],
        points=[0, 0, 5],
        themes=themes or [],
        reasons={},
        worlds=200,
        rating=rating,
    )


def test_a_first_solve_is_rated_both_ways_and_a_second_try_is_not(make_user: Any) -> None:
    alice = make_user("Alice")
    puzzle = make_puzzle()
    first = services.attempt(user=alice, puzzle_id=puzzle.pk, choice=1)
    assert first.solved and first.rated
    me = Glicko(1500.0, 350.0, 0.06)
    expected_me = rate(me, [Result(me, 1.0)])
    expected_it = rate(me, [Result(me, 0.0)])
    solver = Solver.objects.get(user=alice)
    puzzle.refresh_from_db()
    assert solver.rating == pytest.approx(expected_me.rating) and solver.rating > 1500
    assert puzzle.rating == pytest.approx(expected_it.rating) and puzzle.rating < 1500
    assert (first.rating_before, first.rating_after) == (1500.0, solver.rating)
    assert (solver.tries, solver.solves, puzzle.tries, puzzle.solves) == (1, 1, 1, 1)

    again = services.attempt(user=alice, puzzle_id=puzzle.pk, choice=0)
    assert not again.solved and not again.rated and again.rating_after is None
    solver.refresh_from_db()
    puzzle.refresh_from_db()
    assert solver.rating == pytest.approx(expected_me.rating) and puzzle.tries == 1


def test_a_miss_lowers_the_player_and_raises_the_puzzle(make_user: Any) -> None:
    bob = make_user("Bob")
    puzzle = make_puzzle()
    services.attempt(user=bob, puzzle_id=puzzle.pk, choice=2)
    puzzle.refresh_from_db()
    assert Solver.objects.get(user=bob).rating < 1500 < puzzle.rating


@pytest.mark.parametrize("choice", [3, -1, "1", None, True])
def test_a_bad_choice_is_refused_and_changes_nothing(make_user: Any, choice: Any) -> None:
    carol = make_user("Carol")
    puzzle = make_puzzle()
    with pytest.raises(services.PuzzleRefused) as refused:
        services.attempt(user=carol, puzzle_id=puzzle.pk, choice=choice)
    assert refused.value.code == "bad_choice"
    assert not Attempt.objects.exists() and not Solver.objects.exists()
    with pytest.raises(services.PuzzleRefused) as missing:
        services.attempt(user=carol, puzzle_id=puzzle.pk + 99, choice=0)
    assert missing.value.code == "no_puzzle"


def test_the_next_puzzle_is_untried_near_the_player_and_of_the_theme(make_user: Any) -> None:
    dave = make_user("Dave")
    far = make_puzzle(rating=2200, themes=["blocking"])
    near = make_puzzle(rating=1540, themes=["double"])
    nearest = make_puzzle(rating=1490, themes=["spinner", "double"])
    assert services.next_puzzle(user=dave) == nearest
    assert services.next_puzzle(user=dave, theme="blocking") == far  # the window widens
    assert services.next_puzzle(user=dave, theme="domino") is None
    services.attempt(user=dave, puzzle_id=nearest.pk, choice=1)
    assert services.next_puzzle(user=dave, theme="double") == near  # tried ones are not offered


def test_a_puzzle_the_regular_always_solves_starts_low() -> None:
    import random

    from engine import GameState, Pass, Phase, TableSettings, seat_view
    from engine.bones import full_set
    from engine.bots import decide

    # The first position of a seeded game where the Regular leaves some play alone.
    rng = random.Random(4)
    state = GameState.new(TableSettings.build("citizen", players=2))
    while True:
        if state.phase is Phase.AWAITING_DEAL:
            order = full_set(6)
            rng.shuffle(order)
            state.deal(order)
            continue
        seat = state.to_act
        assert seat is not None and state.phase is Phase.PLAYING
        if state.is_forced_pass():
            state.apply(Pass(seat))
            continue
        view = seat_view(state, seat)
        legal = view["legal_actions"]
        played = {legal.index(decide(view, "regular", rng=rng).to_dict()) for _ in range(20)}
        never = [i for i in range(len(legal)) if i not in played]
        if never:
            break
        state.apply(state.legal_actions()[rng.randrange(len(legal))])
    zeros = [0.0] * len(legal)
    # every play solves it: the Regular cannot miss; only plays it never makes: it never hits
    easy = MinedPuzzle(view, list(range(len(legal))), [], 9.0, zeros, [0] * len(legal), [])
    hard = MinedPuzzle(view, never, sorted(played), 9.0, zeros, [0] * len(legal), [])
    assert services.starting_rating(easy, seed=1) == services.EASY_RATING
    assert services.starting_rating(hard, seed=1) == DEFAULT_RATING
