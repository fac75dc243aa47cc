"""Puzzles mined from seeded games (engine/puzzles.py): each one clearly best, robust, not forced
or trivial, explained by its themes, and blind to the bones its seat could not see."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from engine import GameState, Play, TableSettings, seat_view
from engine.bots import VIEW_KEYS, read_view
from engine.coach import _position_key, analyse
from engine.puzzles import MARGIN, THEMES, Mined, judge, mine
from tests.engine.test_bots import bot_positions

WORLDS = 30  # few deals: the rules of mining are under test here, not the Shark's eyesight


def decisions(shape: dict[str, Any], seed: int) -> list[tuple[GameState, int]]:
    """Decisions of a seeded game (random moves and house players' moves): a copy of the state
    and the seat to act."""
    settings = TableSettings.build(shape["mode"], **{k: v for k, v in shape.items() if k != "mode"})
    return [(s.copy(), s.to_act) for s in bot_positions(settings, seed, 60)]  # type: ignore[misc]


SHAPES = [
    ({"mode": "citizen", "players": 2}, 1),
    ({"mode": "citizen", "players": 4, "partners": True}, 2),
]


@pytest.fixture(scope="module")
def mined() -> list[tuple[GameState, int, Mined]]:
    out = []
    for shape, seed in SHAPES:
        for state, seat in decisions(shape, seed):
            out.append((state, seat, mine(seat_view(state, seat), seed=seed, worlds=WORLDS)))
    return out


def test_every_puzzle_is_clearly_best_robust_and_explained(
    mined: list[tuple[GameState, int, Mined]],
) -> None:
    said = Counter(m.reason for _s, _seat, m in mined)
    assert said["puzzle"] >= 3 and said["forced"] and said["trivial"] and said["close"], said
    for state, seat, m in mined:
        if m.puzzle is None:
            assert m.reason in ("forced", "trivial", "close", "unstable")
            continue
        p = m.puzzle
        assert set(p.view) <= set(VIEW_KEYS)
        legal = read_view(p.view).legal
        assert p.answer and not set(p.answer) & set(p.runner_up)
        assert p.margin >= MARGIN / 2 and m.margin == pytest.approx(p.margin, abs=0.01)
        best = max(range(len(legal)), key=lambda i: p.estimates[i])
        assert best in p.answer
        assert p.estimates[p.answer[0]] - p.estimates[p.runner_up[0]] >= MARGIN
        # not trivial: some other position scores at least as much at once
        top = max(p.points)
        others = [p.points[i] for i in range(len(legal)) if i not in p.answer]
        assert p.points[p.answer[0]] < top or max(others) >= top
        assert all(judge(p, legal[i]) for i in p.answer)
        assert not any(judge(p, legal[i]) for i in p.runner_up)
        assert set(p.themes) <= set(THEMES) and set(p.themes) == set(p.reasons)
        if state.settings.partners:
            assert "partners" in p.themes
        # the same every time
        again = mine(
            seat_view(state, seat),
            seed=SHAPES[0][1] if not state.settings.partners else SHAPES[1][1],
            worlds=WORLDS,
        )
        assert again == m


def test_forced_and_trivial_are_what_they_say(mined: list[tuple[GameState, int, Mined]]) -> None:
    for state, seat, m in mined:
        view = seat_view(state, seat)
        seen = read_view(view)
        plays = [a for a in seen.legal if isinstance(a, Play)]
        positions = {_position_key(seen.board, a, i) for i, a in enumerate(plays)}
        forced = len(plays) != len(seen.legal) or len(positions) < 2
        assert (m.reason == "forced") == forced
        if m.reason == "trivial":
            seed = SHAPES[1][1] if state.settings.partners else SHAPES[0][1]
            analysis = analyse(view, seed=seed, worlds=WORLDS)
            assert analysis is not None
            best = analysis.best
            points = [o.points for o in analysis.options]
            mirror = _position_key(seen.board, analysis.options[best].action, best)
            rivals = [
                points[i]
                for i, o in enumerate(analysis.options)
                if _position_key(seen.board, o.action, i) != mirror
            ]
            assert points[best] > max(rivals)


def swapped_unseen(state: GameState, seat: int, rng: random.Random) -> GameState | None:
    """The same game with two bones the seat cannot see trading places (another hand's and the
    yard's, or two other hands'): everything the seat sees is unchanged."""
    tampered = state.copy()
    places = [
        (s, i)
        for s in range(len(tampered.hands))
        if s != seat
        for i in range(len(tampered.hands[s]))
    ]
    places += [(-1, i) for i in range(len(tampered.yard))]
    pairs = [(a, b) for a in places for b in places if a[0] != b[0] and a < b]
    if not pairs:
        return None
    (sa, ia), (sb, ib) = rng.choice(pairs)
    pile_a = tampered.yard if sa == -1 else tampered.hands[sa]
    pile_b = tampered.yard if sb == -1 else tampered.hands[sb]
    pile_a[ia], pile_b[ib] = pile_b[ib], pile_a[ia]
    return tampered


def test_a_puzzle_does_not_depend_on_bones_its_seat_could_not_see(
    mined: list[tuple[GameState, int, Mined]],
) -> None:
    """The tamper test: swap unseen bones; the puzzle, its answer and its reasons stay."""
    rng = random.Random(7)
    checked = 0
    for state, seat, m in mined:
        if m.puzzle is None:
            continue
        seed = SHAPES[1][1] if state.settings.partners else SHAPES[0][1]
        for _ in range(2):
            tampered = swapped_unseen(state, seat, rng)
            if tampered is None:
                continue
            assert tampered.hands != state.hands or tampered.yard != state.yard
            assert seat_view(tampered, seat) == seat_view(state, seat)
            assert mine(seat_view(tampered, seat), seed=seed, worlds=WORLDS) == m
            checked += 1
    assert checked >= 3
