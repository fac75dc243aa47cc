"""Gym clock precision: K Gym tables with a 3 s clock on which nobody moves.

    .venv/bin/python bench/clock_precision.py --tables 50 --rounds 3
    .venv/bin/python bench/clock_precision.py --tables 50 --rounds 3 --kill-worker 20
    .venv/bin/python bench/clock_precision.py --stack production --tables 50

The script starts the real processes on 127.0.0.1 in a temporary VAR_DIR (the same `Stack` as
bench/ws_load.py: for `production` also a private PostgreSQL cluster and redis-server): daphne
serving the house's ASGI app, one Celery worker (prefork, `--concurrency`, as `make run`) and
one Celery beat (the one-second sweep). A setup process creates 2 x K players with sessions and
K x R one-on-one Citizen Gym tables with a 3 s clock (`--clock`), both players seated and the
host ready.

Clients (asyncio + websockets) open both players' sockets of each table; the guest presses ready
over the socket, which starts the game: from then on nobody moves. The player to act takes a
dumbbell every 3 s (plus the grace) and the fifth forfeits the game; each pair of clients then
goes on to its next table (`--rounds` tables each). The tables start spread at random over one
clock period, as independent tables would; `--synchronized` starts them all at the same instant,
the worst case, where every clock of the house runs out at once.

For every dumbbell the report gives:
  - late: when the server applied it (the timeout action's `created_at` in the database) minus
    the moment it was due, its deadline plus the grace (GYM_CLOCK_GRACE_MS, 300 ms) plus the
    timer's slack (GYM_CLOCK_TIMER_SLACK_MS, 1 s: a move that arrived in time but is still being
    carried out wins the turn), so the clock cannot act sooner. "Early" counts any applied
    before that moment (there must be none). The lateness after the bare deadline is shown too.
  - seen: when each client received the update carrying it, minus when it was applied.

`--kill-worker S` kills the worker's whole process group S seconds into the run (SIGKILL: its
queued timers die with it) and starts a new worker `--down` seconds later: the beat sweep must
catch up, so every game still ends with exactly five dumbbells, none lost and none twice. The
dumbbells that were due while the worker was down are reported apart.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import contextlib

from bench.ws_load import (
    BIN,
    ROOT,
    Stack,
    _connect,
    code_revision,
    latency_summary,
    players_with_sessions,
)

TARGETS = {"tables": 50, "p50_ms": 100.0, "p99_ms": 300.0}

#: A client that hears nothing for this long asks for what it missed (and it is counted).
QUIET_SECONDS = 10.0
RESYNCS: list[tuple[int, int]] = []


def log(message: str) -> None:
    print(f"[clock {time.strftime('%H:%M:%S')}] {message}", flush=True)


# --- setup and results (run as Django processes) -----------------------------------------------


def setup_role(spec_path: str, out_path: str) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dominoes_site.settings")

    import django

    django.setup()
    from django.conf import settings

    from tables import services

    spec = json.loads(Path(spec_path).read_text())
    pairs, rounds, clock = spec["tables"], spec["rounds"], spec["clock"]
    users, sessions = players_with_sessions("Gym", 2 * pairs)
    groups = []
    for p in range(pairs):
        host, guest = users[2 * p], users[2 * p + 1]
        tables = []
        for _ in range(rounds):
            table = services.table_create(host=host, mode="citizen_gym", players=2, clock=clock)
            services.seat_take(table_id=table.pk, user=guest, number=1)
            services.seat_ready(table_id=table.pk, user=host, ready=True)
            tables.append(table.pk)
        groups.append({"sessions": sessions[2 * p : 2 * p + 2], "tables": tables})
    Path(out_path).write_text(
        json.dumps(
            {
                "cookie": settings.SESSION_COOKIE_NAME,
                "groups": groups,
                "grace_ms": settings.GYM_CLOCK_GRACE_MS,
                # the timer waits this much more for a move that arrived in time (older trees:
                # none)
                "slack_ms": getattr(settings, "GYM_CLOCK_TIMER_SLACK_MS", 0),
            }
        )
    )


def results_role(out_path: str) -> None:
    """Every timeout the server applied, and how each game ended."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dominoes_site.settings")
    import django

    django.setup()
    from tables.models import Game, GameAction

    timeouts = [
        {
            "table": table,
            "version": version,
            "seat": seat,
            "applied_ms": created.timestamp() * 1000,
        }
        for table, version, seat, created in GameAction.objects.filter(kind="timeout")
        .order_by("game_id", "version")
        .values_list("game__table_id", "version", "seat", "created_at")
    ]
    games = {
        table: {"status": status, "result": result}
        for table, status, result in Game.objects.values_list("table_id", "status", "result")
    }
    Path(out_path).write_text(json.dumps({"timeouts": timeouts, "games": games}))


def django_role(role: str, stack: Stack, *args: str) -> None:
    subprocess.run(
        [sys.executable, __file__, "--role", role, *args],
        cwd=ROOT,
        env=stack.env,
        check=True,
        timeout=900,
    )


# --- clients ----------------------------------------------------------------------------------


async def _play_pair(
    opts: dict[str, Any], group: dict[str, Any], seen: list[dict[str, Any]], sem: Any
) -> None:
    """Both players of each table in turn: the guest presses ready; then nobody moves."""
    port = opts["port"]
    for table in group["tables"]:
        socks = [
            await _connect(
                f"ws://127.0.0.1:{port}/ws/tables/{table}/",
                port,
                f"{opts['cookie']}={session}",
                sem,
            )
            for session in group["sessions"]
        ]
        try:
            # Tables start spread over one clock period unless --synchronized: independent
            # tables do not all run out at the same instant.
            stagger = 0.0 if opts["synchronized"] else random.uniform(0, opts["clock"])
            await asyncio.gather(
                *(
                    _watch(s, table, seat, seen, i_start=seat == 1, stagger=stagger)
                    for seat, s in enumerate(socks)
                )
            )
        finally:
            await asyncio.gather(*(s.close() for s in socks), return_exceptions=True)


async def _watch(
    sock: Any, table: int, seat: int, seen: list[dict[str, Any]], *, i_start: bool, stagger: float
) -> None:
    await sock.send(json.dumps({"type": "hello", "last_seq": None}))
    started = False
    deadline: int | None = None
    last_seq: int | None = None
    last: dict[str, Any] = {}
    try:
        async with asyncio.timeout(120):
            while True:
                try:
                    raw = await asyncio.wait_for(sock.recv(), QUIET_SECONDS)
                except TimeoutError:
                    # Silence for longer than two clocks: a lost last update looks like this.
                    # Ask for what was missed, as the page does when it reconnects.
                    RESYNCS.append((table, seat))
                    await sock.send(json.dumps({"type": "hello", "last_seq": last_seq}))
                    continue
                message = json.loads(raw)
                last = message
                kind = message["type"]
                if kind == "error":
                    raise RuntimeError(f"table {table} seat {seat}: {message}")
                number = message.get("seq")
                if kind == "update" and last_seq is not None and number > last_seq + 1:
                    # A lost update: resume from the last one seen, as the page does.
                    await sock.send(json.dumps({"type": "hello", "last_seq": last_seq}))
                    continue
                if kind in ("update", "snapshot", "resume") and isinstance(number, int):
                    if last_seq is not None and number <= last_seq and kind == "update":
                        continue
                    last_seq = number
                if _seen(message, kind, (table, seat), seen, deadline):
                    return
                if kind == "snapshot" and i_start and not started:
                    started = True
                    await asyncio.sleep(stagger)
                    await sock.send(json.dumps({"type": "ready", "ready": True}))
                game = message.get("game")
                if game is not None:
                    deadline = (game.get("clock") or {}).get("deadline")
    except TimeoutError as exc:
        raise RuntimeError(f"table {table} seat {seat} stuck after {str(last)[:400]}") from exc


def _seen(
    message: dict[str, Any],
    kind: str,
    where: tuple[int, int],
    seen: list[dict[str, Any]],
    deadline: int | None,
) -> bool:
    """Note the dumbbells a message brings, with the deadline they were due by (from the
    message before); True when the game is over."""
    now_ms = time.time() * 1000
    table, seat = where
    game = message.get("game")
    events = message.get("events") or []
    if kind == "resume":
        events = [e for batch in events for e in batch["events"]]
    for event in events:
        if event.get("type") == "dumbbell":
            seen.append(
                {
                    "table": table,
                    "client": seat,
                    "in_turn": event["in_turn"],
                    "deadline_ms": deadline,
                    "seen_ms": now_ms,
                }
            )
    return game is not None and game.get("phase") == "game_over"


async def _clients_main(opts: dict[str, Any], groups: list[dict[str, Any]]) -> list[Any]:
    seen: list[dict[str, Any]] = []
    sem = asyncio.Semaphore(64)
    await asyncio.gather(*(_play_pair(opts, g, seen, sem) for g in groups))
    return seen


def client_process(conn: Any, opts: dict[str, Any], groups: list[dict[str, Any]]) -> None:
    try:
        seen = asyncio.run(_clients_main(opts, groups))
        conn.send({"seen": seen, "resyncs": RESYNCS})
    except BaseException as exc:  # report, never hang the parent
        conn.send({"error": repr(exc)})


# --- processes --------------------------------------------------------------------------------


def start_worker(stack: Stack, concurrency: int) -> subprocess.Popen[bytes]:
    out = open(stack.tmp / f"worker-{time.time():.0f}.log", "ab")  # noqa: SIM115
    process = subprocess.Popen(
        [str(BIN / "celery"), "-A", "dominoes_site", "worker", "-l", "WARNING",
         "--concurrency", str(concurrency), "-n", f"bench{time.time():.0f}@%h"],
        cwd=ROOT, env=stack.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    stack.others.append(process)
    return process


def start_beat(stack: Stack) -> subprocess.Popen[bytes]:
    out = open(stack.tmp / "beat.log", "ab")  # noqa: SIM115
    process = subprocess.Popen(
        [str(BIN / "celery"), "-A", "dominoes_site", "beat", "-l", "WARNING",
         "--pidfile", str(stack.tmp / "beat.pid"), "-s", str(stack.tmp / "beat-schedule")],
        cwd=ROOT, env=stack.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    stack.others.append(process)
    return process


def kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=10)


# --- the run ----------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    stack_args = argparse.Namespace(
        stack=args.stack,
        settings="dominoes_site.settings",
        debug=False,
        pin=False,
        asgi="dominoes_site.asgi:application",
        keep=args.keep,
    )
    stack = Stack(stack_args)
    try:
        if args.stack == "production":
            log("starting PostgreSQL and Redis")
            stack.start_postgres()
            stack.start_redis()
        log("migrating")
        stack.manage("migrate", "--noinput", "-v", "0")
        spec = Path(stack.tmp / "spec.json")
        spec.write_text(
            json.dumps({"tables": args.tables, "rounds": args.rounds, "clock": args.clock})
        )
        prepared = stack.tmp / "prepared.json"
        log(f"setting up {args.tables} x {args.rounds} Gym tables ({args.clock} s clock)")
        django_role("setup", stack, str(spec), str(prepared))
        setup = json.loads(prepared.read_text())
        port = stack.start_daphnes(1)[0]
        worker = start_worker(stack, args.concurrency)
        start_beat(stack)
        time.sleep(args.settle)  # the worker and beat connect to the broker
        parent, child = mp.Pipe()
        opts = {
            "port": port,
            "cookie": setup["cookie"],
            "clock": args.clock,
            "synchronized": args.synchronized,
        }
        clients = mp.Process(target=client_process, args=(child, opts, setup["groups"]))
        t0 = time.time() * 1000
        clients.start()
        log("clients connected; nobody moves")
        down: tuple[float, float] | None = None
        if args.kill_worker:
            time.sleep(args.kill_worker)
            killed = time.time() * 1000
            kill_group(worker)
            log(f"worker killed (SIGKILL) {args.kill_worker} s in; restarting in {args.down} s")
            time.sleep(args.down)
            start_worker(stack, args.concurrency)
            down = (killed, time.time() * 1000)
        if not parent.poll(args.rounds * (6 * args.clock + 30) + 120):
            raise RuntimeError("the clients did not finish")
        answer = parent.recv()
        clients.join(10)
        results = stack.tmp / "results.json"
        django_role("results", stack, str(results))
        if "error" in answer:
            counts: dict[int, int] = {}
            for row in json.loads(results.read_text())["timeouts"]:
                counts[row["table"]] = counts.get(row["table"], 0) + 1
            short = {t: n for t, n in counts.items() if n != 5}
            raise RuntimeError(f"clients failed: {answer['error']}; tables short of 5: {short}")
        report(args, setup, answer, json.loads(results.read_text()), t0, down)
    finally:
        stack.close()
    return 0


def report(
    args: argparse.Namespace,
    setup: dict[str, Any],
    answer: dict[str, Any],
    results: dict[str, Any],
    t0: float,
    down: tuple[float, float] | None,
) -> None:
    # due: the deadline, the grace, and the timer's slack (the timer acts no sooner)
    grace = setup["grace_ms"] + setup.get("slack_ms", 0)
    seen = answer["seen"]
    tables = [t for g in setup["groups"] for t in g["tables"]]
    applied: dict[tuple[int, int], float] = {}
    counts: dict[int, int] = {}
    for row in results["timeouts"]:
        counts[row["table"]] = counts.get(row["table"], 0) + 1
        applied[(row["table"], counts[row["table"]])] = row["applied_ms"]
    # The deadline each dumbbell was due by comes from the clients (the update before it).
    deadlines: dict[tuple[int, int], float] = {}
    for s in seen:
        if s["deadline_ms"] is not None:
            deadlines.setdefault((s["table"], s["in_turn"]), s["deadline_ms"])
    late, late_bare, views, during = [], [], [], []
    early = 0
    for key, at in applied.items():
        deadline = deadlines.get(key)
        if deadline is None:
            continue
        delay = (at - (deadline + grace)) / 1000
        if delay < 0:
            early += 1
        if down is not None and down[0] - 3000 <= deadline + grace <= down[1] + 2000:
            during.append(delay)
            continue
        late.append(delay)
        late_bare.append((at - deadline) / 1000)
    for s in seen:
        at = applied.get((s["table"], s["in_turn"]))
        if at is not None:
            views.append((s["seen_ms"] - at) / 1000)
    finished = [results["games"][str(t)] for t in tables if str(t) in results["games"]]
    forfeits = sum(
        1 for g in finished if g["status"] == "finished" and g["result"]["reason"] == "forfeit"
    )
    wrong = {t: counts.get(t, 0) for t in tables if counts.get(t, 0) != 5}
    summary = latency_summary(late)
    bare = latency_summary(late_bare)
    seen_summary = latency_summary(views)

    def fmt(d: dict[str, float]) -> str:
        return (
            f"p50 {d['p50_ms']:.0f} ms, p90 {d['p90_ms']:.0f} ms, p99 {d['p99_ms']:.0f} ms, "
            f"max {d['max_ms']:.0f} ms"
        )

    print()
    print(f"Gym clock precision ({args.stack}), revision {code_revision()}")
    print(
        f"  {args.tables} tables at once x {args.rounds} rounds, {args.clock} s clock, "
        f"grace {grace} ms, worker concurrency {args.concurrency}, sweep every 1 s, "
        + ("all tables started at once" if args.synchronized else "starts spread over a clock")
    )
    print(f"  dumbbells applied: {len(applied)} (expected {5 * len(tables)})")
    print(f"  games forfeited after five in a turn: {forfeits} of {len(tables)}")
    print(f"  games with other than exactly 5 dumbbells: {len(wrong)} {wrong or ''}")
    print(f"  early (before deadline + grace): {early}")
    print(f"  late after deadline + grace ({len(late)}): {fmt(summary)}")
    print(f"  late after the bare deadline: {fmt(bare)}")
    print(f"  seen by clients after applied ({len(views)} sightings): {fmt(seen_summary)}")
    resyncs = len(answer["resyncs"])
    print(f"  clients that heard nothing for {QUIET_SECONDS:.0f} s and asked again: {resyncs}")
    if down is not None:
        print(
            f"  worker down {(down[1] - down[0]) / 1000:.1f} s, {(down[0] - t0) / 1000:.1f} s in;"
            f" dumbbells due then ({len(during)}): {fmt(latency_summary(during))}"
        )
    ok = (
        early == 0
        and not wrong
        and summary["p50_ms"] <= TARGETS["p50_ms"]
        and summary["p99_ms"] <= TARGETS["p99_ms"]
    )
    print(
        f"  target (50 tables, embedded): never early, p50 <= {TARGETS['p50_ms']:.0f} ms, "
        f"p99 <= {TARGETS['p99_ms']:.0f} ms, none lost or doubled: {'MET' if ok else 'NOT MET'}"
    )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stack", choices=["embedded", "production"], default="embedded")
    parser.add_argument("--tables", type=int, default=50, help="tables playing at once")
    parser.add_argument("--rounds", type=int, default=3, help="tables per pair, one after another")
    parser.add_argument("--clock", type=int, default=3, help="seconds per turn (3-60)")
    parser.add_argument("--concurrency", type=int, default=2, help="worker processes")
    parser.add_argument("--kill-worker", type=float, default=0, help="kill it S seconds in")
    parser.add_argument("--down", type=float, default=3.0, help="seconds before the restart")
    parser.add_argument("--settle", type=float, default=4.0, help="seconds for worker and beat")
    parser.add_argument(
        "--synchronized",
        action="store_true",
        help="start every table at the same instant (the worst case: all run out together)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("--role", help=argparse.SUPPRESS)
    parser.add_argument("role_args", nargs="*", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.role == "setup":
        setup_role(*args.role_args)
        return 0
    if args.role == "results":
        results_role(*args.role_args)
        return 0
    tempfile.tempdir = None
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
