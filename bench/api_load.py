"""The public API under load: N one-on-one bot games over HTTP streams, and the same N games over
the table WebSocket in the same run, side by side.

    .venv/bin/python bench/api_load.py --stack embedded --games 200 --seconds 30
    .venv/bin/python bench/api_load.py --stack production --games 200 --daphnes 2 --seconds 30

The script starts everything itself with bench/ws_load.py's machinery, on 127.0.0.1 only, and
stops and removes it at the end (or on Ctrl-C): a fresh VAR_DIR in a temporary folder, for
`production` a private PostgreSQL cluster (fsync off: a bench, not a durable database) and a
private redis-server (no persistence), `manage.py migrate`, then a set-up process (this script
with `--_setup`, a Django process with the servers' environment) that creates 2 x N players with
a Django session each (for the sockets) and a personal access token each with the `play` scope
(`api.tokens.token_create`: the secrets come back to this process in the set-up's JSON), and, per
game slot and per phase, `--tables-per-game` one-on-one tables (Citizen, or `--mode fives`)
made, sat, readied and so dealt through `tables.services`. Then 1 or more daphne processes
serving the house's application (`dominoes_site.asgi:application`; no Celery worker: nothing a
move does is queued).

Two phases, each with a warm-up (`--warmup`, not counted) and `--seconds` of measurement:

1. api: each seat opens its game stream (`GET /api/tables/{id}/stream`, one HTTP/1.1 connection
   per stream, httpx's AsyncClient) and keeps the last game view its stream sent; the seat whose
   view has `legal_actions` picks one (seeded random) and posts it (`POST
   /api/tables/{id}/move` with the view's `version`, through one pooled AsyncClient for all the
   moves of a client process).
2. socket: the same N games (fresh tables) over `/ws/tables/<id>/`: `hello`, the snapshot, and
   `act` frames with the version, as bench/ws_load.py's players do.

One sample per move: the time from sending the move (the POST, or the `act` frame) until the
OTHER seat's stream or socket delivers an update whose game version is past the one moved for;
also until the mover's own answer (the POST's `ack`, or the socket's `ack` frame) and until both
seats have it. Each seat's connection is read by a task of its own that stamps each line as it
arrives, so a sample never waits for the mover's answer. The next move of a game leaves when both
seats have the previous one (closed loop per game: one move in flight per game, "as fast as the
server answers"); `--rate R` paces the moves instead (R moves/s over all the games). A finished
game moves its pair on to the pair's next table (`--tables-per-game`).

Seat s of game g streams from (and moves through) daphne (g + s) mod D, in both phases: with two
daphnes the mover's daphne is never the other seat's, so every update crosses the channel layer
(Redis on the production stack).

The servers' CPU is read from /proc/<pid>/stat before and after each measured window: the
daphnes alone, and with PostgreSQL and Redis ("server"), per move.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ws_load
from ws_load import Clock, code_revision, machine_load, percentile, system_busy

ROOT = ws_load.ROOT
APP = "dominoes_site.asgi:application"
PHASES = ("api", "socket")
LABELS = {"api": "API (NDJSON stream + POST move)", "socket": "socket (/ws/tables/<id>/)"}

#: The issue's targets (production stack): the API's move -> other seat p99, and the daphnes'
#: CPU per API move against a socket move's.
TARGETS = {"api_other_p99_ms": 100.0, "api_cpu_ratio": 1.5}


def log(message: str) -> None:
    print(f"[api_load {time.strftime('%H:%M:%S')}] {message}", flush=True)


# --- set-up: players, sessions, tokens, dealt one-on-one games (its own Django process) --------


def setup_role(spec_path: str, out_path: str) -> None:
    """One set-up process: role "players" (2 x N players, a session and a `play` token each) or
    "tables" (the dealt one-on-one tables of game slots `lo` to `hi`)."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dominoes_site.settings")

    import django

    django.setup()
    from django.conf import settings

    from accounts.models import User
    from api.tokens import token_create
    from tables import services
    from tables.models import Game

    spec = json.loads(Path(spec_path).read_text())
    if spec["role"] == "players":
        users, sessions = ws_load.players_with_sessions("Api", 2 * spec["games"])
        tokens = [token_create(user=u, name="api_load bench", scopes=["play"])[1] for u in users]
        players = [
            {"id": u.pk, "session": session, "token": token}
            for u, session, token in zip(users, sessions, tokens, strict=True)
        ]
        Path(out_path).write_text(
            json.dumps({"cookie": settings.SESSION_COOKIE_NAME, "players": players})
        )
        return
    by_id = User.objects.in_bulk(spec["user_ids"])
    made: dict[str, dict[str, list[int]]] = {}
    for g in range(spec["lo"], spec["hi"]):
        two = [by_id[pk] for pk in spec["user_ids"][2 * g : 2 * g + 2]]
        made[str(g)] = {}
        for phase in spec["phases"]:
            made[str(g)][phase] = []
            for _ in range(spec["tables_per_game"]):
                table = services.table_create(host=two[0], mode=spec["mode"], players=2)
                services.seat_take(table_id=table.pk, user=two[1], number=1)
                for user in two:
                    services.seat_ready(table_id=table.pk, user=user, ready=True)
                made[str(g)][phase].append(table.pk)
    mine = [pk for phases in made.values() for pks in phases.values() for pk in pks]
    playing = Game.objects.filter(table_id__in=mine, status=Game.Status.PLAYING).count()
    assert playing == len(mine), f"{playing} games started, {len(mine)} wanted"
    Path(out_path).write_text(json.dumps(made))


def set_up(stack: ws_load.Stack, args: argparse.Namespace, phases: list[str]) -> dict[str, Any]:
    """The players, then the tables in `--setup-procs` processes at once (one on SQLite)."""
    started = time.monotonic()

    def run(role: dict[str, Any], name: str) -> subprocess.Popen[bytes]:
        spec = stack.tmp / f"{name}.spec.json"
        spec.write_text(json.dumps(role))
        command = [sys.executable, str(Path(__file__).resolve()), "--_setup", str(spec)]
        return subprocess.Popen(
            [*command, str(stack.tmp / f"{name}.json")], cwd=ROOT, env=stack.env
        )

    def wait(process: subprocess.Popen[bytes]) -> None:
        if process.wait(timeout=1800) != 0:
            raise RuntimeError(f"a set-up process failed ({process.returncode})")

    wait(run({"role": "players", "games": args.games}, "players"))
    players = json.loads((stack.tmp / "players.json").read_text())
    procs = max(1, min(args.setup_procs, args.games))
    step = -(-args.games // procs)
    ranges = [(lo, min(args.games, lo + step)) for lo in range(0, args.games, step)]
    spec = {
        "user_ids": [p["id"] for p in players["players"]],
        "phases": phases,
        "tables_per_game": args.tables_per_game,
        "mode": args.mode,
    }
    running = [
        run({**spec, "role": "tables", "lo": lo, "hi": hi}, f"tables-{lo}") for lo, hi in ranges
    ]
    try:
        for process in running:
            wait(process)
    finally:
        for process in running:
            if process.poll() is None:
                process.kill()
    tables: dict[str, Any] = {}
    for lo, _ in ranges:
        tables.update(json.loads((stack.tmp / f"tables-{lo}.json").read_text()))
    people = players["players"]
    return {
        "cookie": players["cookie"],
        "games": [
            {
                "sessions": [people[2 * g]["session"], people[2 * g + 1]["session"]],
                "tokens": [people[2 * g]["token"], people[2 * g + 1]["token"]],
                "tables": tables[str(g)],
            }
            for g in range(args.games)
        ],
        "setup_seconds": round(time.monotonic() - started, 1),
    }


# --- clients: one seat's connection, read by a task of its own ----------------------------------


class Seat:
    """One seat's stream or socket: the last game view it delivered, and the waits on it."""

    def __init__(self, news: asyncio.Event, sizes: list[int]) -> None:
        self.news = news  # the game's: set on anything either seat hears
        self.sizes = sizes
        self.view: dict[str, Any] | None = None
        self.wants: list[tuple[int, asyncio.Future[float]]] = []
        self.answer: asyncio.Future[tuple[str, dict[str, Any], float]] | None = None
        self.first: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.ended: str | None = None
        self.reader: asyncio.Task[None] | None = None
        self.sock: Any = None  # socket phase

    def expect(self, version: int) -> asyncio.Future[float]:
        """When this seat is delivered a game view past `version` (its arrival time)."""
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.wants.append((version, future))
        return future

    def feed(self, raw: str | bytes, at: float) -> None:
        message = json.loads(raw)
        kind = message.get("type")
        if kind in ("snapshot", "resume", "update"):
            if kind == "update":
                self.sizes.append(len(raw))
            game = message.get("game")
            if game is not None:
                self.view = game
                version = game["version"]
                keep = []
                for wanted, future in self.wants:
                    if version > wanted:
                        if not future.done():
                            future.set_result(at)
                    else:
                        keep.append((wanted, future))
                self.wants = keep
            if not self.first.done():
                self.first.set_result(None)
        elif kind in ("ack", "error"):  # the socket's answer to an act
            if self.answer is not None and not self.answer.done():
                self.answer.set_result((kind, message, at))
        elif kind in ("reconnect", "end"):
            self.ended = f"{kind}:{message.get('code', '')}"
        self.news.set()

    def gone(self, why: str) -> None:
        self.ended = self.ended or why
        if not self.first.done():
            self.first.set_exception(RuntimeError(f"closed before its snapshot: {why}"))
        waiting: list[asyncio.Future[Any]] = [future for _, future in self.wants]
        if self.answer is not None:
            waiting.append(self.answer)
        for future in waiting:
            if not future.done():
                future.set_exception(ConnectionError(self.ended))
                future.exception()  # raised to whoever awaits it; not logged if nobody does
        self.wants = []
        self.news.set()

    async def close(self) -> None:
        if self.sock is not None:
            with contextlib.suppress(Exception):
                await self.sock.close()
        if self.reader is not None:
            self.reader.cancel()
            with contextlib.suppress(BaseException):
                await self.reader


class Transport:
    """How a client process opens seats and sends moves, per phase."""

    def __init__(self, phase: str, opts: dict[str, Any], count: int) -> None:
        import httpx

        self.phase = phase
        self.opts = opts
        self.sem = asyncio.Semaphore(opts["connect_concurrency"])
        self.sizes: list[int] = []
        # A proxy in front (docs/deploy.md) says the request came over TLS; without it, a
        # production (DEBUG off) server answers plain HTTP with a redirect.
        self.proto = {"X-Forwarded-Proto": "https"}
        # One connection per stream (never pooled: each holds its connection while open) ...
        self.streams = httpx.AsyncClient(
            timeout=httpx.Timeout(60.0, read=None),
            limits=httpx.Limits(max_connections=None, max_keepalive_connections=0),
            http1=True,
            http2=False,
        )
        # ... and one pool for all the moves.
        self.moves = httpx.AsyncClient(
            timeout=httpx.Timeout(opts["timeout"]),
            limits=httpx.Limits(max_connections=count + 8, max_keepalive_connections=count + 8),
            http1=True,
            http2=False,
        )

    def port(self, gi: int, seat: int) -> int:
        ports = self.opts["ports"]
        if self.opts["route"] == "table":  # a game's connections and moves on one daphne
            return int(ports[gi % len(ports)])
        return int(ports[(gi + seat) % len(ports)])

    async def open(self, gi: int, game: dict[str, Any], table_id: int, news: asyncio.Event) -> Any:
        seats = [Seat(news, self.sizes) for _ in range(2)]
        try:
            async with asyncio.timeout(self.opts["timeout"] * 3):
                await asyncio.gather(
                    *(self._open_seat(seats[s], gi, s, game, table_id) for s in range(2))
                )
        except BaseException:
            await asyncio.gather(*(s.close() for s in seats), return_exceptions=True)
            raise
        return seats

    async def _open_seat(
        self, seat: Seat, gi: int, s: int, game: dict[str, Any], table_id: int
    ) -> None:
        port = self.port(gi, s)
        async with self.sem:
            if self.phase == "api":
                url = f"http://127.0.0.1:{port}/api/tables/{table_id}/stream"
                headers = {"Authorization": f"Bearer {game['tokens'][s]}", **self.proto}
                seat.reader = asyncio.create_task(self._read_stream(seat, url, headers))
            else:
                seat.sock = await ws_load._connect(
                    f"ws://127.0.0.1:{port}/ws/tables/{table_id}/",
                    port,
                    f"{self.opts['cookie_name']}={game['sessions'][s]}",
                    asyncio.Semaphore(1),
                )
                seat.reader = asyncio.create_task(self._read_socket(seat))
                await seat.sock.send(json.dumps({"type": "hello", "last_seq": None}))
            await seat.first

    async def _read_stream(self, seat: Seat, url: str, headers: dict[str, str]) -> None:
        why = "closed"
        try:
            async with self.streams.stream("GET", url, headers=headers) as response:
                if response.status_code != 200:
                    body = (await response.aread())[:200]
                    why = f"http {response.status_code} {body!r}"
                    return
                async for raw in response.aiter_lines():
                    if raw:  # an empty line is a keepalive
                        seat.feed(raw, time.monotonic())
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            why = f"{type(exc).__name__}: {exc}"
        finally:
            seat.gone(why)

    async def _read_socket(self, seat: Seat) -> None:
        why = "closed"
        try:
            async for raw in seat.sock:
                seat.feed(raw, time.monotonic())
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            why = f"{type(exc).__name__}: {exc}"
        finally:
            seat.gone(why)

    async def move(
        self,
        seat: Seat,
        gi: int,
        s: int,
        game: dict[str, Any],
        table_id: int,
        body: dict[str, Any],
    ) -> tuple[str, Any, float]:
        """Send a move; (outcome, detail, when answered): ack, rate_limited (seconds to wait),
        or an error code."""
        if self.phase == "api":
            response = await self.moves.post(
                f"http://127.0.0.1:{self.port(gi, s)}/api/tables/{table_id}/move",
                json=body,
                headers={"Authorization": f"Bearer {game['tokens'][s]}", **self.proto},
            )
            at = time.monotonic()
            if response.status_code == 200:
                return "ack", response.json(), at
            try:
                problem = response.json()
            except ValueError:
                problem = {"code": f"http_{response.status_code}"}
            code = str(problem.get("code") or f"http_{response.status_code}")
            if response.status_code == 429:
                return "rate_limited", float(response.headers.get("Retry-After", "1")), at
            return code, problem, at
        loop = asyncio.get_running_loop()
        seat.answer = loop.create_future()
        await seat.sock.send(json.dumps({"type": "act", **body}))
        kind, message, at = await seat.answer
        seat.answer = None
        if kind == "ack":
            return "ack", message, at
        code = str(message.get("code", "?"))
        return ("rate_limited", 0.2, at) if code == "rate_limited" else (code, message, at)

    async def close(self) -> None:
        await self.streams.aclose()
        await self.moves.aclose()


def _new_stats() -> dict[str, Any]:
    return {
        "other": [],  # send -> the other seat has it
        "ack": [],  # send -> the mover's answer
        "both": [],  # send -> both seats have it
        "moves": 0,  # completed inside the window
        "moves_total": 0,
        "games_finished": 0,
        "pairs_out_of_tables": 0,
        "errors": Counter(),
        "timeouts": 0,
        "reopened": 0,
        "rate_limited": 0,
    }


async def _wait_news(news: asyncio.Event, seconds: float) -> bool:
    news.clear()
    try:
        await asyncio.wait_for(news.wait(), seconds)
    except TimeoutError:
        return False
    return True


async def _play_game(
    transport: Transport,
    gi: int,
    game: dict[str, Any],
    clock: Clock,
    stats: dict[str, Any],
    first: tuple[int, list[Seat], asyncio.Event],
) -> None:
    rng = random.Random(transport.opts["seed"] * 100003 + gi)
    pacer = ws_load._Pacer(transport.opts, clock, rng)
    timeout = transport.opts["timeout"]
    tables = list(game["tables"][transport.phase][1:])
    table_id, seats, news = first
    n = 0

    async def reopen() -> list[Seat]:
        stats["reopened"] += 1
        await asyncio.gather(*(s.close() for s in seats), return_exceptions=True)
        return list(await transport.open(gi, game, table_id, news))

    await asyncio.sleep(max(0.0, clock.t0 - time.monotonic()))
    try:
        while time.monotonic() < clock.end:
            if any(s.ended for s in seats):
                stats["errors"]["stream_ended:" + next(s.ended for s in seats if s.ended)] += 1
                seats = await reopen()
                continue
            views = [s.view for s in seats]
            assert views[0] is not None and views[1] is not None
            if "game_over" in (views[0]["phase"], views[1]["phase"]):
                stats["games_finished"] += 1
                await asyncio.gather(*(s.close() for s in seats), return_exceptions=True)
                if not tables:
                    stats["pairs_out_of_tables"] += 1
                    return
                table_id = tables.pop(0)
                seats = list(await transport.open(gi, game, table_id, news))
                continue
            movers = [i for i, v in enumerate(views) if v and v.get("legal_actions")]
            if views[0]["version"] != views[1]["version"] or len(movers) != 1:
                # between two pictures (or nothing to do yet): wait for the next line
                if not await _wait_news(news, timeout):
                    stats["errors"]["nothing_to_do"] += 1
                    seats = await reopen()
                continue
            actor = movers[0]
            view = views[actor]
            assert view is not None
            version = int(view["version"])
            action = {k: v for k, v in rng.choice(view["legal_actions"]).items() if k != "seat"}
            await pacer.wait()
            n += 1
            body = {"version": version, "action": action, "request_id": f"g{gi}-{n}"}
            other_has = seats[1 - actor].expect(version)
            mover_has = seats[actor].expect(version)
            sent = time.monotonic()
            try:
                async with asyncio.timeout(timeout):
                    outcome, detail, answered = await transport.move(
                        seats[actor], gi, actor, game, table_id, body
                    )
                    if outcome != "ack":
                        for s in seats:
                            s.wants = []
                        if outcome == "rate_limited":
                            stats["rate_limited"] += 1
                            await asyncio.sleep(min(float(detail), 1.0))
                        else:
                            stats["errors"][outcome] += 1
                            await _wait_news(news, 0.5)
                        continue
                    other_at = await other_has
                    mover_at = await mover_has
            except (TimeoutError, ConnectionError) as exc:
                stats["timeouts"] += isinstance(exc, TimeoutError)
                if isinstance(exc, ConnectionError):
                    stats["errors"][f"connection_lost: {str(exc)[:60]}"] += 1
                seats = await reopen()
                continue
            done = max(answered, other_at, mover_at)
            stats["moves_total"] += 1
            if clock.start <= done <= clock.end:
                stats["moves"] += 1
                stats["other"].append(other_at - sent)
                stats["ack"].append(answered - sent)
                stats["both"].append(max(other_at, mover_at) - sent)
    finally:
        await asyncio.gather(*(s.close() for s in seats), return_exceptions=True)


async def _client_main(
    conn: Any, phase: str, games: list[tuple[int, dict[str, Any]]], opts: dict[str, Any]
) -> None:
    transport = Transport(phase, opts, len(games))
    stats = _new_stats()
    loop = asyncio.get_running_loop()
    try:
        firsts = [(game["tables"][phase][0], asyncio.Event()) for _, game in games]
        opened = await asyncio.gather(
            *(
                transport.open(gi, game, table_id, news)
                for (gi, game), (table_id, news) in zip(games, firsts, strict=True)
            )
        )
        conn.send(("ready", len(opened)))
        t0 = await loop.run_in_executor(None, conn.recv)
        clock = Clock(t0, opts["warmup"], opts["seconds"])

        async def cpu_probe() -> None:
            await asyncio.sleep(max(0.0, clock.start - time.monotonic()))
            begin = time.process_time()
            await asyncio.sleep(max(0.0, clock.end - time.monotonic()))
            stats["cpu_seconds"] = time.process_time() - begin

        probe = asyncio.create_task(cpu_probe())
        await asyncio.gather(
            *(
                _play_game(transport, gi, game, clock, stats, (table_id, seats, news))
                for (gi, game), (table_id, news), seats in zip(games, firsts, opened, strict=True)
            )
        )
        await probe
    finally:
        await transport.close()
    stats["errors"] = dict(stats["errors"])
    stats["update_bytes"] = (sum(transport.sizes), len(transport.sizes))
    conn.send(("done", stats))


def client_process(conn: Any, phase: str, games: list[Any], opts: dict[str, Any]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops us
    try:
        asyncio.run(_client_main(conn, phase, games, opts))
    except BaseException as exc:  # report, so the parent does not wait for nothing
        import traceback

        conn.send(("failed", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"))
        raise


# --- running a phase --------------------------------------------------------------------------


def summary(samples: list[float]) -> dict[str, float]:
    values = sorted(samples)
    return {
        "p50_ms": percentile(values, 0.50) * 1000,
        "p95_ms": percentile(values, 0.95) * 1000,
        "p99_ms": percentile(values, 0.99) * 1000,
        "max_ms": (values[-1] if values else float("nan")) * 1000,
        "mean_ms": (sum(values) / len(values) if values else float("nan")) * 1000,
    }


def run_phase(
    phase: str, stack: ws_load.Stack, setup: dict[str, Any], args: argparse.Namespace
) -> dict[str, Any]:
    games = list(enumerate(setup["games"]))
    opts = {
        "ports": [port for port, _ in stack.daphnes],
        "cookie_name": setup["cookie"],
        "route": args.route,
        "seed": args.seed,
        "warmup": args.warmup,
        "seconds": args.seconds,
        "timeout": args.move_timeout,
        "rate": args.rate,
        "groups_total": len(games),  # what ws_load._Pacer reads
        "connect_concurrency": 32,
    }
    return ws_load.with_clients(
        client_process,
        phase,
        games,
        opts,
        args.client_procs,
        lambda workers: _drive_phase(phase, stack, workers, args),
    )


def pg_sessions(stack: ws_load.Stack) -> int | None:
    """Sessions ever opened to the bench's database (PostgreSQL's own count; this one included)."""
    if stack.pg_port is None:
        return None
    import psycopg

    try:
        with psycopg.connect(
            host="127.0.0.1",
            port=stack.pg_port,
            user="postgres",
            dbname="dominoes_bench",
            autocommit=True,
            connect_timeout=10,
        ) as connection:
            row = connection.execute(
                "SELECT sessions FROM pg_stat_database WHERE datname = current_database()"
            ).fetchone()
    except psycopg.Error:
        return None
    return int(row[0]) if row else None


def _drive_phase(
    phase: str, stack: ws_load.Stack, workers: list[Any], args: argparse.Namespace
) -> dict[str, Any]:
    connect_started = time.monotonic()
    for _, parent in workers:
        ws_load._receive(parent, 300, "its connections")
    connect_seconds = time.monotonic() - connect_started
    # Every connection open and nobody moving: what the open streams or sockets cost alone.
    idle_before = ws_load._server_cpu(stack)
    time.sleep(args.idle_seconds)
    idle_after = ws_load._server_cpu(stack)
    idle = {
        name: round((idle_after[name] - idle_before.get(name, 0.0)) / args.idle_seconds * 100, 1)
        for name in idle_after
    }
    t0 = time.monotonic() + 0.3
    for _, parent in workers:
        parent.send(t0)
    clock = Clock(t0, args.warmup, args.seconds)
    time.sleep(max(0.0, clock.start - time.monotonic()))
    spies = []
    if args.py_spy:
        name = f"{args.stack}-{phase}"
        extra = ["--rate", "100", *args.py_spy_extra.split()]
        spies = ws_load.start_spies(stack, args.py_spy, name, args.seconds, extra)
    sessions_before = pg_sessions(stack)
    before = ws_load._server_cpu(stack)
    busy_before = system_busy()
    time.sleep(max(0.0, clock.end - time.monotonic()))
    after = ws_load._server_cpu(stack)
    busy_after = system_busy()
    time.sleep(1.0)  # PostgreSQL counts a session once its backend reports its statistics
    sessions_after = pg_sessions(stack)
    new_sessions = (
        None
        if sessions_before is None or sessions_after is None
        else sessions_after - sessions_before - 1  # less our own
    )
    wait = 3 * args.move_timeout + 60
    results = [ws_load._receive(parent, wait, "its results")[1] for _, parent in workers]
    for spy in spies:
        with contextlib.suppress(subprocess.TimeoutExpired):
            spy.wait(timeout=30)
    merged = _new_stats()
    client_cpu = 0.0
    size_sum = size_count = 0
    for r in results:
        size_sum += r["update_bytes"][0]
        size_count += r["update_bytes"][1]
        for key in ("other", "ack", "both"):
            merged[key] += r[key]
        for key in (
            "moves", "moves_total", "games_finished", "pairs_out_of_tables", "timeouts",
            "reopened", "rate_limited",
        ):  # fmt: skip
            merged[key] += r[key]
        merged["errors"].update(r["errors"])
        client_cpu += r.get("cpu_seconds", 0.0)
    busy = (busy_after[0] - busy_before[0], busy_after[1] - busy_before[1])
    seconds = {name: after[name] - before.get(name, 0.0) for name in after}
    cpu = ws_load.cpu_shares(before, after, busy, client_cpu, args.seconds)
    daphne_s = sum(v for k, v in seconds.items() if k.startswith("daphne:"))
    server_s = sum(
        v for k, v in seconds.items() if k.split(":")[0] in ("daphne", "postgres", "redis")
    )
    moves = max(1, merged["moves"])
    return {
        "phase": phase,
        "connect_seconds": round(connect_seconds, 1),
        "idle_cpu_percent_of_one_core": idle,
        "update_bytes_mean": round(size_sum / size_count) if size_count else None,
        "moves": merged["moves"],
        "moves_per_s": merged["moves"] / args.seconds,
        "other_seat": summary(merged["other"]),
        "ack": summary(merged["ack"]),
        "both_seats": summary(merged["both"]),
        "games_finished": merged["games_finished"],
        "pairs_out_of_tables": merged["pairs_out_of_tables"],
        "timeouts": merged["timeouts"],
        "reopened": merged["reopened"],
        "rate_limited": merged["rate_limited"],
        "errors": dict(merged["errors"]),
        "daphne_cpu_seconds": round(daphne_s, 3),
        # Database sessions opened in the window (about a second late), per move: a server that
        # keeps its connections opens none.
        "pg_sessions_opened": new_sessions,
        "pg_sessions_per_move": None if new_sessions is None else round(new_sessions / moves, 2),
        "cpu_percent_of_one_core": {k: round(v, 1) for k, v in cpu.items()},
        "cpu_ms_per_move": {
            "daphnes": round(daphne_s * 1000 / moves, 2),
            "server": round(server_s * 1000 / moves, 2),
            "clients": round(client_cpu * 1000 / moves, 2),
        },
    }


# --- the report -------------------------------------------------------------------------------


def judge(args: argparse.Namespace, phases: dict[str, Any]) -> list[tuple[str, bool, str]]:
    checks = []
    api, sock = phases.get("api"), phases.get("socket")
    if api:
        p99 = api["other_seat"]["p99_ms"]
        checks.append(
            (f"API move -> other seat p99 <= {TARGETS['api_other_p99_ms']:.0f} ms",
             p99 <= TARGETS["api_other_p99_ms"], f"{p99:.1f} ms")
        )  # fmt: skip
    if api and sock:
        ratio = api["cpu_ms_per_move"]["daphnes"] / max(1e-9, sock["cpu_ms_per_move"]["daphnes"])
        checks.append(
            (f"API daphne CPU per move <= {TARGETS['api_cpu_ratio']:g} x a socket move's",
             ratio <= TARGETS["api_cpu_ratio"], f"{ratio:.2f} x")
        )  # fmt: skip
    return checks


def report(
    args: argparse.Namespace, stack: ws_load.Stack, setup: dict[str, Any], phases: dict[str, Any]
) -> dict[str, Any]:
    if args.stack == "embedded":
        what = "embedded (SQLite, in-memory channel layer with Unix sockets between processes)"
    else:
        what = "production (PostgreSQL 15 fsync=off + Redis channel layer, CONN_MAX_AGE 60)"
    pace = f"paced at {args.rate:g} moves/s in all" if args.rate else "closed loop, no pacing"
    names = [p for p in PHASES if p in phases]

    def row(label: str, get: Any) -> str:
        return f"  {label:34}" + "".join(f"{get(phases[p]):>32}" for p in names)

    def ms(key: str, q: str) -> Any:
        return lambda f: f"{f[key][q]:.1f}"

    lines = [
        "",
        "Dominologist API load bench",
        f"  stack        {what}, DEBUG={'true' if args.debug else 'false'}",
        f"  daphnes      {len(stack.daphnes)}; client processes {args.client_procs}; "
        f"{os.cpu_count()} cores shared by all; "
        + ("seat s of game g on daphne (g + s) mod D" if args.route == "spread" else
           "game g on daphne g mod D"),
        f"  games        {args.games} one-on-one {args.mode.capitalize()} games at once "
        f"(2 x {args.games} connections per phase); {pace}",
        f"  time         warm-up {args.warmup:g} s, measured {args.seconds:g} s per phase; "
        f"setup {setup.get('setup_seconds', '?')} s",
        f"  machine      {stack.load_before:.0f}% of one core busy before the run; "
        f"code {code_revision()}",
        *(
            [f"  what-if      settings {args.settings}, application {args.asgi}"]
            if (args.settings, args.asgi) != ("dominoes_site.settings", APP)
            else []
        ),
        "",
        f"  {'':34}" + "".join(f"{LABELS[p]:>32}" for p in names),
        row("moves/s", lambda f: f"{f['moves_per_s']:.1f} ({f['moves']})"),
        row("move -> other seat p50 (ms)", ms("other_seat", "p50_ms")),
        row("move -> other seat p95 (ms)", ms("other_seat", "p95_ms")),
        row("move -> other seat p99 (ms)", ms("other_seat", "p99_ms")),
        row("move -> other seat max (ms)", ms("other_seat", "max_ms")),
        row("move -> ack p50 / p99 (ms)", lambda f: f"{f['ack']['p50_ms']:.1f} / "
            f"{f['ack']['p99_ms']:.1f}"),
        row("move -> both seats p99 (ms)", ms("both_seats", "p99_ms")),
        row("daphne CPU per move (ms)", lambda f: f"{f['cpu_ms_per_move']['daphnes']:.2f}"),
        row("server CPU per move (ms)", lambda f: f"{f['cpu_ms_per_move']['server']:.2f}"),
        row("client CPU per move (ms)", lambda f: f"{f['cpu_ms_per_move']['clients']:.2f}"),
        row("PostgreSQL sessions opened per move", lambda f: f"{f['pg_sessions_per_move']}"),
        row("update bytes (mean)", lambda f: f"{f['update_bytes_mean']}"),
        row("games finished / out of tables", lambda f: f"{f['games_finished']} / "
            f"{f['pairs_out_of_tables']}"),
        row("timeouts / reopened / 429s", lambda f: f"{f['timeouts']} / {f['reopened']} / "
            f"{f['rate_limited']}"),
        row("connect (s)", lambda f: f"{f['connect_seconds']}"),
        row("daphnes idle, all open (% core)", lambda f: "{:.1f}".format(sum(
            v for k, v in f["idle_cpu_percent_of_one_core"].items() if k.startswith("daphne")))),
    ]  # fmt: skip
    for p in names:
        cpu = ", ".join(f"{k} {v:.0f}%" for k, v in phases[p]["cpu_percent_of_one_core"].items())
        lines.append(f"  {p} cpu (% of one core): {cpu}")
        if phases[p]["errors"]:
            lines.append(f"  {p} errors: {phases[p]['errors']}")
    ratios: dict[str, float] = {}
    if "api" in phases and "socket" in phases:
        for key in ("daphnes", "server"):
            api_ms = phases["api"]["cpu_ms_per_move"][key]
            ratios[f"{key}_cpu_per_move"] = round(
                api_ms / max(1e-9, phases["socket"]["cpu_ms_per_move"][key]), 2
            )
        lines.append(
            f"  API / socket: daphne CPU per move {ratios['daphnes_cpu_per_move']:.2f} x, "
            f"server CPU per move {ratios['server_cpu_per_move']:.2f} x"
        )
    checks = judge(args, phases)
    if checks:
        lines += ["", f"targets (stated for the production stack; this run: {args.stack})"]
        for name, ok, value in checks:
            lines.append(f"  {name:50} {'yes' if ok else 'NO '}   ({value})")
    print("\n".join(lines), flush=True)
    return {
        "command": "bench/api_load.py " + " ".join(sys.argv[1:]),
        "code": code_revision(),
        "when": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "stack": args.stack,
        "debug": args.debug,
        "daphnes": len(stack.daphnes),
        "client_procs": args.client_procs,
        "route": args.route,
        "settings": args.settings,
        "asgi": args.asgi,
        "games": args.games,
        "mode": args.mode,
        "rate": args.rate,
        "warmup": args.warmup,
        "seconds": args.seconds,
        "cores": os.cpu_count(),
        "machine_load_before_percent": round(stack.load_before, 1),
        "setup_seconds": setup.get("setup_seconds"),
        "phases": phases,
        "api_over_socket": ratios,
        "targets": {name: {"met": ok, "value": value} for name, ok, value in checks},
    }


def record(figures: dict[str, Any]) -> Path:
    """The run's summary, kept per stack under bench/results/ to compare a later change with."""
    path = ROOT / "bench" / "results" / f"api-load-{figures['stack']}.json"
    path.parent.mkdir(exist_ok=True)

    def brief(f: dict[str, Any]) -> dict[str, Any]:
        return {
            "moves_per_s": round(f["moves_per_s"], 1),
            "moves": f["moves"],
            "other_seat_ms": {k: round(v, 1) for k, v in f["other_seat"].items()},
            "ack_ms": {k: round(v, 1) for k, v in f["ack"].items()},
            "both_seats_ms": {k: round(v, 1) for k, v in f["both_seats"].items()},
            "cpu_ms_per_move": f["cpu_ms_per_move"],
            "cpu_percent_of_one_core": f["cpu_percent_of_one_core"],
            "pg_sessions_per_move": f["pg_sessions_per_move"],
            "idle_cpu_percent_of_one_core": f["idle_cpu_percent_of_one_core"],
            "timeouts": f["timeouts"],
            "rate_limited": f["rate_limited"],
            "errors": f["errors"],
        }

    summary_ = {k: v for k, v in figures.items() if k != "phases"}
    summary_["phases"] = {name: brief(f) for name, f in figures["phases"].items()}
    path.write_text(json.dumps(summary_, indent=2) + "\n")
    return path


# --- main -------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--stack", choices=["embedded", "production"], default="embedded")
    parser.add_argument("--games", type=int, default=200, help="one-on-one games at once")
    parser.add_argument("--daphnes", type=int, default=None, help="default 1 embedded, 2 prod.")
    parser.add_argument("--seconds", type=float, default=30, help="measured, per phase")
    parser.add_argument("--warmup", type=float, default=5)
    parser.add_argument(
        "--idle-seconds", type=float, default=3, help="server CPU with all open, before moves"
    )
    parser.add_argument("--rate", type=float, default=None, help="pace: total moves/s")
    parser.add_argument(
        "--tables-per-game", type=int, default=2, help="tables prepared per game slot and phase"
    )
    parser.add_argument("--mode", choices=["citizen", "fives"], default="citizen")
    parser.add_argument("--phases", default="api,socket", help="which phases, in this order")
    parser.add_argument(
        "--route",
        choices=["spread", "table"],
        default="spread",
        help="spread: seat s of game g on daphne (g + s) mod D, its moves too, so with two "
        "daphnes every update crosses the channel layer; table: a game's streams, sockets and "
        "moves all on daphne g mod D (a proxy that routes by table)",
    )
    parser.add_argument("--client-procs", type=int, default=1)
    parser.add_argument(
        "--setup-procs", type=int, default=None, help="table-making processes: 1 embedded, 4 prod."
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--move-timeout", type=float, default=20)
    parser.add_argument(
        "--debug",
        choices=["true", "false"],
        default=None,
        help="DEBUG for the server: default true embedded (as `make run`), false production",
    )
    parser.add_argument("--json", metavar="FILE", help="also write all the figures as JSON")
    parser.add_argument("--py-spy", metavar="DIR", help="py-spy record each daphne, each phase")
    parser.add_argument(
        "--py-spy-extra", default="", help='more py-spy options, e.g. "--gil" (CPU only)'
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary folders")
    parser.add_argument(
        "--no-record", action="store_true", help="do not write bench/results/api-load-*.json"
    )
    parser.add_argument(
        "--settings",
        default="dominoes_site.settings",
        help="DJANGO_SETTINGS_MODULE for every process (what-if experiments; PYTHONPATH is kept)",
    )
    parser.add_argument("--asgi", default=APP, help="the application daphne serves")
    parser.add_argument("--_setup", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.daphnes is None:
        args.daphnes = 1 if args.stack == "embedded" else 2
    if args.setup_procs is None:  # SQLite takes one writer at a time
        args.setup_procs = 1 if args.stack == "embedded" else 4
    args.debug = args.stack == "embedded" if args.debug is None else args.debug == "true"
    args.pin = False  # what ws_load.Stack reads
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args._setup:
        setup_role(*args._setup)
        return 0
    phases_wanted = [p.strip() for p in args.phases.split(",") if p.strip()]
    unknown = set(phases_wanted) - set(PHASES)
    if unknown:
        raise SystemExit(f"unknown phases: {', '.join(sorted(unknown))}")

    def stop(signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, stop)
    load = machine_load()
    if load > 15:
        log(f"WARNING: the machine is already busy ({load:.0f}% of one core) before the run;")
        log("         other processes share the cores and the figures will be worse for it")
    stack = ws_load.Stack(args)
    stack.load_before = load
    try:
        if args.stack == "production":
            log("starting a private PostgreSQL cluster (fsync off) and redis-server (no saving)")
            stack.start_postgres()
            stack.start_redis()
        log(f"migrating ({args.stack}) in {stack.var}")
        stack.manage("migrate", "--noinput", "-v", "0")
        log(
            f"creating {2 * args.games} players with tokens and "
            f"{args.games} x {args.tables_per_game} x {len(phases_wanted)} dealt 1v1 games"
        )
        setup = set_up(stack, args, phases_wanted)
        ports = stack.start_daphnes(args.daphnes)
        log(f"daphne on {', '.join(map(str, ports))}; set-up took {setup['setup_seconds']} s")
        phases: dict[str, Any] = {}
        for phase in phases_wanted:
            log(f"{phase}: {args.games} games, {args.warmup:g}+{args.seconds:g} s")
            phases[phase] = run_phase(phase, stack, setup, args)
        figures = report(args, stack, setup, phases)
        if not args.no_record:
            log(f"recorded {record(figures).relative_to(ROOT)}")
        if args.json:
            Path(args.json).write_text(json.dumps(figures, indent=2, default=str))
            log(f"wrote {args.json}")
        return 0
    except KeyboardInterrupt:
        log("interrupted; stopping everything")
        return 130
    except Exception:
        tail = stack.daphne_log_tail()
        if tail:
            print(tail, file=sys.stderr)
        raise
    finally:
        stack.close()


if __name__ == "__main__":
    raise SystemExit(main())
