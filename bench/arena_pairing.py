"""Arena pairing speed: seeded waves of waiting players through `tournaments.arena.pair_wave`.

    python bench/arena_pairing.py [--players 500] [--waves 1000] [--seed 1]
                                  [--rematch-share 0.5] [--house-share 0.02] [--clubs 0]

Pure Python, no site and no database. Each wave is made up beforehand (not timed) from the seed:
`--players` waiting players with arena scores 0 to 60 (most low: a running arena), ratings from
N(1500, 250); sorted by score, neighbours are made each other's last opponent with probability
`--rematch-share` (the worst case for the greedy pairing: the player it would pick first is the
one it may not pick), the rest have a last opponent drawn from everyone (or none, one in ten);
`--house-share` of them are house players; with `--clubs N` everyone is in one of N clubs (a club
battle: clubmates never meet). Then every wave is paired once and timed alone
(`time.perf_counter`), after `--warmup` untimed waves.

Prints the time per wave (p50 / p90 / p99 / max), what the waves paired (players paired, left
waiting, the score gap within a pair), the worst wave it can be given (a club battle in which
the better half of the list is one club and the other half another: each of the first half
looks past all their clubmates below before finding an opponent), then the whole report as one
JSON line.

Target (the issue's): a wave of 500 waiting players paired well under 100 ms.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tournaments.arena import Waiting, pair_wave

TARGET_MS = 100.0


def make_wave(
    rng: random.Random, players: int, rematch_share: float, house_share: float, clubs: int
) -> list[Waiting]:
    """One wave's waiting players (see the module's docstring)."""
    ids = rng.sample(range(1, 1_000_000), players)
    scores = {p: min(60, int(rng.expovariate(1 / 12))) for p in ids}
    ratings = {p: rng.gauss(1500, 250) for p in ids}
    last: dict[int, int | None] = {p: None if rng.random() < 0.1 else rng.choice(ids) for p in ids}
    by_score = sorted(ids, key=lambda p: (-scores[p], -ratings[p]))
    for a, b in zip(by_score[::2], by_score[1::2], strict=False):
        if rng.random() < rematch_share:
            last[a], last[b] = b, a
    return [
        Waiting(
            p,
            scores[p],
            ratings[p],
            last[p],
            house=rng.random() < house_share,
            club=rng.randrange(clubs) if clubs else None,
        )
        for p in ids
    ]


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank percentile (as bench/bots.py)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def timed(wave: list[Waiting]) -> float:
    started = time.perf_counter()
    pair_wave(wave)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--waves", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rematch-share", type=float, default=0.5)
    parser.add_argument("--house-share", type=float, default=0.02)
    parser.add_argument("--clubs", type=int, default=0)
    args = parser.parse_args(argv)

    rng = random.Random(args.seed)
    waves = [
        make_wave(rng, args.players, args.rematch_share, args.house_share, args.clubs)
        for _ in range(args.warmup + args.waves)
    ]
    for wave in waves[: args.warmup]:
        pair_wave(wave)
    times_ms = [timed(wave) * 1000 for wave in waves[args.warmup :]]

    paired = left = 0
    gaps: list[int] = []
    for wave in waves[args.warmup :]:
        result = pair_wave(wave)
        score = {w.player: w.score for w in wave}
        paired += 2 * len(result.pairs)
        left += len(result.left)
        gaps += [abs(score[a] - score[b]) for a, b in result.pairs]

    # The worst wave for this algorithm: the better half all in one club, the other half in
    # another, so each player of the better half looks past all their clubmates below.
    ranked = sorted(waves[-1], key=lambda w: (-w.score, -w.rating, w.player))
    half = len(ranked) // 2
    worst = [
        Waiting(w.player, w.score, w.rating, club=int(i >= half)) for i, w in enumerate(ranked)
    ]
    worst_ms = min(timed(worst) for _ in range(5)) * 1000

    report = {
        "bench": "arena_pairing",
        "python": platform.python_version(),
        "cores": os.cpu_count(),
        "load_before": os.getloadavg()[0],
        "players": args.players,
        "waves": args.waves,
        "seed": args.seed,
        "rematch_share": args.rematch_share,
        "house_share": args.house_share,
        "clubs": args.clubs,
        "wave_ms": {
            "p50": round(percentile(times_ms, 0.50), 3),
            "p90": round(percentile(times_ms, 0.90), 3),
            "p99": round(percentile(times_ms, 0.99), 3),
            "max": round(max(times_ms), 3),
            "mean": round(statistics.fmean(times_ms), 3),
        },
        "paired_per_wave": round(paired / args.waves, 1),
        "left_per_wave": round(left / args.waves, 1),
        "score_gap": {
            "mean": round(statistics.fmean(gaps), 2) if gaps else None,
            "p99": percentile([float(g) for g in gaps], 0.99) if gaps else None,
            "max": max(gaps, default=None),
        },
        "worst_wave_ms": round(worst_ms, 3),
        "target_ms": TARGET_MS,
        "met": percentile(times_ms, 0.99) < TARGET_MS and worst_ms < TARGET_MS,
    }
    ms = report["wave_ms"]
    print(
        f"{args.waves} waves of {args.players} waiting players, seed {args.seed}, "
        f"rematch share {args.rematch_share}, house share {args.house_share}, "
        f"clubs {args.clubs or 'none'}; Python {report['python']}, {report['cores']} cores, "
        f"load {report['load_before']:.2f}"
    )
    print(
        f"time per wave: p50 {ms['p50']:.3f} ms, p90 {ms['p90']:.3f} ms, "
        f"p99 {ms['p99']:.3f} ms, max {ms['max']:.3f} ms (target < {TARGET_MS:.0f} ms)"
    )
    print(
        f"per wave: {report['paired_per_wave']} paired, {report['left_per_wave']} left waiting; "
        f"score gap in a pair: mean {report['score_gap']['mean']}, "
        f"p99 {report['score_gap']['p99']}, max {report['score_gap']['max']}"
    )
    print(f"worst wave (the better half one club, the other half another): {worst_ms:.3f} ms")
    print(json.dumps(report, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
