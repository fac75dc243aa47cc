"""Property tests: thousands of seeded random games in every mode and table shape.

Every game is played to its end with random legal actions (and, at Gym tables, random clock
timeouts), checking on every action that bones are conserved, that every score is a positive
multiple of the unit, at least the smallest score and never made off the board below the get-on,
and that hand results agree with the revealed hands; and at intervals that views and event forms
leak nothing, that the JSON round trip is exact, and that refused actions change nothing.

The default run plays about 2,700 games in ~20 s. ``pytest -m slow`` (or ENGINE_SLOW=1) adds a
long run of ~10,000 more.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    ActionError,
    Bone,
    DoublesChoice,
    Draw,
    End,
    GameState,
    Pass,
    Phase,
    Play,
    TableSettings,
    Timeout,
    full_set,
)
from tests.engine.conftest import (
    HOUSE_MODES,
    GameStats,
    check_round_trip,
    check_views,
    play_random_game,
    settings_of,
    shape_id,
    table_shapes,
)

SHAPES = table_shapes()
MODES = (*HOUSE_MODES, "fives", "threes")
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
RATES = st.sampled_from([0.0, 0.02, 0.3])
FAST = settings(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@pytest.mark.parametrize("shape", SHAPES, ids=[shape_id(s) for s in SHAPES])
@settings(FAST, max_examples=30)
@given(seed=SEEDS, timeout_rate=RATES)
def test_random_games_in_every_table_shape(
    shape: dict[str, Any], seed: int, timeout_rate: float
) -> None:
    play_random_game(settings_of(shape), seed, timeout_rate=timeout_rate, check_every=50)


@pytest.mark.parametrize("mode", MODES)
@settings(FAST, max_examples=4)
@given(seed=SEEDS, players=st.sampled_from([2, 3, 4]))
def test_every_action_checked(mode: str, seed: int, players: int) -> None:
    """Views, event forms, the JSON round trip and refusals after every single action."""
    table = TableSettings.build(mode, players=players if mode in HOUSE_MODES else 2)
    play_random_game(table, seed, timeout_rate=0.05, check_every=1)


def test_seeded_games_in_bulk() -> None:
    """A plain seeded loop (no shrinking needed: the seed says everything) over every shape."""
    stats = GameStats()
    for i, shape in enumerate(SHAPES):
        table = settings_of(shape)
        for seed in range(20):
            rate = (0.0, 0.05, 0.5)[seed % 3]
            play_random_game(table, 1_000_003 * seed + i, timeout_rate=rate, stats=stats)
    assert stats.games == 20 * len(SHAPES)
    # the random games reach every way a hand can end
    for result in ("domino", "locked", "blocked", "redeal", "forfeit", "bonus"):
        assert stats.results.get(result, 0) > 0, result


def junk_action(draw: Any, state: GameState) -> Any:
    """Anything a client could send: any seat, any bone of the biggest set, any end."""
    seat = draw(st.integers(0, 3))
    kind = draw(st.sampled_from(["play", "play", "draw", "pass", "timeout", "doubles", "legal"]))
    if kind == "legal" and state.legal_actions():
        return draw(st.sampled_from(state.legal_actions()))
    if kind == "play":
        bone = draw(st.sampled_from(full_set(9)))
        return Play(seat, bone, draw(st.sampled_from([None, *End])))
    if kind == "draw":
        return Draw(seat, draw(st.integers(0, 40)))
    if kind == "pass":
        return Pass(seat)
    if kind == "doubles":
        return DoublesChoice(seat, draw(st.sampled_from(["play", "reshuffle"])))
    return Timeout(seat)


def accepted_is_legal(state: GameState, action: Any) -> bool:
    """Whether ``apply`` may accept ``action`` in ``state``: it is listed, or it is a listed play
    with its only end left out, or it is a timeout at a clocked table outside a forced pass."""
    legal = state.legal_actions()
    if action in legal:
        return True
    if isinstance(action, Timeout):
        return (
            state.settings.clock is not None
            and action.seat == state.to_act
            and not state.is_forced_pass()
        )
    if isinstance(action, Play) and action.end is None and action.seat == state.to_act:
        same = [a for a in legal if isinstance(a, Play) and a.bone == action.bone]
        return len(same) == 1
    return False


@pytest.mark.parametrize("mode", MODES)
@settings(FAST, max_examples=25)
@given(seed=SEEDS, data=st.data())
def test_apply_accepts_exactly_the_legal_actions(mode: str, seed: int, data: Any) -> None:
    players = 4 if mode in HOUSE_MODES else 2
    table = TableSettings.build(mode, players=players)
    state = GameState.new(table)
    rng_order = full_set(table.max_pip)
    for _ in range(60):
        if state.phase is Phase.GAME_OVER:
            break
        if state.phase is Phase.AWAITING_DEAL:
            order = data.draw(st.permutations(rng_order))
            state.deal(order)
            continue
        action = junk_action(data.draw, state)
        before = state.to_json()
        may = accepted_is_legal(state, action)
        try:
            state.apply(action)
        except ActionError as exc:
            assert state.to_json() == before, "a refused action changed the state"
            assert not may or exc.code == "ambiguous_end", (action, exc)
        else:
            assert may, f"{action!r} was accepted but is not legal"
    check_views(state)
    check_round_trip(state)


def test_lead_orientation_survives_everything() -> None:
    table = TableSettings.build("threes", spinner=True)
    state = GameState.new(table, rock=0)
    state.deal_hands(
        [
            ["4-1", "6-6", "5-5", "3-2", "2-0", "6-3", "5-3"],
            ["4-4", "6-1", "1-1", "5-2", "6-0", "4-3", "2-2"],
        ]
    )
    state.apply(Play(0, Bone.parse("4-1"), None, lead_left=1))
    assert state.board.ends[:2] == [1, 4]
    check_round_trip(state)
    assert GameState.from_json(state.to_json()).board.ends[:2] == [1, 4]


def slow_requested(config: pytest.Config) -> bool:
    expression = str(config.getoption("markexpr") or "")
    if os.environ.get("ENGINE_SLOW"):
        return True
    return "slow" in expression and "not slow" not in expression


@pytest.mark.slow
def test_long_run(request: pytest.FixtureRequest) -> None:
    """About 10,000 games with full checks every 25 actions (minutes): ``pytest -m slow``."""
    if not slow_requested(request.config):
        pytest.skip("long run: select it with -m slow or ENGINE_SLOW=1")
    stats = GameStats()
    for i, shape in enumerate(SHAPES):
        table = settings_of(shape)
        for seed in range(190):
            rate = (0.0, 0.02, 0.3)[seed % 3]
            play_random_game(
                table, 7_919 * seed + i, timeout_rate=rate, check_every=25, stats=stats
            )
    assert stats.games == 190 * len(SHAPES)
