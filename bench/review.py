"""The coach's review, checked against what its moves actually gain, and timed.

    python bench/review.py [--games 12] [--seed 1] [--samples 200] [--json FILE]
                           [--check flagged|all] [--fit]

Plays N seeded one-on-one Citizen games to 150 between a Regular and a Rookie house player
through the site's own services (the embedded default: SQLite in a fresh VAR_DIR in a temporary
folder, nothing else running), each seat deciding with `engine.bots.decide` from its seat's view,
the Regular in seat 0 of even games and seat 1 of odd ones. Then, for every game and both seats,
the review is worked out by its Celery task (`coach.tasks.review_run`, run in this process as a
worker would, at the default number of sampled deals per decision) and timed.

Honest numbers: for every decision the review marks a mistake or a blunder, both moves (the one
played and the Shark's) are played out from `--samples` positions the seat may have been in
(deals of the bones it could not see, consistent with its view, drawn with a seed unrelated to
the review's), the same positions for both moves, to the end of the hand, with every seat
playing as the Regular house player does (`engine.bots.decide(..., "regular")`, a stronger and
different policy than the greedy one inside the review's estimate). A decision's gain is the
mean, over its samples, of the Shark's move's result less the played move's, in the review's
own units (points for the seat's side less against, a won or lost game counting 200). Reported:
the mean gain over those decisions with a 95% confidence interval (normal, over decisions), by
mark; the review's estimated cost of those moves (the gap between the two estimates times
``coach.services.COST_SCALE``) and the gain less the cost, each with its interval; and the
review's time per game (p50, p95, max), with the machine's load average.

``--check all`` plays out every move that was not the Shark's, not only the flagged ones, and
``--fit`` then finds the scale that makes the flagged moves' mean cost equal their mean gain
(see ``fit_scale``): fit on some seeds, report on others.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def log(message: str) -> None:
    print(f"[review {time.strftime('%H:%M:%S')}] {message}", flush=True)


def setup_django(var: Path) -> None:
    for name in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "CELERY_TASK_ALWAYS_EAGER"):
        os.environ[name] = ""
    os.environ["VAR_DIR"] = str(var)
    os.environ["DJANGO_SETTINGS_MODULE"] = "dominoes_site.settings"
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def play_game(index: int, seed: int, players: list[Any]) -> Any:
    """One game through tables.services; players[s] plays seat s with its house level."""
    import tables.services as services
    from engine import GameState, seat_view
    from engine.bots import decide
    from tables.models import Game, Hand

    rng = random.Random(f"{seed}:{index}")
    counter = iter(range(10**6))
    services.new_seed = lambda: hashlib.sha256(  # type: ignore[assignment]
        f"bench-review:{seed}:{index}:{next(counter)}".encode()
    ).hexdigest()
    users = [user for user, _level in players]
    table = services.table_create(host=users[0], mode="citizen", players=2)
    services.seat_take(table_id=table.pk, user=users[1], number=1)
    for user in users:
        services.hand_wash(table_id=table.pk, user=user, hand=1, entropy=rng.randbytes(32).hex())
    for user in users:
        services.seat_ready(table_id=table.pk, user=user, ready=True)
    washed = {1}
    bots = [random.Random(f"{seed}:{index}:bot{s}") for s in range(2)]
    for _ in range(5000):
        game = Game.objects.get(table=table, number=1)
        if game.status != Game.Status.PLAYING:
            return game
        state = GameState.from_json(game.state)
        pending = Hand.objects.filter(game=game, dealt_at=None).first()
        if pending is not None and pending.number not in washed:
            washed.add(pending.number)
            for s in state.wash_seats:
                services.hand_wash(
                    table_id=table.pk,
                    user=users[s],
                    hand=pending.number,
                    entropy=rng.randbytes(32).hex(),
                )
        seat = state.to_act
        assert seat is not None
        action = decide(seat_view(state, seat), players[seat][1], rng=bots[seat]).to_dict()
        action.pop("seat")
        services.game_act(table_id=table.pk, user=users[seat], version=game.version, action=action)
    raise RuntimeError("the game did not end")


def regular(rng: random.Random) -> Any:
    from engine import Pass, seat_view
    from engine.bots import decide

    def policy(state: Any) -> Any:
        if state.is_forced_pass():
            return Pass(state.to_act)
        return decide(seat_view(state, state.to_act), "regular", rng=rng)

    return policy


def gain(view: dict[str, Any], played: Any, best: Any, samples: int, seed: int) -> float:
    """The Shark's move's mean result less the played move's, from the same sampled positions,
    played out by Regular players."""
    from engine.bots import read_view
    from engine.coach import outcome, play_out, sampled_positions

    seen = read_view(view)
    rng = random.Random(seed)
    side = seen.side_of(seen.seat)
    before = seen.scores[:]
    total = 0.0
    for world in sampled_positions(seen, rng, samples):
        branch = rng.getrandbits(32)
        results = []
        for action in (best, played):
            state = world.copy()
            state.apply(action)
            play_out(state, regular(random.Random(branch)), random.Random(branch))
            results.append(outcome(state, side, before))
        total += results[0] - results[1]
    return total / samples


def interval(values: list[float]) -> dict[str, float | int | None]:
    n = len(values)
    if not n:
        return {"n": 0, "mean": None, "low": None, "high": None}
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(n) if n > 1 else float("inf")
    return {
        "n": n,
        "mean": round(mean, 2),
        "low": round(mean - half, 2),
        "high": round(mean + half, 2),
    }


def fit_scale(checks: list[dict[str, Any]], coach: Any) -> dict[str, Any]:
    """The scale that makes the flagged moves' mean cost equal the mean gain measured for them,
    the moves flagged being those whose scaled cost passes the inaccuracy's bound: the scale
    changes which moves are flagged, so it is found as a fixed point. ``checks`` must cover every
    move that was not the Shark's (``--check all``)."""
    bound = dict(coach.MARKS)["inaccuracy"]
    scale = 1.0
    for _ in range(50):
        chosen = [c for c in checks if scale * c["gap"] > bound]
        if not chosen:
            break
        new = sum(c["gain"] for c in chosen) / sum(c["gap"] for c in chosen)
        if abs(new - scale) < 1e-4:
            scale = new
            break
        scale = new
    chosen = [c for c in checks if scale * c["gap"] > bound]
    everything = sum(c["gain"] for c in checks) / sum(c["gap"] for c in checks) if checks else None
    return {
        "scale": round(scale, 3),
        "flagged_at_that_scale": len(chosen),
        "scale_over_every_move_checked": None if everything is None else round(everything, 3),
        "checked": len(checks),
    }


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = max(0, math.ceil(q * len(ordered)) - 1)
    return ordered[k]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument(
        "--check",
        choices=("flagged", "all"),
        default="flagged",
        help="play out the mistakes and blunders (default), or every move that was not the Shark's",
    )
    parser.add_argument(
        "--fit",
        action="store_true",
        help="fit the cost's scale (coach.services.COST_SCALE) to the gains measured: use --check "
        "all, on seeds the result is not then reported on",
    )
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="review-bench-"))
    load_before = os.getloadavg()
    try:
        setup_django(tmp / "var")
        import datetime as dt

        from accounts.models import User
        from coach import services as coach
        from coach.models import Review
        from coach.tasks import review_run
        from dominoes_site.celery import app

        # The task runs here, its parts (about a second each) one after another, as one worker
        # would take them from the queue with nothing else to do.
        app.conf.task_always_eager = True
        from engine import parse_action
        from engine.coach import WORLDS

        def person(name: str) -> Any:
            return User.objects.create_user(
                f"{name.lower()}@bench.invalid",
                None,
                display_name=name,
                date_of_birth=dt.date(1990, 1, 1),
            )

        reggie, rita = person("Reggie"), person("Rita")
        times: list[float] = []
        decisions = 0
        checks: list[dict[str, Any]] = []
        marks: dict[str, int] = {}
        for i in range(args.games):
            seats = [(reggie, "regular"), (rita, "rookie")]
            if i % 2:
                seats.reverse()
            started = time.perf_counter()
            game = play_game(i, args.seed, seats)
            played_in = time.perf_counter() - started
            for seat, (user, level) in enumerate(seats):
                review = Review.objects.create(game=game, user=user, seat=seat)
                started = time.perf_counter()
                review_run.apply((review.pk,))
                spent = time.perf_counter() - started
                review.refresh_from_db()
                assert review.status == Review.Status.DONE, review.error
                times.append(spent)
                views = {d.version: d for d in coach.seat_decisions(game, seat)}
                for d in review.result["decisions"]:
                    decisions += 1
                    marks[d["mark"]] = marks.get(d["mark"], 0) + 1
                    flagged_now = d["mark"] in ("mistake", "blunder")
                    if d["mark"] == "best" or (args.check == "flagged" and not flagged_now):
                        continue
                    view = views[d["version"]].view
                    played = parse_action(d["options"][d["played"]]["action"])
                    best = parse_action(d["options"][d["best"]]["action"])
                    value = gain(view, played, best, args.samples, seed=d["version"] * 7919 + i)
                    checks.append(
                        {
                            "game": i,
                            "level": level,
                            "mark": d["mark"],
                            "gap": d["gap"],
                            "cost": d["cost"],
                            "gain": round(value, 3),
                        }
                    )
            log(
                f"game {i + 1}/{args.games}: {game.state['scores']} in {played_in:.1f} s; "
                f"reviews {times[-2]:.1f} s and {times[-1]:.1f} s"
            )
        flagged = [c for c in checks if c["mark"] in ("mistake", "blunder")]
        gains = [f["gain"] for f in flagged]
        summary = {
            "games": args.games,
            "seed": args.seed,
            "worlds_per_decision": WORLDS,
            "samples_per_check": args.samples,
            "decisions": decisions,
            "marks": marks,
            "checked": interval(gains),
            "by_mark": {
                mark: interval([f["gain"] for f in flagged if f["mark"] == mark])
                for mark in ("mistake", "blunder")
            },
            "by_level": {
                level: interval([f["gain"] for f in flagged if f["level"] == level])
                for level in ("regular", "rookie")
            },
            "estimated_cost_mean": round(statistics.fmean(f["cost"] for f in flagged), 2)
            if flagged
            else None,
            "estimated_cost": interval([f["cost"] for f in flagged]),
            "gain_less_cost": interval([f["gain"] - f["cost"] for f in flagged]),
            "cost_scale": coach.COST_SCALE,
            "share_gaining": round(sum(1 for g in gains if g > 0) / len(gains), 3)
            if gains
            else None,
            "review_seconds": {
                "reviews": len(times),
                "p50": round(percentile(times, 0.5), 2),
                "p95": round(percentile(times, 0.95), 2),
                "max": round(max(times), 2),
            },
            "load_before": [round(x, 2) for x in load_before],
            "load_after": [round(x, 2) for x in os.getloadavg()],
            "cpus": os.cpu_count(),
        }
        if args.fit:
            summary["fit"] = fit_scale(checks, coach)
        summary["checks"] = checks
        print(json.dumps({k: v for k, v in summary.items() if k != "checks"}, indent=2))
        checked = summary["checked"]
        ok_gain = checked["low"] is not None and checked["low"] > 0
        ok_time = summary["review_seconds"]["p95"] < 30
        log(
            f"mistakes and blunders: the Shark's move gains {checked['mean']} "
            f"[{checked['low']}, {checked['high']}] over {checked['n']} decisions "
            f"({'positive' if ok_gain else 'NOT shown positive'}); review p95 "
            f"{summary['review_seconds']['p95']} s ({'under' if ok_time else 'OVER'} 30 s)"
        )
        cost, less = summary["estimated_cost"], summary["gain_less_cost"]
        log(
            f"their estimated cost (scale {coach.COST_SCALE}): {cost['mean']} "
            f"[{cost['low']}, {cost['high']}]; gain less cost {less['mean']} "
            f"[{less['low']}, {less['high']}]"
        )
        if "fit" in summary:
            log(f"fitted scale: {summary['fit']}")
        if args.json:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(summary, indent=2) + "\n")
        return 0 if ok_gain and ok_time else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
