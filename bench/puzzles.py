"""Puzzles mined from seeded games: how many per CPU-minute, how many survive the robustness
checks, their themes, and a blind test with the Regular house player.

    python bench/puzzles.py [--games 4] [--seed 1] [--worlds 200] [--tries 10] [--json FILE]

For each table shape below, ``--games`` seeded games are played with the engine alone (no site),
every seat a house player (Regular and Rookie in turn, as the house seats them), and every
decision of every seat is offered to :func:`engine.puzzles.mine` from that seat's view. Reported:

* decisions by what the miner said (forced, trivial, close, unstable, puzzle), and the CPU time
  the miner took (``time.process_time``: the analysis and its checks, not the games);
* **puzzles per CPU-minute**, and the **share kept by the robustness check** (puzzles out of the
  positions that passed the margin: the rest came out differently with other seeds and twice
  the deals);
* themes, and per theme the **Regular's first-try success**: the Regular house player is shown
  the puzzle's view and plays once (``engine.bots.decide(view, "regular")``); and the share of
  puzzles it solves in every one of ``--tries`` tries (its tie-breaks are random): those are
  too easy for anyone who plays the Regular's rules, and the site gives them a low starting
  rating rather than dropping them (they are good first puzzles).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import GameState, Pass, Phase, TableSettings, seat_view
from engine.bones import full_set
from engine.bots import decide
from engine.puzzles import THEMES, Puzzle, judge, mine

SHAPES: list[tuple[str, dict[str, Any]]] = [
    ("citizen, one on one", {"mode": "citizen", "players": 2}),
    ("citizen, cut throat 3", {"mode": "citizen", "players": 3}),
    ("citizen, partners", {"mode": "citizen", "players": 4, "partners": True}),
    ("inmate, cut throat 4", {"mode": "inmate", "players": 4}),
    ("fives, double-six, spinner", {"mode": "fives", "spinner": True}),
    ("threes, double-nine", {"mode": "threes", "set": "double-nine"}),
]


def play_and_mine(
    shape: dict[str, Any], game: int, seed: int, worlds: int
) -> tuple[Counter[str], list[Puzzle], float]:
    """One seeded game; every decision offered to the miner. Returns what the miner said, the
    puzzles, and the miner's CPU seconds."""
    settings = TableSettings.build(shape["mode"], **{k: v for k, v in shape.items() if k != "mode"})
    rng = random.Random(f"puzzles:{seed}:{shape}:{game}")
    levels = ["regular" if (s + game) % 2 == 0 else "rookie" for s in range(settings.players)]
    state = GameState.new(settings)
    said: Counter[str] = Counter()
    found: list[Puzzle] = []
    cpu = 0.0
    for _ in range(20000):
        if state.phase is Phase.GAME_OVER:
            break
        if state.phase is Phase.AWAITING_DEAL:
            order = full_set(settings.max_pip)
            rng.shuffle(order)
            state.deal(order)
            continue
        seat = state.to_act
        assert seat is not None
        if state.is_forced_pass():
            state.apply(Pass(seat))
            continue
        view = seat_view(state, seat)
        started = time.process_time()
        mined = mine(view, seed=rng.getrandbits(32), worlds=worlds)
        cpu += time.process_time() - started
        said[mined.reason] += 1
        if mined.puzzle is not None:
            found.append(mined.puzzle)
        state.apply(decide(view, levels[seat], rng=rng))
    return said, found, cpu


def blind_test(puzzle: Puzzle, tries: int, seed: int) -> tuple[bool, int]:
    """The Regular's first try, and how many of ``tries`` it solves."""
    rng = random.Random(seed)
    results = [judge(puzzle, decide(puzzle.view, "regular", rng=rng)) for _ in range(tries)]
    return results[0], sum(results)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="games per table shape")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--worlds", type=int, default=200)
    parser.add_argument("--tries", type=int, default=10)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()

    import engine

    said: Counter[str] = Counter()
    puzzles: list[tuple[str, Puzzle]] = []
    cpu = 0.0
    for name, shape in SHAPES:
        shape_said: Counter[str] = Counter()
        shape_found = 0
        for game in range(args.games):
            got, found, spent = play_and_mine(shape, game, args.seed, args.worlds)
            shape_said.update(got)
            shape_found += len(found)
            puzzles.extend((name, p) for p in found)
            cpu += spent
        said.update(shape_said)
        print(f"{name}: {sum(shape_said.values())} decisions, {shape_found} puzzles", flush=True)

    by_theme: dict[str, dict[str, Any]] = {}
    first_tries: list[bool] = []
    always = 0
    for i, (_name, puzzle) in enumerate(puzzles):
        first, solved = blind_test(puzzle, args.tries, args.seed * 100_003 + i)
        first_tries.append(first)
        always += solved == args.tries
        for theme in puzzle.themes or ["(none)"]:
            row = by_theme.setdefault(theme, {"puzzles": 0, "first_try": 0, "always": 0})
            row["puzzles"] += 1
            row["first_try"] += first
            row["always"] += solved == args.tries
    passed_margin = said["puzzle"] + said["unstable"]
    summary = {
        "engine": "compiled" if engine.COMPILED else "pure",
        "games_per_shape": args.games,
        "shapes": [name for name, _ in SHAPES],
        "seed": args.seed,
        "worlds": args.worlds,
        "decisions": dict(said),
        "puzzles": len(puzzles),
        "miner_cpu_seconds": round(cpu, 1),
        "puzzles_per_cpu_minute": round(60 * len(puzzles) / cpu, 1) if cpu else None,
        "kept_by_robustness": round(said["puzzle"] / passed_margin, 3) if passed_margin else None,
        "margin_median": round(statistics.median(p.margin for _n, p in puzzles), 1)
        if puzzles
        else None,
        "regular_first_try": round(sum(first_tries) / len(first_tries), 3) if first_tries else None,
        "regular_always": round(always / len(puzzles), 3) if puzzles else None,
        "by_theme": {
            theme: {
                **row,
                "first_try_share": round(row["first_try"] / row["puzzles"], 3),
            }
            for theme, row in sorted(
                by_theme.items(),
                key=lambda kv: THEMES.index(kv[0]) if kv[0] in THEMES else len(THEMES),
            )
        },
    }
    print(json.dumps(summary, indent=2))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
