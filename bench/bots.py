"""House players' strength and speed: seeded one-on-one Citizen games to 150 between two levels.

    python bench/bots.py [--games 400] [--match shark:regular --match regular:rookie]
                         [--seed 1] [--jobs 1] [--seconds 0.12] [--worlds 400]

Each match plays N games between two levels (engine only, no site): game i is dealt from seed
(seed, match, i), the first level sits in seat 0 in even games and in seat 1 in odd ones, and each
bot decides from `engine.views.seat_view` of its seat, exactly as at the site. Forced passes are
made for the players, as the site does.

Prints, per match, the first level's wins with a 95% confidence interval (Wilson), and per level
the time of one decision (`engine.bots.decide`, the view's reading included): p50, p95 and max
over every decision it made, and over the decisions with a real choice (two or more plays).

The Shark thinks for at most `--seconds` (wall clock) and `--worlds` sampled deals, so its
strength depends on the machine and on what else runs on it: the report prints the load average
before and after. `--jobs N` plays the games in N processes (faster, but the processes share the
machine's cores with each other and with anything else, which the Shark's time per decision
shows). `--worlds-only` drops the time limit, so a run is exactly reproducible.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import GameState, Pass, Phase, Play, TableSettings, full_set, seat_view
from engine.bots import LEVELS, Budget, decide

SETTINGS = TableSettings.build("citizen", players=2)
BONES = full_set(6)


@dataclass
class GameRecord:
    winner_level: str
    times: dict[str, list[float]] = field(default_factory=dict)
    choice_times: dict[str, list[float]] = field(default_factory=dict)
    hands: int = 0
    relaxed: int = 0


def play_game(levels: tuple[str, str], seed: int, budget: Budget) -> GameRecord:
    """One game; ``levels[s]`` sits in seat s."""
    rng = random.Random(seed)
    bot_rngs = [random.Random(seed * 7 + 1), random.Random(seed * 7 + 2)]
    state = GameState.new(SETTINGS)
    times: dict[str, list[float]] = {level: [] for level in levels}
    choice_times: dict[str, list[float]] = {level: [] for level in levels}
    hands = 0
    for _ in range(100_000):
        if state.is_over:
            break
        if state.phase is Phase.AWAITING_DEAL:
            order = BONES[:]
            rng.shuffle(order)
            state.deal(order)
            hands += 1
            continue
        if state.is_forced_pass():
            assert state.to_act is not None
            state.apply(Pass(state.to_act))
            continue
        seat = state.to_act
        assert seat is not None
        level = levels[seat]
        view = seat_view(state, seat)
        started = time.perf_counter()
        action = decide(view, level, rng=bot_rngs[seat], budget=budget)
        spent = time.perf_counter() - started
        times[level].append(spent)
        if sum(1 for a in view["legal_actions"] if a["type"] == "play") >= 2:
            choice_times[level].append(spent)
        assert action.to_dict() in view["legal_actions"] or isinstance(action, Play)
        state.apply(action)
    result = state.result
    assert result is not None
    return GameRecord(levels[result.winner], times, choice_times, hands)


def _job(args: tuple[str, str, int, int, int, Budget]) -> GameRecord:
    first, second, seed, match, i, budget = args
    levels = (first, second) if i % 2 == 0 else (second, first)
    return play_game(levels, seed * 1_000_003 + match * 10_007 + i, budget)


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (centre - half, centre + half)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[index]


def ms(value: float) -> str:
    return f"{value * 1000:.1f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--match", action="append", default=None,
                        help="FIRST:SECOND levels, e.g. shark:regular (repeatable)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=Budget().seconds)
    parser.add_argument("--worlds", type=int, default=Budget().worlds)
    parser.add_argument("--worlds-only", action="store_true", help="no time limit")
    args = parser.parse_args(argv)
    matches = args.match or ["shark:regular", "regular:rookie"]
    budget = Budget(seconds=None if args.worlds_only else args.seconds, worlds=args.worlds)
    print(f"{os.cpu_count()} cores; load average before: {os.getloadavg()}")
    print(f"Citizen one on one to 150; {args.games} games a match; seed {args.seed}; "
          f"jobs {args.jobs}; Shark budget {budget}")  # fmt: skip
    all_times: dict[str, list[float]] = {level: [] for level in LEVELS}
    all_choice: dict[str, list[float]] = {level: [] for level in LEVELS}
    started = time.perf_counter()
    for m, match in enumerate(matches):
        first, second = match.split(":")
        assert first in LEVELS and second in LEVELS, match
        work = [(first, second, args.seed, m, i, budget) for i in range(args.games)]
        match_started = time.perf_counter()
        if args.jobs > 1:
            with multiprocessing.Pool(args.jobs) as pool:
                records = pool.map(_job, work, chunksize=1)
        else:
            records = [_job(w) for w in work]
        wins = sum(1 for r in records if r.winner_level == first)
        low, high = wilson(wins, len(records))
        hands = statistics.mean(r.hands for r in records)
        print(
            f"{first} vs {second}: {first} won {wins}/{len(records)} = "
            f"{wins / len(records):.1%} (95% CI {low:.1%} to {high:.1%}); "
            f"{hands:.1f} hands a game; {time.perf_counter() - match_started:.0f} s"
        )
        for r in records:
            for level, values in r.times.items():
                all_times[level] += values
            for level, values in r.choice_times.items():
                all_choice[level] += values
    print("time per decision in ms (p50 / p95 / max; all decisions, then those with a choice):")
    for level in LEVELS:
        values, choice = all_times[level], all_choice[level]
        if not values:
            continue
        print(
            f"  {level:8} {len(values):7} decisions: {ms(percentile(values, 0.5))} / "
            f"{ms(percentile(values, 0.95))} / {ms(max(values))};  "
            f"{len(choice):6} with a choice: {ms(percentile(choice, 0.5))} / "
            f"{ms(percentile(choice, 0.95))} / {ms(max(choice) if choice else float('nan'))}"
        )
    print(f"load average after: {os.getloadavg()}; {time.perf_counter() - started:.0f} s in all")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
