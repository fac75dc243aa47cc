"""A big arena on the site: pairing waves with 500 waiting, and standings frames to 1,000 sockets.

    .venv/bin/python bench/arena.py --stack embedded                 # SQLite, in-memory layer
    .venv/bin/python bench/arena.py --stack production               # PostgreSQL + Redis
    DATABASE_URL=postgres://postgres@127.0.0.1:55432/bench_arena \\
        REDIS_URL=redis://127.0.0.1:56379/9 .venv/bin/python bench/arena.py --stack production
    .venv/bin/python bench/arena.py --stack embedded --quick         # a smaller, shorter run

Everything runs through the site's own code (the sweep's own functions, `tournaments.services`,
`tables.services`), with the arena's clock frozen and moved on by the script (`now=`), so a wave
is due whenever the script wants one. The script starts what it needs on 127.0.0.1 (with
`bench/ws_load.py`'s `Stack`): a fresh VAR_DIR in a temporary folder (`--var-dir` to choose it),
for `production` the PostgreSQL and Redis named by `--database-url` / `--redis-url` (or the
DATABASE_URL / REDIS_URL variables; the database, whose name must start with "bench", is dropped
and made again, and the Redis database, which must not be 0, is emptied), or without them a
private cluster and redis-server as ws_load.py starts them; then `manage.py migrate`. DEBUG off.

1. Set-up (a Django process): `--players` adult accounts and `--viewers` more, each with a
   logged-in session (written directly, as ws_load.py does); an organizer; one free arena of
   `--minutes` (Citizen Gym one on one to 150, the mode's own turn clock) for `--players`,
   which every player joins (`services.entry_register`).
2. Waves (a Django process, no socket open). The arena starts (`services._step_start`), then
   `--waves` times: the sweep's step for the event (`services._step_round` -> `arenas.step` ->
   `arenas._wave`) pairs everyone waiting; the organizer settles every pairing at once
   (`services.match_settle`, a winner drawn at random: a result through the site's result path,
   so the standings, the last opponents and the scores move as in play); the clock moves on
   `WAVE_SECONDS`. So every wave has 500 waiting (499 every other wave: one player pauses and
   comes back at the next, `arenas.arena_pause`, so the odd one out is chosen too), and each
   finds 250 more games played than the last (24 waves: 6,000 games, about a full two-hour
   arena of 500). Timed: each wave (`arenas._wave`, its database work and the frame sent after
   its commit included) wall clock and CPU, its queries, and its parts (`waiting_players`,
   `standings`, `_sit_out_the_freshest`, `arena.pair_wave`). Then one more wave as the beat's
   sweep makes it (`services.tournament_sweep`): the wave, and every pair's table opened in the
   same pass; every player presses Ready (`tables.services.seat_ready`: the games start); the
   next sweep (the matches become "playing"); and a sweep with nothing due. After every wave
   and sweep: no player may be in two live games (ready, waiting or playing) at once; every
   one found is counted (must be 0).
3. Frames. `--sockets` notices sockets (`/ws/notices/`, as every page opens; the players'
   first, then the viewers'; to `--daphnes` daphnes serving `dominoes_site.asgi:application`),
   each watching the arena as the event's page does (`{"type": "watch", "topic":
   "tournament", "id": N}`) and pinging every 25 s, from `--client-procs` processes. Then, for
   `--frame-seconds`, a Django process keeps the arena going: every tick (`--tick` s of real
   time, the arena's clock moving `--tick-clock` s) it ends up to `--results` x tick games by
   their Gym clock (five dumbbells in the first turn: `tables.services.clock_expire` with a
   `now` past the deadline, the timer's own path; a forfeit the tables record like any finished
   game), presses Ready at the new tables and sweeps (`tournament_sweep`): results are counted,
   waves pair whoever finished. `--sweepers` more processes (default 1) sweep the same arena at
   the same clock every `--sweeper-pause` s, as a Celery worker's second process does when a
   sweep outlasts the beat's 3 s: the claims must keep them apart. Every result and table
   changes the standings, so the site wants to send a frame many times a second; it may send
   one a second (`arenas.FRAME_SECONDS`), whichever process sends it. Measured: frames sent (by
   whom; none twice); each socket's frames (each must come once; the sending moments at least
   1 s apart); from the `group_send` to each socket (every delivery, and per frame to the last
   socket), and from the frame's `at` (when the sender claimed it, before building it); the
   CPU of the daphnes and Redis per frame, and of the senders inside `send_frame`; the CPU of
   PostgreSQL (the backends of this database, or the private cluster), of the senders, the
   clients and the rest of the machine in the window.

The client reads a frame's `seq` and `at` from its bytes rather than decoding its JSON (17 KB
for 500 players): decoding it made the client, on the same two cores, the slowest part.

Reported, printed and written to `bench/results/arena-<stack>.json` (`--no-record` not to,
`--json FILE` as well): the load before, the figures, and the targets (the issue's): wave p99 <=
1 s with 500 waiting; frames at most one per event per second to every socket; no player ever
in two games.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import itertools
import json
import logging
import math
import multiprocessing as mp
import os
import random
import re
import resource
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import ws_load  # noqa: E402  (the benches' own stack, shared)
from bench.ws_load import cpu_seconds, cpu_seconds_with_children  # noqa: E402

#: The issue's targets.
TARGET_WAVE_P99_S = 1.0
TARGET_FRAMES_PER_S = 1.0
APP = "dominoes_site.asgi:application"
PING_SECONDS = 25.0  # static/js/notices.js pings this often
STANDINGS = b'"kind":"arena_standings"'
SEQ = re.compile(rb'"seq":(\d+)')
AT = re.compile(rb'"at":(\d+)')


def log(message: str) -> None:
    print(f"[arena {time.strftime('%H:%M:%S')}] {message}", flush=True)


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank percentile (as bench/arena_pairing.py); nan for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def summary(values: list[float], scale: float = 1.0, digits: int = 1) -> dict[str, float]:
    """n, p50, p90, p99, max and mean of `values` times `scale`."""
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        "p50": round(percentile(values, 0.50) * scale, digits),
        "p90": round(percentile(values, 0.90) * scale, digits),
        "p99": round(percentile(values, 0.99) * scale, digits),
        "max": round(max(values) * scale, digits),
        "mean": round(statistics.fmean(values) * scale, digits),
    }


# --- the Django side (each role runs as its own process, with the stack's environment) ---------


def _django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dominoes_site.settings")
    import django

    django.setup()


def setup_role(spec: dict[str, Any]) -> dict[str, Any]:
    """Players, viewers, an organizer and the arena, every player joined."""
    _django()
    from django.conf import settings
    from django.contrib.auth.models import Group
    from django.utils import timezone

    from tournaments import services
    from tournaments.models import ORGANIZERS_GROUP

    started = time.monotonic()
    players, player_sessions = ws_load.players_with_sessions("Arena", spec["players"])
    _viewers, viewer_sessions = ws_load.players_with_sessions("Viewer", spec["viewers"])
    (organizer,), _ = ws_load.players_with_sessions("Organizer", 1)
    organizer.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    now = timezone.now()
    tournament = services.tournament_create(
        organizer=organizer,
        name="Bench Arena",
        description="bench/arena.py",
        rules_text="Citizen Gym to 150, one game a pairing.",
        mode="citizen_gym",
        table_options={"players": 2},
        format="arena",
        arena_minutes=spec["minutes"],
        swiss_rounds=None,
        best_of=1,
        fee_kind="free",
        fee_dollars=0,
        fee_canteen={},
        prize_split=[50, 30, 20],
        max_entrants=max(spec["players"], 3),
        registration_opens=now - dt.timedelta(minutes=1),
        registration_closes=now + dt.timedelta(minutes=10),
        starts_at=now + dt.timedelta(minutes=20),
        checkin_minutes=15,
        round_minutes=0,
        noshow_minutes=3,
        seeding="random",
    )
    tournament = services.tournament_publish(tournament_id=tournament.pk, by=organizer)
    joined = time.monotonic()
    for user in players:
        services.entry_register(tournament_id=tournament.pk, user=user)
    return {
        "cookie": settings.SESSION_COOKIE_NAME,
        "tournament": tournament.pk,
        "settings": tournament.table_settings,
        "players": [u.pk for u in players],
        "sessions": player_sessions + viewer_sessions,
        "setup_seconds": round(time.monotonic() - started, 1),
        "join_ms_each": round((time.monotonic() - joined) / max(1, len(players)) * 1000, 1),
    }


class Timers:
    """Wall and CPU time spent in some of the site's functions, wrapped in place (the sweep
    calls them through their modules, so the real path is timed)."""

    def __init__(self) -> None:
        self.wall: defaultdict[str, float] = defaultdict(float)
        self.calls: Counter[str] = Counter()
        self.waves: list[dict[str, Any]] = []
        self.frames: list[dict[str, Any]] = []
        self.queries = 0

    def count_query(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        self.queries += 1
        return execute(sql, params, many, context)

    def reset(self) -> None:
        self.wall.clear()
        self.calls.clear()

    def wrap(self, module: Any, name: str, label: str) -> None:
        original = getattr(module, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            began = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.wall[label] += time.perf_counter() - began
                self.calls[label] += 1

        setattr(module, name, timed)


def instrument(timers: Timers) -> None:
    """Time the steps of the sweep, each wave and each frame sent, in this process."""
    from django.db import connection

    from tournaments import arena as arena_rules
    from tournaments import arenas, services

    timers.wrap(services, "_match_playing", "results")  # a game over is counted
    timers.wrap(services, "_match_waiting", "started")  # ... a table's game began
    timers.wrap(services, "_open_table", "tables")  # a pair's table opened
    timers.wrap(services, "_live_game", "game_reads")  # a live match's game read
    timers.wrap(arenas, "standings_changed", "standings_changed")
    timers.wrap(arenas, "waiting_players", "waiting_players")  # inside a wave ...
    timers.wrap(arenas, "standings", "standings")  # ... and a frame
    timers.wrap(arenas, "_sit_out_the_freshest", "sit_out")
    timers.wrap(arena_rules, "pair_wave", "pair_wave")
    connection.execute_wrappers.append(timers.count_query)
    wave = arenas._wave
    parts = ("waiting_players", "standings", "sit_out", "pair_wave")

    def timed_wave(tournament: Any, now: dt.datetime) -> int:
        waiting = waiting_count(tournament.pk)  # (not timed)
        queries, frames = timers.queries, len(timers.frames)
        spent = {k: timers.wall[k] for k in parts}
        began, cpu = time.perf_counter(), time.process_time()
        acted = wave(tournament, now)
        wall, used = time.perf_counter() - began, time.process_time() - cpu
        if acted:
            pairs = tournament.matches.filter(round=tournament.current_round).count()
            timers.waves.append(
                {
                    "waiting": waiting,
                    "pairs": pairs,
                    "wall_s": wall,
                    "cpu_s": used,
                    "queries": timers.queries - queries,
                    "frame_s": sum(f.get("build_s", 0.0) for f in timers.frames[frames:]),
                    "parts_s": {k: timers.wall[k] - spent[k] for k in parts},
                }
            )
        timers.wall["wave"] += wall
        return acted

    arenas._wave = timed_wave
    send_frame = arenas.send_frame
    group_send = arenas.group_send  # type: ignore[attr-defined]

    def recorded_send(group: str, message: dict[str, Any]) -> None:
        data = message.get("data", {})
        timers.frames.append(
            {
                "seq": data.get("seq"),
                "at_ms": data.get("at"),
                "sent": time.time(),
                "bytes": len(json.dumps(data, separators=(",", ":"))),
            }
        )
        group_send(group, message)

    def timed_send_frame(tournament_id: int, *, now: dt.datetime | None = None) -> bool:
        began, cpu = time.perf_counter(), time.process_time()
        sent = send_frame(tournament_id, now=now)
        wall, used = time.perf_counter() - began, time.process_time() - cpu
        key = "frame_sent" if sent else "frame_not_due"
        timers.wall[key] += wall
        timers.wall[key + "_cpu"] += used
        timers.calls[key] += 1
        if sent and timers.frames:
            timers.frames[-1].update(build_s=wall, build_cpu_s=used)
        return sent

    arenas.group_send = recorded_send  # type: ignore[attr-defined]
    arenas.send_frame = timed_send_frame


def waiting_count(tournament_id: int) -> int:
    """Players joined, not paused and in no live game: who a wave may pair (cheaply counted)."""
    from tournaments.models import Entry, Match

    MS = Match.Status
    busy: set[int] = set()
    for a, b in Match.objects.filter(
        tournament_id=tournament_id, status__in=[MS.READY, MS.WAITING, MS.PLAYING]
    ).values_list("entry_a_id", "entry_b_id"):
        busy.update((a, b))
    entries = Entry.objects.filter(
        tournament_id=tournament_id,
        withdrawn_at__isnull=True,
        disqualified_at__isnull=True,
        paused=False,
    ).values_list("pk", flat=True)
    return sum(1 for pk in entries if pk not in busy)


def live_pairs_violations(tournament_id: int) -> list[int]:
    """Players in two or more live games (ready, waiting or playing) of the arena right now."""
    from tournaments.models import Match

    MS = Match.Status
    seen: Counter[int] = Counter()
    for a, b in Match.objects.filter(
        tournament_id=tournament_id, status__in=[MS.READY, MS.WAITING, MS.PLAYING]
    ).values_list("entry_a__player_id", "entry_b__player_id"):
        seen.update(p for p in (a, b) if p is not None)
    return sorted(p for p, n in seen.items() if n > 1)


def _press_ready(tournament_id: int) -> int:
    """Both players of every table waiting for them press Ready (the game starts)."""
    from tables import services as tables
    from tables.models import Seat
    from tournaments.models import Match

    tables_waiting = list(
        Match.objects.filter(
            tournament_id=tournament_id, status=Match.Status.WAITING, table__isnull=False
        ).values_list("table_id", flat=True)
    )
    seats = Seat.objects.filter(table_id__in=tables_waiting, ready=False).select_related(
        "user", "table"
    )
    for seat in seats.order_by("table_id", "number"):
        tables.seat_ready(table_id=seat.table.pk, user=seat.user, ready=True)
    return len(tables_waiting)


def _end_games(tournament_id: int, most: int | None = None) -> int:
    """End up to `most` of the arena's games being played (the oldest first) by their Gym
    clock: five dumbbells in a turn forfeit the game (`clock_expire`, as the timer gives them,
    with a `now` past the deadline). Returns how many ended."""
    from tables import services as tables
    from tables.models import Game
    from tournaments.models import Match

    table_ids = Match.objects.filter(
        tournament_id=tournament_id, status=Match.Status.PLAYING, table__isnull=False
    ).order_by("pk")
    games = Game.objects.filter(
        table_id__in=table_ids.values("table_id"), number=1, status=Game.Status.PLAYING
    ).order_by("pk")
    ids = games.values_list("pk", flat=True)
    ended = 0
    for game_id in list(ids[:most] if most else ids):
        for _ in range(12):
            game = Game.objects.filter(pk=game_id).values("status", "version", "deadline").get()
            if game["status"] != Game.Status.PLAYING:
                ended += 1
                break
            if game["deadline"] is None:
                raise RuntimeError(f"game {game_id}: no clock running")
            late = game["deadline"] + dt.timedelta(hours=1)
            tables.clock_expire(game_id=game_id, version=game["version"], now=late)
        else:
            raise RuntimeError(f"game {game_id} did not end by its clock")
    return ended


def _sweep(now: dt.datetime) -> float:
    from tournaments import services

    began = time.perf_counter()
    services.tournament_sweep(now=now)
    return time.perf_counter() - began


def waves_role(spec: dict[str, Any]) -> dict[str, Any]:
    """`waves` waves with (almost) every player waiting, each settled at once by the organizer;
    then one wave through the whole sweep, its tables opened and its games begun (see the
    module's docstring). The games of that last wave are left on for the frames phase."""
    _django()
    from accounts.models import User
    from tournaments import arenas, services
    from tournaments.models import Match, Tournament

    timers = Timers()
    instrument(timers)
    rng = random.Random(spec["seed"])
    tournament_id = spec["tournament"]
    tournament = Tournament.objects.get(pk=tournament_id)
    organizer = tournament.organizer
    now = tournament.starts_at
    services._step_start(tournament_id, now)
    waves: list[dict[str, Any]] = []
    violations: list[int] = []
    settle_s: list[float] = []
    paused: Any = None
    for number in range(spec["waves"]):
        # Every other wave one player has paused (and comes back at the next): an odd number
        # waiting, so the wave sits out the one who waited least.
        if paused is not None:
            arenas.arena_pause(tournament_id=tournament_id, user=paused, paused=False, now=now)
            paused = None
        else:
            paused = User.objects.get(pk=spec["players"][number % len(spec["players"])])
            arenas.arena_pause(tournament_id=tournament_id, user=paused, paused=True, now=now)
        before = len(timers.waves)
        if not services._step_round(tournament_id, now):  # the sweep's step: the wave
            raise RuntimeError(f"wave {number + 1}: nothing paired")
        violations += live_pairs_violations(tournament_id)
        if len(timers.waves) != before + 1:
            raise RuntimeError(f"wave {number + 1}: the step did something else")
        wave = timers.waves[-1]
        wave["games_before"] = Match.objects.filter(
            tournament_id=tournament_id, status=Match.Status.DONE
        ).count()
        waves.append(wave)
        began = time.perf_counter()
        ready = list(
            Match.objects.filter(tournament_id=tournament_id, status=Match.Status.READY)
            .values_list("pk", "entry_a_id", "entry_b_id")
            .order_by("pk")
        )
        for match_id, a, b in ready:
            services.match_settle(
                match_id=match_id,
                by=organizer,
                winner_entry_id=a if rng.random() < 0.5 else b,
                reason="bench: settled at once",
                now=now,
            )
        settle_s.append((time.perf_counter() - began) / max(1, len(ready)))
        if number % 5 == 0 or number == spec["waves"] - 1:
            print(
                f"  wave {number + 1}: {wave['waiting']} waiting, {wave['pairs']} pairs, "
                f"{wave['games_before']} games before it: {wave['wall_s'] * 1000:.0f} ms "
                f"({wave['cpu_s'] * 1000:.0f} ms CPU, {wave['queries']} queries, its frame "
                f"{wave['frame_s'] * 1000:.0f} ms)",
                flush=True,
            )
        now = max(now + dt.timedelta(seconds=arenas.WAVE_SECONDS), arenas_next_wave(tournament_id))
    if paused is not None:
        arenas.arena_pause(tournament_id=tournament_id, user=paused, paused=False, now=now)
    full: dict[str, Any] = {}
    if spec["full"]:
        # One wave as the sweep does it: the wave, then every pair's table in the same pass.
        timers.reset()
        before, queries = len(timers.waves), timers.queries
        full["sweep_s"] = _sweep(now)
        full["queries"] = timers.queries - queries
        violations += live_pairs_violations(tournament_id)
        full["wave"] = timers.waves[before] if len(timers.waves) > before else None
        full["parts_s"] = {k: round(v, 3) for k, v in timers.wall.items()}
        full["calls"] = dict(timers.calls)
        began = time.perf_counter()
        full["tables"] = _press_ready(tournament_id)
        full["ready_s"] = time.perf_counter() - began
        now += dt.timedelta(seconds=1)
        timers.reset()
        queries = timers.queries
        full["started_sweep_s"] = _sweep(now)  # every match of the wave is on
        full["started_queries"] = timers.queries - queries
        full["started_calls"] = dict(timers.calls)
        violations += live_pairs_violations(tournament_id)
        now += dt.timedelta(seconds=1)
        full["idle_sweep_s"] = [_sweep(now + dt.timedelta(seconds=i)) for i in range(2)]
        now += dt.timedelta(seconds=2)
        print(
            f"  a wave through the sweep: {full['sweep_s']:.2f} s for the wave and its "
            f"{full['tables']} tables (tables {full['parts_s'].get('tables', 0):.2f} s); the next "
            f"sweep (every game begun) {full['started_sweep_s']:.2f} s; then with nothing due "
            f"{min(full['idle_sweep_s']):.2f} s",
            flush=True,
        )
    return {
        "waves": waves,
        "settle_s": settle_s,
        "full": full,
        "violations": violations,
        "clock_end": now.isoformat(),
    }


def arenas_next_wave(tournament_id: int) -> dt.datetime:
    from tournaments.models import Tournament

    due = Tournament.objects.filter(pk=tournament_id).values_list("next_round_at", flat=True).get()
    assert isinstance(due, dt.datetime)
    return due


def frames_role(spec: dict[str, Any]) -> dict[str, Any]:
    """Keep the arena going for `seconds` at `results` results a second; every frame is
    recorded with the moment its group_send was made."""
    _django()
    from tournaments.models import Tournament

    timers = Timers()
    instrument(timers)
    errors = ErrorCount.install()
    tournament_id = spec["tournament"]
    now = dt.datetime.fromisoformat(spec["clock"])
    clock = Path(spec["clock_file"])
    _write_clock(clock, now)
    tick, per_tick = spec["tick"], max(1, round(spec["results"] * spec["tick"]))
    go = Path(spec["go"])
    while not go.exists():  # the orchestrator reads the CPU counters, then says go
        time.sleep(0.05)
    began = time.monotonic()
    cpu0 = time.process_time()
    ended = 0
    violations: list[int] = []
    sweeps: list[float] = []
    late_ticks = 0
    next_tick = began
    while time.monotonic() - began < spec["seconds"]:
        ended += _end_games(tournament_id, per_tick)
        _press_ready(tournament_id)
        now += dt.timedelta(seconds=spec["tick_clock"])
        _write_clock(clock, now)
        sweeps.append(_sweep(now))
        violations += live_pairs_violations(tournament_id)
        next_tick += tick
        pause = next_tick - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        else:
            late_ticks += 1
            next_tick = time.monotonic()
    seconds = time.monotonic() - began
    cpu = time.process_time() - cpu0
    Path(spec["stop"]).touch()
    status = Tournament.objects.filter(pk=tournament_id).values_list("status", flat=True).get()
    return {
        "errors_logged": errors.count,
        "seconds": seconds,
        "process_cpu_s": cpu,
        "results": ended,
        "ticks": len(sweeps),
        "late_ticks": late_ticks,
        "sweep_s": sweeps,
        "frames": timers.frames,
        "waves": timers.waves,
        "calls": dict(timers.calls),
        "wall": {k: round(v, 4) for k, v in timers.wall.items()},
        "violations": violations,
        "status": status,
    }


def sweeper_role(spec: dict[str, Any]) -> dict[str, Any]:
    """A second process sweeping the same arena at the same (frozen) clock while the frames
    process does: a Celery worker of two processes runs a sweep in each when one takes longer
    than the beat's 3 s, and the claims (compare-and-set) must keep them apart."""
    _django()
    timers = Timers()
    instrument(timers)
    errors = ErrorCount.install()
    tournament_id = spec["tournament"]
    clock, go, stop = Path(spec["clock_file"]), Path(spec["go"]), Path(spec["stop"])
    while not go.exists():
        time.sleep(0.05)
    cpu0 = time.process_time()
    sweeps: list[float] = []
    violations: list[int] = []
    while not stop.exists():
        now = dt.datetime.fromisoformat(clock.read_text())
        sweeps.append(_sweep(now))
        violations += live_pairs_violations(tournament_id)
        time.sleep(spec["pause"])
    return {
        "errors_logged": errors.count,
        "process_cpu_s": time.process_time() - cpu0,
        "sweep_s": sweeps,
        "frames": timers.frames,
        "waves": timers.waves,
        "calls": dict(timers.calls),
        "violations": violations,
    }


def _write_clock(path: Path, now: dt.datetime) -> None:
    """The arena's clock for the other sweeper (written whole: a rename)."""
    scratch = path.with_suffix(".new")
    scratch.write_text(now.isoformat())
    scratch.replace(path)


class ErrorCount(logging.Handler):
    """Log records at ERROR or above in this process (a sweep that failed is logged and
    retried by the next one: counted here)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1

    @classmethod
    def install(cls) -> ErrorCount:
        handler = cls()
        logging.getLogger().addHandler(handler)
        return handler


ROLES: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "setup": setup_role,
    "waves": waves_role,
    "frames": frames_role,
    "sweeper": sweeper_role,
}


def run_role(stack: ws_load.Stack, role: str, spec: dict[str, Any], timeout: float) -> Any:
    """Run a role in a Django process with the stack's environment; its JSON answer."""
    process = start_role(stack, role, spec)
    try:
        process.wait(timeout=timeout)
    finally:
        if process.poll() is None:
            process.kill()
    return finish_role(stack, role, process)


def start_role(
    stack: ws_load.Stack, role: str, spec: dict[str, Any], name: str | None = None
) -> subprocess.Popen[bytes]:
    spec_path = stack.tmp / f"{name or role}-spec.json"
    spec_path.write_text(json.dumps(spec))
    return subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--_role", role, str(spec_path)],
        cwd=ROOT,
        env=stack.env,
    )


def finish_role(stack: ws_load.Stack, name: str, process: subprocess.Popen[bytes]) -> Any:
    if process.wait() != 0:
        raise RuntimeError(f"the {name} process failed (exit {process.returncode})")
    return json.loads((stack.tmp / f"{name}-spec.json.out").read_text())


# --- the viewers' sockets (client processes) ----------------------------------------------------


async def _viewer(
    url: str,
    origin: str,
    cookie: str,
    tournament: int,
    sem: asyncio.Semaphore,
    record: dict[str, Any],
    stop: asyncio.Event,
) -> None:
    import msgspec
    from websockets.asyncio.client import connect

    decode = msgspec.json.decode
    async with sem:
        began = time.perf_counter()
        for attempt in range(5):
            try:
                ws = await connect(
                    url,
                    origin=origin,  # type: ignore[arg-type]
                    additional_headers=[("Cookie", cookie)],
                    compression=None,
                    ping_interval=None,
                    open_timeout=120,
                    close_timeout=2,
                    max_size=2**23,
                )
                break
            except Exception as exc:  # a refused handshake too: counted, tried again
                record["errors"].append(f"connect: {type(exc).__name__}")
                if attempt == 4:
                    return
                await asyncio.sleep(1 + attempt)
        hello = decode(await ws.recv())
        assert hello["type"] == "hello", hello
        await ws.send(json.dumps({"type": "watch", "topic": "tournament", "id": tournament}))
        while decode(await ws.recv())["type"] != "watching":
            pass
        record["handshake_s"] = time.perf_counter() - began
    frames: list[tuple[int, float, int, int]] = record["frames"]
    other: Counter[str] = record["other"]

    async def pinger() -> None:
        await asyncio.sleep(random.uniform(0, PING_SECONDS))
        while True:
            await ws.send('{"type":"ping"}')
            await asyncio.sleep(PING_SECONDS)

    async def reader() -> None:
        # Cheap: the frame's seq and claim time read from the bytes, not the whole JSON, so
        # this process's own time per message stays small next to the server's.
        while True:
            raw = await ws.recv(decode=False)
            received = time.time()
            if STANDINGS in raw:
                seq, at = SEQ.search(raw), AT.search(raw)
                assert seq is not None and at is not None
                frames.append((int(seq[1]), received, int(at[1]), len(raw)))
            else:
                message = decode(raw)
                other[str(message.get("kind") or message.get("type"))] += 1

    tasks = [asyncio.create_task(pinger()), asyncio.create_task(reader())]
    await stop.wait()
    for task in tasks:
        task.cancel()
    with contextlib.suppress(Exception):
        await ws.close()
    if tasks[1].done() and not tasks[1].cancelled() and tasks[1].exception():
        record["errors"].append(f"read: {tasks[1].exception()!r}")


async def _viewers_main(conn: Any, plan: list[tuple[int, str]], opts: dict[str, Any]) -> None:
    sem = asyncio.Semaphore(opts["connect_concurrency"])
    stop = asyncio.Event()
    records: list[dict[str, Any]] = [{"frames": [], "other": Counter(), "errors": []} for _ in plan]
    tasks = [
        asyncio.create_task(
            _viewer(
                f"ws://127.0.0.1:{port}/ws/notices/",
                f"http://localhost:{port}",
                f"{opts['cookie_name']}={session}",
                opts["tournament"],
                sem,
                record,
                stop,
            )
        )
        for (port, session), record in zip(plan, records, strict=True)
    ]
    began = time.perf_counter()
    while not all("handshake_s" in r or r["errors"] for r in records):
        await asyncio.sleep(0.2)
        if time.perf_counter() - began > opts["open_timeout"]:
            break
    opened = sum("handshake_s" in r for r in records)
    conn.send(("open", opened, time.perf_counter() - began))
    await asyncio.get_running_loop().run_in_executor(None, conn.recv)  # "stop"
    cpu = time.process_time()
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    conn.send(
        (
            "done",
            [
                {
                    "handshake_s": r.get("handshake_s"),
                    "frames": r["frames"],
                    "other": dict(r["other"]),
                    "errors": r["errors"],
                }
                for r in records
            ],
            cpu,
        )
    )


def viewers_process(conn: Any, plan: list[tuple[int, str]], opts: dict[str, Any]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops us
    try:
        asyncio.run(_viewers_main(conn, plan, opts))
    except BaseException as exc:  # report, so the parent does not wait for nothing
        import traceback

        conn.send(("failed", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"))
        raise


class Viewers:
    """The client processes holding the viewers' sockets."""

    def __init__(self, plans: list[list[tuple[int, str]]], opts: dict[str, Any]) -> None:
        context = mp.get_context("spawn")
        self.workers: list[tuple[Any, Any]] = []
        for plan in plans:
            parent, child = context.Pipe()
            process = context.Process(target=viewers_process, args=(child, plan, opts), daemon=True)
            process.start()
            self.workers.append((process, parent))

    def receive(self, what: str, seconds: float) -> list[Any]:
        answers = []
        for _, parent in self.workers:
            if not parent.poll(seconds):
                raise RuntimeError(f"a client process did not report {what} in {seconds:.0f} s")
            message = parent.recv()
            if message[0] == "failed":
                raise RuntimeError(f"a client process failed:\n{message[1]}")
            answers.append(message)
        return answers

    def send(self, message: Any) -> None:
        for _, parent in self.workers:
            parent.send(message)

    def pids(self) -> list[int]:
        return [p.pid for p, _ in self.workers]

    def stop(self) -> None:
        for process, _ in self.workers:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
                process.join(timeout=5)


# --- the servers' CPU ------------------------------------------------------------------------


def _postgres_backends(url: str, database: str) -> list[int]:
    """The PostgreSQL backends serving `database` now (their pids)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            (database,),
        ).fetchall()
    return [int(r[0]) for r in rows]


def _redis_server_pid(port: int) -> int | None:
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            if "redis-server" in command and f":{port}" in command:
                return int(entry.name)
    return None


class ServerCpu:
    """CPU seconds of the servers: daphnes; PostgreSQL (a private cluster: all of it; a shared
    one: the backends serving this database, each from its first reading or its start, read
    twice a second while `polling`, so a backend that ends with its process still counts up to
    its last reading); Redis (the whole server: shared with whatever else uses it)."""

    def __init__(self, stack: ws_load.Stack, shared: dict[str, Any] | None) -> None:
        self.stack = stack
        self.shared = shared
        self.backends: dict[int, float] = {}
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None

    def _read_backends(self) -> float:
        assert self.shared is not None
        pids = _postgres_backends(self.shared["admin_url"], self.shared["db"])
        with self.lock:
            for pid in pids:
                # A backend that started after the first reading counts from 0.
                self.backends[pid] = cpu_seconds(pid) or self.backends.get(pid, 0.0)
            return sum(self.backends.values())

    def polling(self) -> None:
        if self.shared is None or self.stack.postmaster_pid() is not None:
            return

        def poll() -> None:
            while not self.stopping.wait(0.5):
                with contextlib.suppress(Exception):
                    self._read_backends()

        self.thread = threading.Thread(target=poll, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(timeout=5)

    def read(self) -> dict[str, float]:
        cpu = {"daphnes": sum(cpu_seconds(p.pid) for _, p in self.stack.daphnes)}
        master = self.stack.postmaster_pid()
        if master is not None:
            cpu["postgres"] = cpu_seconds_with_children(master)
        elif self.shared is not None:
            cpu["postgres"] = self._read_backends()
        if self.stack.redis is not None:
            cpu["redis"] = cpu_seconds(self.stack.redis.pid)
        elif self.shared is not None and self.shared.get("redis_pid"):
            cpu["redis"] = cpu_seconds(self.shared["redis_pid"])
        return cpu


# --- the production servers named by URL -------------------------------------------------------


def shared_servers(stack: ws_load.Stack, database_url: str, redis_url: str) -> dict[str, Any]:
    """A fresh database (dropped and made again) on the named PostgreSQL, and the named Redis
    database emptied; the stack's processes use them."""
    import psycopg
    import redis

    parts = urllib.parse.urlsplit(database_url)
    name = parts.path.lstrip("/")
    if not re.fullmatch(r"bench\w*", name):
        raise SystemExit(f"the database's name must start with 'bench' (it is dropped): {name!r}")
    admin_url = urllib.parse.urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    r_parts = urllib.parse.urlsplit(redis_url)
    if r_parts.path.strip("/") in ("", "0"):
        raise SystemExit("give Redis a database of the bench's own (it is emptied), e.g. /9")
    client = redis.Redis.from_url(redis_url)
    try:
        client.flushdb()
    finally:
        client.close()
    stack.env["DATABASE_URL"] = database_url
    stack.env["REDIS_URL"] = redis_url
    return {
        "admin_url": admin_url,
        "db": name,
        "redis_pid": _redis_server_pid(r_parts.port or 6379),
        "database_url": database_url,
        "redis_url": redis_url,
    }


# --- the run ---------------------------------------------------------------------------------


def raise_nofile() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 65536)), hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def frame_figures(
    driver: dict[str, Any],
    others: list[dict[str, Any]],
    answers: list[Any],
    cpu: dict[str, float],
    sockets: int,
) -> dict[str, Any]:
    """The frames phase's figures from the senders' logs (the frames process and the other
    sweepers) and every socket's."""
    senders = [driver, *others]
    frames_log = [f for sender in senders for f in sender["frames"]]
    calls: Counter[str] = Counter()
    for sender in senders:
        calls.update(sender["calls"])
    twice_sent = len(frames_log) - len({f["seq"] for f in frames_log})
    sent = {f["seq"]: f for f in frames_log}
    seqs = sorted(sent)
    claimed = [sent[s]["at_ms"] for s in seqs]
    gaps = [b - a for a, b in itertools.pairwise(claimed)]
    records = [r for answer in answers for r in answer[1]]
    deliveries: list[float] = []
    from_claim: list[float] = []
    last_socket: dict[int, float] = defaultdict(float)
    per_socket_rate: list[float] = []
    window_max = 0
    socket_gaps: list[float] = []
    duplicates = missed = unknown = 0
    other: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    seconds = driver["seconds"]
    for r in records:
        other.update(r["other"])
        errors.update(e.split(":")[0] for e in r["errors"])
        if r["handshake_s"] is None:
            continue
        seen = Counter(seq for seq, *_ in r["frames"])
        duplicates += sum(n - 1 for n in seen.values() if n > 1)
        missed += sum(1 for s in seqs if s not in seen)
        times = sorted(t for _seq, t, *_ in r["frames"])
        if len(times) > 1:  # frames a second between its first and its last
            per_socket_rate.append((len(times) - 1) / (times[-1] - times[0]))
        socket_gaps += [b - a for a, b in itertools.pairwise(times)]
        start = 0
        for end, t in enumerate(times):
            while t - times[start] >= 1.0:
                start += 1
            window_max = max(window_max, end - start + 1)
        for seq, received, at_ms, _size in r["frames"]:
            frame = sent.get(seq)
            if frame is None:
                unknown += 1
                continue
            took = received - frame["sent"]
            deliveries.append(took)
            from_claim.append(received - at_ms / 1000)
            last_socket[seq] = max(last_socket[seq], took)
    frames = len(seqs)
    per_frame = {k: v / frames if frames else float("nan") for k, v in cpu.items()}
    build_cpu = [f.get("build_cpu_s", 0.0) for f in frames_log]
    build_wall = [f.get("build_s", 0.0) for f in frames_log]
    waves = [w for sender in senders for w in sender["waves"]]
    # What a frame costs the servers: its delivery (the daphnes, and Redis, which carries it)
    # and its making (the sending process's CPU inside send_frame). PostgreSQL's CPU in the
    # window is the whole arena's (sweeps, results, tables), reported apart.
    build_ms = statistics.fmean(build_cpu) * 1000 if frames else float("nan")
    server_ms = sum(per_frame.get(k, 0.0) for k in ("daphnes", "redis")) * 1000 + build_ms
    return {
        "seconds": round(seconds, 1),
        "results": driver["results"],
        "results_per_s": round(driver["results"] / seconds, 1),
        "standings_changes": calls.get("standings_changed", 0),
        "send_frame_calls": calls.get("frame_sent", 0) + calls.get("frame_not_due", 0),
        "frames_sent": frames,
        "frames_sent_by_sweepers": sum(len(o["frames"]) for o in others),
        "frames_sent_twice": twice_sent,
        # Between the first frame's claim and the last's (the window's edges left out).
        "frames_per_s": round((frames - 1) / (claimed[-1] - claimed[0]) * 1000, 3)
        if frames > 1
        else None,
        "frame_gap_ms_min": min(gaps) if gaps else None,
        "frame_bytes_mean": round(statistics.fmean(f["bytes"] for f in frames_log))
        if frames
        else None,
        "sockets_watching": sum(1 for r in records if r["handshake_s"] is not None),
        "sockets_planned": sockets,
        "frames_per_socket_per_s": summary(per_socket_rate, 1, 3),
        "most_frames_a_socket_got_in_1s": window_max,
        "socket_gap_ms_min": round(min(socket_gaps) * 1000) if socket_gaps else None,
        "frames_missed": missed,
        "frames_twice": duplicates,
        "frames_unknown": unknown,
        "other_messages": dict(other),
        "errors": dict(errors),
        "send_to_socket_ms": summary(deliveries, 1000),
        "send_to_last_socket_ms": summary(list(last_socket.values()), 1000),
        "claim_to_socket_ms": summary(from_claim, 1000),
        "frame_build_ms": summary(build_wall, 1000),
        "frame_build_cpu_ms": summary(build_cpu, 1000),
        "cpu_s": {k: round(v, 2) for k, v in cpu.items()},
        "cpu_ms_per_frame": {k: round(v * 1000, 1) for k, v in per_frame.items()}
        | {"sender_send_frame": round(build_ms, 1)},
        "server_cpu_ms_per_frame": round(server_ms, 1),
        "sender_process_cpu_s": round(driver["process_cpu_s"], 2),
        "sweep_s": summary(driver["sweep_s"], 1, 3),
        "late_ticks": driver["late_ticks"],
        "sweeper_sweeps": sum(len(o["sweep_s"]) for o in others),
        "sweeper_sweep_s": summary([t for o in others for t in o["sweep_s"]], 1, 3),
        "waves": {
            "count": len(waves),
            "by_sweepers": sum(len(o["waves"]) for o in others),
            "waiting": summary([w["waiting"] for w in waves], 1, 0),
            "wall_ms": summary([w["wall_s"] for w in waves], 1000),
        },
        "violations": sum(len(s["violations"]) for s in senders),
        "errors_logged": sum(s["errors_logged"] for s in senders),
    }


def wave_figures(answer: dict[str, Any]) -> dict[str, Any]:
    waves = answer["waves"]
    walls = [w["wall_s"] for w in waves]
    tenth = max(1, len(waves) // 10)
    full = answer["full"]
    figures: dict[str, Any] = {
        "waves": len(waves),
        "waiting": summary([w["waiting"] for w in waves], 1, 0)
        | {"min": min(w["waiting"] for w in waves)},
        "pairs": summary([w["pairs"] for w in waves], 1, 0),
        "games_before": [waves[0]["games_before"], waves[-1]["games_before"]],
        "wave_ms": summary(walls, 1000),
        "wave_cpu_ms": summary([w["cpu_s"] for w in waves], 1000),
        "wave_frame_ms": summary([w["frame_s"] for w in waves if w["frame_s"]], 1000),
        "wave_without_frame_ms": summary([w["wall_s"] - w["frame_s"] for w in waves], 1000),
        "wave_queries": summary([w["queries"] for w in waves], 1, 0),
        "wave_parts_ms": {
            k: summary([w["parts_s"][k] for w in waves], 1000)
            for k in ("waiting_players", "standings", "sit_out", "pair_wave")
        },
        "first_tenth_wave_ms": summary(walls[:tenth], 1000),
        "last_tenth_wave_ms": summary(walls[-tenth:], 1000),
        "settle_ms_each": summary(answer["settle_s"], 1000),
        "violations": len(answer["violations"]),
        "p99_met": bool(walls) and percentile(walls, 0.99) <= TARGET_WAVE_P99_S,
    }
    if full:
        parts = full["parts_s"]
        figures["through_the_sweep"] = {
            "wave_ms": round(full["wave"]["wall_s"] * 1000, 1) if full["wave"] else None,
            "waiting": full["wave"]["waiting"] if full["wave"] else None,
            "tables": full["tables"],
            "sweep_s": round(full["sweep_s"], 2),
            "opening_tables_s": parts.get("tables", 0.0),
            "scanning_and_rest_s": round(
                full["sweep_s"] - parts.get("tables", 0.0) - parts.get("wave", 0.0), 2
            ),
            "queries": full["queries"],
            "game_reads": full["calls"].get("game_reads", 0),
            "frames_built": full["calls"].get("frame_sent", 0),
            "frames_built_s": round(full["parts_s"].get("frame_sent", 0.0), 2),
            "press_ready_s": round(full["ready_s"], 2),
            "started_sweep_s": round(full["started_sweep_s"], 2),
            "started_queries": full["started_queries"],
            "started_game_reads": full["started_calls"].get("game_reads", 0),
            "idle_sweep_s": round(min(full["idle_sweep_s"]), 3),
        }
    return figures


def report(figures: dict[str, Any]) -> None:
    print()
    print(figures["what"])
    w = figures.get("waves")
    if w:
        ms, lo, hi = w["wave_ms"], w["first_tenth_wave_ms"], w["last_tenth_wave_ms"]
        print(
            f"waves: {w['waves']}, {w['waiting']['p50']:.0f} waiting (min {w['waiting']['min']}), "
            f"{w['pairs']['p50']:.0f} pairs each; {w['games_before'][0]} to "
            f"{w['games_before'][1]} games played before them"
        )
        print(
            f"  a wave (arenas._wave: its database work and the frame it sends): p50 "
            f"{ms['p50']:.0f} ms, p99 {ms['p99']:.0f} ms, max {ms['max']:.0f} ms (target p99 <= "
            f"{TARGET_WAVE_P99_S * 1000:.0f} ms: {'met' if w['p99_met'] else 'NOT met'}); CPU "
            f"p50 {w['wave_cpu_ms']['p50']:.0f} ms; {w['wave_queries']['p50']:.0f} queries; "
            f"first tenth p50 {lo['p50']:.0f} ms, last tenth p50 {hi['p50']:.0f} ms; without "
            f"its frame p50 {w['wave_without_frame_ms']['p50']:.0f} ms"
        )
        print(f"  an organizer's settle (each result): p50 {w['settle_ms_each']['p50']:.0f} ms")
        t = w.get("through_the_sweep")
        if t:
            print(
                f"  one wave through the sweep ({t['waiting']} waiting): the wave {t['wave_ms']} "
                f"ms, the sweep {t['sweep_s']} s with its {t['tables']} tables (opening them "
                f"{t['opening_tables_s']:.2f} s, the step's scans and the rest "
                f"{t['scanning_and_rest_s']} s; {t['queries']} queries, {t['game_reads']} games "
                f"read, {t['frames_built']} frames built in {t['frames_built_s']} s)"
            )
            print(
                f"    Ready pressed at every table {t['press_ready_s']} s; the next sweep (the "
                f"games begun) {t['started_sweep_s']} s ({t['started_queries']} queries, "
                f"{t['started_game_reads']} games read); a sweep with nothing due "
                f"{t['idle_sweep_s']} s"
            )
        parts = w["wave_parts_ms"]
        print(
            "  inside a wave, p50: "
            + ", ".join(f"{k} {v.get('p50')} ms" for k, v in parts.items())
            + " (standings is inside waiting_players; sit_out runs when the number waiting is"
            + f" odd: max {parts['sit_out'].get('max')} ms)"
        )
        print(f"  players in two live games at once: {w['violations']} (must be 0)")
    f = figures.get("frames")
    if f:
        print(
            f"frames: {f['sockets_watching']} of {f['sockets_planned']} sockets watching; "
            f"{f['results']} results in {f['seconds']} s ({f['results_per_s']}/s), "
            f"{f['standings_changes']} standings changes, {f['send_frame_calls']} send_frame calls"
        )
        print(
            f"  {f['frames_sent']} frames sent ({f['frames_per_s']}/s, min gap "
            f"{f['frame_gap_ms_min']} ms, {f['frame_bytes_mean']} bytes); per socket "
            f"{f['frames_per_socket_per_s'].get('max')}/s at most, at most "
            f"{f['most_frames_a_socket_got_in_1s']} within any second at a socket (the closest "
            f"two {f['socket_gap_ms_min']} ms apart); missed "
            f"{f['frames_missed']}, twice {f['frames_twice']}"
        )
        d, last, c = f["send_to_socket_ms"], f["send_to_last_socket_ms"], f["claim_to_socket_ms"]
        print(
            f"  group_send -> socket p50 {d.get('p50')} ms, p99 {d.get('p99')} ms, max "
            f"{d.get('max')} ms; -> the last socket p50 {last.get('p50')} ms, p99 "
            f"{last.get('p99')} ms; claimed -> socket p99 {c.get('p99')} ms"
        )
        per = f["cpu_ms_per_frame"]
        print(
            f"  server CPU per frame {f['server_cpu_ms_per_frame']} ms: daphnes "
            f"{per.get('daphnes')} ms, Redis {per.get('redis', '-')} ms, the sender's "
            f"send_frame {per.get('sender_send_frame')} ms (wall p50 "
            f"{f['frame_build_ms'].get('p50')} ms); PostgreSQL in the window (the whole arena's "
            f"work) {f['cpu_s'].get('postgres', '-')} s"
        )
        print(
            f"  sweeps p50 {f['sweep_s'].get('p50')} s, p99 {f['sweep_s'].get('p99')} s, and "
            f"{f['sweeper_sweeps']} by the other sweeper(s) (p50 "
            f"{f['sweeper_sweep_s'].get('p50')} s); {f['waves']['count']} waves "
            f"({f['waves']['by_sweepers']} by the other sweepers; waiting p50 "
            f"{f['waves']['waiting'].get('p50')}); {f['frames_sent_by_sweepers']} frames sent by "
            f"them, {f['frames_sent_twice']} frames sent twice"
        )
        print(
            f"  players in two live games: {f['violations']} (must be 0); errors logged by the "
            f"senders {f['errors_logged']}; socket errors {f['errors']}; machine "
            f"{f['machine_cpu_s']} s of CPU in the window, other processes "
            f"{f['other_processes_cpu_s']} s, the clients {f['clients_cpu_s']} s"
        )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--stack", choices=["embedded", "production"], default="production")
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL", ""))
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", ""))
    parser.add_argument("--var-dir", type=Path, help="VAR_DIR (default: a temporary folder)")
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--viewers", type=int, default=500, help="accounts that only watch")
    parser.add_argument("--sockets", type=int, default=1000, help="notices sockets watching")
    parser.add_argument("--minutes", type=int, default=120, help="the arena's length")
    parser.add_argument(
        "--waves", type=int, default=24, help="waves with everyone waiting (24: 6,000 games)"
    )
    parser.add_argument("--frame-seconds", type=float, default=60.0, help="0: no frames phase")
    parser.add_argument("--results", type=float, default=10.0, help="results a second")
    parser.add_argument("--tick", type=float, default=0.5, help="real seconds between sweeps")
    parser.add_argument("--tick-clock", type=float, default=1.0, help="arena seconds a tick")
    parser.add_argument("--daphnes", type=int, help="default: 1 embedded, 2 production")
    parser.add_argument(
        "--sweepers", type=int, default=1, help="more processes sweeping during the frames"
    )
    parser.add_argument("--sweeper-pause", type=float, default=1.0, help="s between its sweeps")
    parser.add_argument("--client-procs", type=int, default=1)
    parser.add_argument("--connect-concurrency", type=int, default=32)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a smoke run: 200 players, 400 sockets, 8 waves, 20 s of frames",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the figures here")
    parser.add_argument("--no-record", action="store_true", help="no bench/results/ file")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folders")
    parser.add_argument("--_role", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.quick:
        args.players, args.viewers, args.sockets = 200, 200, 400
        args.waves = min(args.waves, 8)
        args.frame_seconds = min(args.frame_seconds, 20.0)
    if args.daphnes is None:
        args.daphnes = 1 if args.stack == "embedded" else 2
    # What ws_load.Stack reads.
    args.settings = "dominoes_site.settings"
    args.asgi = APP
    args.debug = False
    args.pin = False
    return args


@contextlib.contextmanager
def _stack(args: argparse.Namespace) -> Iterator[tuple[ws_load.Stack, dict[str, Any] | None]]:
    stack = ws_load.Stack(args)
    shared: dict[str, Any] | None = None
    try:
        if args.var_dir is not None:
            var = args.var_dir.resolve()
            var.mkdir(parents=True, exist_ok=True)
            for name in ("db.sqlite3", "db.sqlite3-wal", "db.sqlite3-shm"):
                (var / name).unlink(missing_ok=True)
            stack.var = var
            stack.env["VAR_DIR"] = str(var)
        if args.stack == "production":
            if args.database_url and args.redis_url:
                log("a fresh database and Redis db on the servers named (see --database-url)")
                shared = shared_servers(stack, args.database_url, args.redis_url)
            else:
                log("starting a private PostgreSQL cluster (fsync off) and redis-server")
                stack.start_postgres()
                stack.start_redis()
        yield stack, shared
    finally:
        stack.close()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args._role:
        role, spec_path = args._role
        answer = ROLES[role](json.loads(Path(spec_path).read_text()))
        Path(spec_path + ".out").write_text(json.dumps(answer, default=str))
        return 0

    def stop(signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, stop)
    nofile = raise_nofile()
    load = ws_load.machine_load()
    figures: dict[str, Any] = {
        "command": "bench/arena.py " + " ".join(sys.argv[1:]),
        "when": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "stack": args.stack,
        "cores": os.cpu_count(),
        "load_average_before": os.getloadavg(),
        "machine_busy_before_percent": round(load, 1),
        "players": args.players,
        "sockets": args.sockets,
        "daphnes": args.daphnes,
    }
    if load > 15:
        log(f"WARNING: the machine is already busy ({load:.0f}% of one core) before the run")
    try:
        with _stack(args) as (stack, shared):
            where = (
                "SQLite, the in-memory channel layer"
                if args.stack == "embedded"
                else "PostgreSQL and Redis " + ("(shared servers)" if shared else "(private)")
            )
            figures["what"] = (
                f"{args.stack} stack ({where}), {args.players} players, {args.sockets} sockets "
                f"on {args.daphnes} daphne(s); {os.cpu_count()} cores; machine {load:.0f}% "
                f"busy before, load average {os.getloadavg()[0]:.1f}; open files {nofile}"
            )
            log(figures["what"])
            if shared is not None:
                figures["servers"] = {k: shared[k] for k in ("database_url", "redis_url")}
            log(f"migrating in {stack.var}")
            stack.manage("migrate", "--noinput", "-v", "0")
            log(f"set-up: {args.players} players and {args.viewers} viewers, the arena, joins")
            setup = run_role(
                stack,
                "setup",
                {"players": args.players, "viewers": args.viewers, "minutes": args.minutes},
                1800,
            )
            log(f"set-up took {setup['setup_seconds']} s ({setup['join_ms_each']} ms a join)")
            log(f"{args.waves} waves with everyone waiting, then one through the sweep")
            waves = run_role(
                stack,
                "waves",
                {
                    "tournament": setup["tournament"],
                    "players": setup["players"],
                    "waves": args.waves,
                    "seed": args.seed,
                    "full": True,
                },
                3600,
            )
            figures["waves"] = wave_figures(waves)
            if args.frame_seconds > 0:
                figures["frames"] = run_frames(args, stack, shared, setup, waves["clock_end"])
            figures["load_average_after"] = os.getloadavg()
            report(figures)
            if not args.no_record:
                path = ROOT / "bench" / "results" / f"arena-{args.stack}.json"
                if args.quick:
                    path = path.with_name(f"arena-{args.stack}-quick.json")
                path.parent.mkdir(exist_ok=True)
                path.write_text(json.dumps(figures, indent=2, default=str) + "\n")
                log(f"recorded {path.relative_to(ROOT)}")
            if args.json:
                Path(args.json).write_text(json.dumps(figures, indent=2, default=str))
                log(f"wrote {args.json}")
    except KeyboardInterrupt:
        log("interrupted; stopping everything")
        return 130
    return 0


def run_frames(
    args: argparse.Namespace,
    stack: ws_load.Stack,
    shared: dict[str, Any] | None,
    setup: dict[str, Any],
    clock: str | None,
) -> dict[str, Any]:
    ports = stack.start_daphnes(args.daphnes)
    log(f"daphnes on {', '.join(map(str, ports))}; opening {args.sockets} notices sockets")
    sessions = setup["sessions"][: args.sockets]
    if len(sessions) < args.sockets:
        raise SystemExit(f"--sockets {args.sockets} needs as many accounts (players + viewers)")
    plan = [(ports[i % len(ports)], s) for i, s in enumerate(sessions)]
    plans = [plan[i :: args.client_procs] for i in range(args.client_procs)]
    opts = {
        "cookie_name": setup["cookie"],
        "tournament": setup["tournament"],
        "connect_concurrency": args.connect_concurrency,
        "open_timeout": 600.0,
    }
    viewers = Viewers(plans, opts)
    try:
        opened = viewers.receive("its sockets open", 700)
        took = max(o[2] for o in opened)
        log(f"{sum(o[1] for o in opened)} sockets watching after {took:.0f} s; settling")
        time.sleep(3)
        go, stop = stack.tmp / "frames-go", stack.tmp / "frames-stop"
        spec = {
            "tournament": setup["tournament"],
            "clock": clock,
            "clock_file": str(stack.tmp / "clock"),
            "seconds": args.frame_seconds,
            "results": args.results,
            "tick": args.tick,
            "tick_clock": args.tick_clock,
            "go": str(go),
            "stop": str(stop),
            "pause": args.sweeper_pause,
        }
        driver = start_role(stack, "frames", spec)
        time.sleep(3)  # the clock file
        sweepers = [start_role(stack, "sweeper", spec, f"sweeper{i}") for i in range(args.sweepers)]
        time.sleep(5)  # their imports and connections: not in the window
        servers = ServerCpu(stack, shared)
        before = servers.read() | {"sender": 0.0}
        servers.polling()
        busy_before = ws_load.system_busy()
        clients_before = sum(cpu_seconds(pid) for pid in viewers.pids())
        go.touch()
        log(f"frames: {args.frame_seconds:g} s at {args.results:g} results a second")
        if driver.wait(timeout=args.frame_seconds + 600) != 0:
            raise RuntimeError("the frames process failed")
        for sweeper in sweepers:
            sweeper.wait(timeout=600)
        servers.stop()
        after = servers.read()
        busy_after = ws_load.system_busy()
        clients = sum(cpu_seconds(pid) for pid in viewers.pids()) - clients_before
        answer = finish_role(stack, "frames", driver)
        others = [finish_role(stack, f"sweeper{i}", sweeper) for i, sweeper in enumerate(sweepers)]
        # The senders' CPU over the window is their own figure (`process_cpu_s`).
        after["sender"] = answer["process_cpu_s"]
        if others:
            before["sweepers"] = 0.0
            after["sweepers"] = sum(o["process_cpu_s"] for o in others)
        time.sleep(2)  # the last frame's deliveries
        viewers.send("stop")
        answers = viewers.receive("its frames", 300)
    finally:
        viewers.stop()
    cpu = {k: after[k] - before[k] for k in after if k in before}
    ticks = (busy_after[0] - busy_before[0]) / ws_load.CLOCK_TICKS
    machine = {
        "machine_cpu_s": round(ticks, 1),
        "other_processes_cpu_s": round(ticks - sum(cpu.values()) - clients, 1),
        "clients_cpu_s": round(clients, 1),
    }
    return (
        frame_figures(answer, others, answers, cpu, args.sockets)
        | machine
        | {
            "handshake_s": summary(
                [r["handshake_s"] for a in answers for r in a[1] if r["handshake_s"] is not None],
                1,
                2,
            ),
            "open_seconds": round(took, 1),
        }
    )


if __name__ == "__main__":
    raise SystemExit(main())
