"""Engine speed: seeded random full hands, 4 players x 7, Citizen rules, against `dominoes`.

    python bench/engine_speed.py [--hands N] [--seed S] [--repeat R]

Plays N random hands with our engine (legal_actions + apply, events and scoring included: the
first-hand lead rule, the doubles choice, forced passes, locked boards, the count) and, in the
same run, N random hands with the `dominoes` package (a simpler game: a plain line, no scoring).
The two take turns, round after round (R rounds each, interleaved, so that a machine that drifts
slows both alike); each round's ratio is ours/theirs over the same seed. Prints hands/second for
each (median of the rounds), the median ratio with the lowest and highest, and the size of a
serialised mid-game state.

Both sides pick each move the same way, uniformly among the legal ones with one ``random()``
(``pick``), so that the bench times the engines and not the way a move is chosen; before
2026-12-03 ours used ``random.choice`` and theirs the package's random player (a sort with a
Python key per move). Our engine runs compiled when native/build.py has built it (see
engine/_native.py; ``DOMINOES_ENGINE=pure`` times the pure Python); the first line says which.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import dominoes  # type: ignore[import-untyped]

import engine
from engine import GameState, Phase, TableSettings, full_set

SETTINGS = TableSettings.build("citizen", players=4)
BONES = full_set(6)
AWAITING_DEAL, PLAYING, CHOOSING = Phase.AWAITING_DEAL, Phase.PLAYING, Phase.CHOOSING_DOUBLES


def ours(hands: int, seed: int) -> int:
    """Play ``hands`` random hands; return the number of actions applied."""
    rng = random.Random(seed)
    pick = rng.random
    shuffle = rng.shuffle
    actions = 0
    done = 0
    state = GameState.new(SETTINGS)
    while done < hands:
        if state.phase is not AWAITING_DEAL:
            state = GameState.new(SETTINGS)
        order = BONES[:]
        shuffle(order)
        state.deal(order)
        if state.phase is AWAITING_DEAL:
            continue  # a redeal (never with 4 x 7, where every double is dealt)
        while state.phase is PLAYING or state.phase is CHOOSING:
            legal = state.legal_actions()
            state.apply(legal[int(pick() * len(legal))])
            actions += 1
        done += 1
    return actions


def theirs(hands: int, seed: int) -> int:
    random.seed(seed)  # the package deals with the module's generator
    pick = random.Random(seed).random
    moves = 0
    for _ in range(hands):
        game = dominoes.Game.new()
        while game.result is None:
            valid = game.valid_moves
            game.make_move(*valid[int(pick() * len(valid))])
            moves += 1
    return moves


def mid_game_state_size(seed: int) -> tuple[int, int]:
    """Bytes of a compact JSON state after about half a hand (4 x 7), and of one with a yard
    (2 x 7 after some draws)."""
    sizes = []
    for players in (4, 2):
        rng = random.Random(seed)
        state = GameState.new(TableSettings.build("citizen_gym", players=players))
        order = BONES[:]
        rng.shuffle(order)
        state.deal(order)
        for _ in range(12):
            if state.phase is not Phase.PLAYING and state.phase is not Phase.CHOOSING_DOUBLES:
                break
            state.apply(rng.choice(state.legal_actions()))
        sizes.append(len(json.dumps(state.to_json(), separators=(",", ":"))))
    return sizes[0], sizes[1]


def rate(run: object, hands: int, seed: int) -> tuple[float, int]:
    """Hands per second of one round, and the steps it took."""
    assert callable(run)
    start = time.perf_counter()
    steps = run(hands, seed)
    return hands / (time.perf_counter() - start), steps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    ours_rates: list[float] = []
    their_rates: list[float] = []
    ratios: list[float] = []
    our_actions = their_moves = 0
    for r in range(args.repeat):  # interleaved: ours, theirs, ours, theirs, ...
        ours_rate, our_actions = rate(ours, args.hands, args.seed + r)
        their_rate, their_moves = rate(theirs, args.hands, args.seed + r)
        ours_rates.append(ours_rate)
        their_rates.append(their_rate)
        ratios.append(ours_rate / their_rate)
    size4, size2 = mid_game_state_size(args.seed)
    print(
        f"hands per round: {args.hands}, {args.repeat} interleaved rounds, seed {args.seed};"
        f" our engine {'compiled' if engine.COMPILED else 'pure Python'}"
    )
    print(
        f"engine:   {median(ours_rates):9.0f} hands/s median"
        f"  ({our_actions / args.hands:.1f} actions/hand)"
    )
    print(
        f"dominoes: {median(their_rates):9.0f} hands/s median"
        f"  ({their_moves / args.hands:.1f} moves/hand)"
    )
    print(
        f"ratio engine/dominoes: {median(ratios):.2f}x median"
        f" (rounds {min(ratios):.2f}x to {max(ratios):.2f}x)"
    )
    print(f"mid-game state JSON: {size4} bytes (4 x 7), {size2} bytes (2 x 7 with a yard)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
