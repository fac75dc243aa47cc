"""Soak test of the live tables under the conditions real players bring.

    .venv/bin/python bench/soak.py --stack embedded --minutes 20
    .venv/bin/python bench/soak.py --stack production --daphnes 2 --minutes 20
    .venv/bin/python bench/soak.py --stack production --burst-only

The script starts everything itself on 127.0.0.1 in a temporary folder, as bench/ws_load.py does
(its `Stack`: a fresh VAR_DIR, and for `production` a private PostgreSQL cluster and redis-server),
migrates, creates the players with Django sessions and their tables in a setup process, then
starts the full server set the way `make run` does (dominoes_site/run.py): daphne serving
`dominoes_site.asgi:application` with `--proxy-headers --websocket_connect_timeout 20` (one per
`--daphnes`, each on its own port), one Celery worker (`--concurrency 2`) and one beat, so the
timers and sweeps run as in real life. It stops and removes all of it at the end.

Two phases (both by default):

1. Burst. `--burst-tables` (100) Citizen Cut Throat tables of 4: the 400 sockets connect within
   `--burst-spread` (1 s), each sends `hello` and must get its snapshot; one move per table must
   reach all four seats. Then every daphne is killed (`--restart-signal`, SIGKILL by default) and
   started again on the same port, and all 400 reconnect at once with `hello` and their last seq:
   each must get `resume`, and one more move per table must reach all four.
2. Soak. `--tables` (50) Citizen Cut Throat tables of 4 players plus one spectator socket each,
   for `--warmup` seconds and then `--minutes` minutes. Each table makes a move every 2-6 s
   (`--move-seconds`), falls silent now and then for up to 2 minutes (`--silence-max`, on
   average once every `--silence-every` seconds of play), and starts a rematch when a game ends
   (every player sends `rematch` 1-5 s after the game over; the new game starts when all four
   want it). Players send the documented `ping` every 20 s and their `wash` for each committed
   hand, as the page does. The spectator sends `hello` and then nothing at all for the whole run.
   `--drop-fraction` (5%) of the players drop their connection abruptly (no close frame) at
   random times and reconnect 1-20 s later with `hello` and their last seq: that must answer
   `resume`.

Every socket checks what it receives the way the page does (docs/protocol.md): it keeps the last
seq it has drawn, an update one past it is drawn, a repeated one is ignored, and a jump makes it
send `hello` with its last seq to get the missed events. The report counts, per phase: unexpected
closes (any the client did not make), seq gaps (and whether a resume filled them), seqs or game
versions going backwards, updates still missing at the end (against the table's seq in the
database), reconnects that did not resume, errors received by code, handshake failures, moves,
latencies, and the tracebacks in the server processes' logs; for the soak also the memory of
every server process at the start (after the warm-up) and at the end, and the max.
`--json FILE` writes all of it. The exit status is 1 when any target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections import Counter, defaultdict, deque
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.ws_load import (
    BIN,
    ROOT,
    Stack,
    code_revision,
    cpu_seconds,
    cpu_seconds_with_children,
    free_port,
    latency_summary,
    machine_load,
    players_with_sessions,
    system_busy,
    wait_for_port,
)

#: The page's keep-alive (docs/protocol.md).
PING_SECONDS = 20.0
#: A pong later than this counts as missing.
PONG_TIMEOUT = 10.0
#: An `act` with neither `ack` nor `error` after this long counts as unanswered.
ACK_TIMEOUT = 30.0
#: A `hello` with no snapshot or resume after this long counts as unanswered.
REPLY_TIMEOUT = 30.0
#: A move's update that has not reached every connected socket of the table after this long
#: counts as stalled (the lagging sockets then ask for it with `hello`).
DELIVERY_TIMEOUT = 15.0
#: How long a table waits for its player to act (connected and up to date) before trying again.
ACTOR_WAIT = 30.0
#: Reasons for a `hello` that follow a new connection after a lost one: these must resume.
RECONNECTS = ("drop", "after_close", "restart")
#: Connection attempts in the burst before a socket gives up (the page's backoff: 1, 2, 4, 8 s).
CONNECT_ATTEMPTS = 5
#: Error codes a page meets in normal play and ignores: a wash for a hand dealt meanwhile.
BENIGN_ERRORS = ("bad_wash",)
#: Incidents kept in detail per phase (the counts are always complete).
MAX_INCIDENTS = 300


def log(message: str) -> None:
    print(f"[soak {time.strftime('%H:%M:%S')}] {message}", flush=True)


# --- setup and results: Django processes -------------------------------------------------------


def setup_role(spec_path: str, out_path: str) -> None:
    """Players with sessions, and one started Citizen Cut Throat table per group of four."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dominoes_site.settings")
    import django

    django.setup()
    from django.conf import settings

    from tables import services
    from tables.models import Game

    spec = json.loads(Path(spec_path).read_text())
    started = time.monotonic()
    out: dict[str, Any] = {"cookie": settings.SESSION_COOKIE_NAME}
    for phase, count, watchers in (("soak", spec["soak"], True), ("burst", spec["burst"], False)):
        users, sessions = players_with_sessions(phase.title(), 4 * count)
        extra: list[str] = []
        if watchers and count:
            extra = players_with_sessions("Watcher", count)[1]
        groups = []
        for g in range(count):
            four = users[4 * g : 4 * g + 4]
            table = services.table_create(host=four[0], mode="citizen", players=4, partners=False)
            for number in (1, 2, 3):
                services.seat_take(table_id=table.pk, user=four[number], number=number)
            for user in four:
                services.seat_ready(table_id=table.pk, user=user, ready=True)
            groups.append(
                {
                    "table": table.pk,
                    "sessions": sessions[4 * g : 4 * g + 4],
                    "watcher": extra[g] if extra else None,
                }
            )
        out[phase] = groups
    wanted = spec["soak"] + spec["burst"]
    playing = Game.objects.filter(status=Game.Status.PLAYING).count()
    assert playing == wanted, f"{playing} games started, {wanted} wanted"
    out["setup_seconds"] = round(time.monotonic() - started, 1)
    Path(out_path).write_text(json.dumps(out))


def results_role(spec_path: str, out_path: str) -> None:
    """Each table's event number, and what the database says was played there."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dominoes_site.settings")
    import django

    django.setup()
    from django.db.models import Count

    from tables.models import Game, GameAction, Table

    ids = json.loads(Path(spec_path).read_text())["tables"]
    seqs = dict(Table.objects.filter(pk__in=ids).values_list("pk", "seq"))
    moves = dict(
        GameAction.objects.filter(game__table_id__in=ids, by_server=False)
        .values("game__table_id")
        .annotate(n=Count("id"))
        .values_list("game__table_id", "n")
    )
    finished = dict(
        Game.objects.filter(table_id__in=ids, status=Game.Status.FINISHED)
        .values("table_id")
        .annotate(n=Count("id"))
        .values_list("table_id", "n")
    )
    Path(out_path).write_text(
        json.dumps(
            {
                "seq": {str(k): v for k, v in seqs.items()},
                "player_moves": sum(moves.values()),
                "games_finished": sum(finished.values()),
            }
        )
    )


def django_role(stack: Stack, role: str, *args: str) -> None:
    subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), f"--_{role}", *args],
        cwd=ROOT,
        env=stack.env,
        check=True,
        timeout=1800,
    )


# --- the server processes, as `make run` starts them ---------------------------------------------


class Servers:
    """The daphnes (restartable on their ports), the worker and the beat, and their logs."""

    def __init__(self, stack: Stack, count: int) -> None:
        self.stack = stack
        self.ports = [free_port() for _ in range(count)]
        self.generation = 0
        self.logs: list[Path] = []  # every log written, in order
        self.worker: subprocess.Popen[bytes] | None = None
        self.beat: subprocess.Popen[bytes] | None = None

    def _spawn(self, name: str, command: list[str]) -> subprocess.Popen[bytes]:
        path = self.stack.tmp / f"{name}.log"
        self.logs.append(path)
        with open(path, "ab") as out:
            return subprocess.Popen(
                command,
                cwd=ROOT,
                env=self.stack.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def start_daphnes(self) -> None:
        self.generation += 1
        started = []
        for port in self.ports:
            process = self._spawn(
                f"daphne-{port}-{self.generation}",
                [str(BIN / "daphne"), "-b", "127.0.0.1", "-p", str(port), "--proxy-headers",
                 "--websocket_connect_timeout", "20", "dominoes_site.asgi:application"],
            )  # fmt: skip
            started.append((port, process))
        self.stack.daphnes = started  # Stack.close() stops them
        for port, process in started:
            wait_for_port(port, 60, alive=lambda p=process: p.poll() is None)

    def kill_daphnes(self, signum: int) -> None:
        for _, process in self.stack.daphnes:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signum)
        for _, process in self.stack.daphnes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)

    def start_celery(self) -> None:
        celery = str(BIN / "celery")
        self.worker = self._spawn(
            "worker",
            [celery, "-A", "dominoes_site", "worker", "-l", "INFO", "--concurrency", "2",
             "-n", "worker@%h"],
        )  # fmt: skip
        self.beat = self._spawn(
            "beat",
            [celery, "-A", "dominoes_site", "beat", "-l", "INFO",
             "--pidfile", str(self.stack.tmp / "celerybeat.pid")],
        )  # fmt: skip
        self.stack.others += [self.worker, self.beat]

    def dead(self) -> list[str]:
        """The server processes that stopped by themselves."""
        named: list[tuple[str, subprocess.Popen[bytes] | None]] = [
            (f"daphne:{port}", p) for port, p in self.stack.daphnes
        ]
        named += [("worker", self.worker), ("beat", self.beat)]
        return [f"{name} (exit {p.returncode})" for name, p in named if p and p.poll() is not None]

    def log_offsets(self) -> dict[str, int]:
        return {str(p): p.stat().st_size for p in self.logs if p.exists()}


TRACEBACK = "Traceback (most recent call last)"


def scan_logs(paths: list[Path], since: dict[str, int], until: dict[str, int] | None) -> Any:
    """Tracebacks and ERROR lines in each log between two offsets, with the exception lines."""
    found: dict[str, Any] = {}
    for path in paths:
        if not path.exists():
            continue
        with open(path, "rb") as f:
            f.seek(since.get(str(path), 0))
            size = (until or {}).get(str(path))
            data = f.read(None if size is None else max(0, size - since.get(str(path), 0)))
        lines = data.decode(errors="replace").splitlines()
        tracebacks = 0
        exceptions: Counter[str] = Counter()
        errors = 0
        inside = False
        for line in lines:
            if TRACEBACK in line:
                tracebacks += 1
                inside = True
                continue
            chained = line.startswith(("During handling", "The above exception"))
            if inside and line and not line.startswith((" ", "\t")) and not chained:
                exceptions[line.strip()[:200]] += 1
                inside = False
            if re.search(r"\b(ERROR|CRITICAL)\b", line):
                errors += 1
        name = path.stem
        found[name] = {
            "tracebacks": tracebacks,
            "error_lines": errors,
            # daphne: the application of a connection it gave up on was still running
            "instances_killed": sum("took too long to shut down" in line for line in lines),
            "max_connections_errors": sum(line.count("MaxConnectionsError") for line in lines),
            "exceptions": dict(exceptions.most_common(10)),
        }
    return found


# --- memory and CPU of the server processes ----------------------------------------------------


def _children_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = defaultdict(list)
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            text = Path(f"/proc/{entry.name}/stat").read_text()
        except OSError:
            continue
        children[int(text[text.rindex(")") + 2 :].split()[1])].append(int(entry.name))
    return children


def _tree(root: int, children: dict[int, list[int]]) -> list[int]:
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


def _kb(path: str, field: str) -> int | None:
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def memory_sample(stack: Stack, servers: Servers) -> dict[str, dict[str, float]]:
    """RSS (and PSS, which counts shared pages once) in MB of each server process or group."""
    children = _children_map()
    roots: list[tuple[str, int | None]] = [(f"daphne:{p}", d.pid) for p, d in stack.daphnes]
    roots += [
        ("worker", servers.worker.pid if servers.worker else None),
        ("beat", servers.beat.pid if servers.beat else None),
        ("postgres", stack.postmaster_pid()),
        ("redis", stack.redis.pid if stack.redis else None),
    ]
    sample: dict[str, dict[str, float]] = {}
    for name, root in roots:
        if root is None:
            continue
        # The celery and daphne commands are the process itself (exec'd by the venv's script);
        # the worker's pool processes and PostgreSQL's backends are its children.
        pids = _tree(root, children) if name in ("worker", "postgres") else [root]
        rss = [_kb(f"/proc/{pid}/status", "VmRSS:") for pid in pids]
        pss = [_kb(f"/proc/{pid}/smaps_rollup", "Pss:") for pid in pids]
        if not any(rss):
            continue
        sample[name] = {
            "rss_mb": round(sum(v or 0 for v in rss) / 1024, 1),
            "pss_mb": round(sum(v or 0 for v in pss) / 1024, 1) if all(pss) else float("nan"),
            "processes": len(pids),
        }
    url = stack.env.get("REDIS_URL")
    if url:
        with contextlib.suppress(Exception):
            import redis

            client = redis.Redis.from_url(url, socket_timeout=5)
            info = client.info("memory")
            sample["redis"]["used_memory_mb"] = round(info["used_memory"] / 2**20, 2)
            sample["redis"]["keys"] = client.dbsize()
            client.close()
    files = [stack.var / "db.sqlite3", stack.var / "db.sqlite3-wal"]
    size = sum(f.stat().st_size for f in files if f.exists())
    if size:
        sample["sqlite"] = {"file_mb": round(size / 2**20, 1)}
    return sample


def server_cpu(stack: Stack, servers: Servers) -> dict[str, float]:
    cpu = {f"daphne:{port}": cpu_seconds(p.pid) for port, p in stack.daphnes}
    if servers.worker:
        cpu["worker"] = cpu_seconds_with_children(servers.worker.pid)
    if servers.beat:
        cpu["beat"] = cpu_seconds(servers.beat.pid)
    master = stack.postmaster_pid()
    if master is not None:
        cpu["postgres"] = cpu_seconds_with_children(master)
    if stack.redis is not None:
        cpu["redis"] = cpu_seconds(stack.redis.pid)
    return cpu


# --- clients ------------------------------------------------------------------------------------


class Tally:
    """What one phase's sockets saw: counts, latency samples, and the first incidents in detail."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.n: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.closes: Counter[str] = Counter()  # unexpected closes, by close code
        self.handshakes: Counter[str] = Counter()  # failed handshakes, by cause
        self.samples: dict[str, list[float]] = defaultdict(list)
        self.incidents: list[dict[str, Any]] = []
        self.incident_counts: Counter[str] = Counter()

    def incident(self, kind: str, client: Client | None, **detail: Any) -> None:
        self.incident_counts[kind] += 1
        if len(self.incidents) >= MAX_INCIDENTS:
            return
        entry: dict[str, Any] = {"kind": kind, "at": round(time.monotonic() - T0, 3), **detail}
        if client is not None:
            entry.update(
                client=client.name,
                table=client.table_id,
                port=client.port,
                last_seq=client.last_seq,
                recent=list(client.trace)[-12:],
            )
        self.incidents.append(entry)


#: The run's time origin (incidents and traces are in seconds since it).
T0 = time.monotonic()


class Context:
    def __init__(self, ports: list[int], cookie: str, rng: random.Random) -> None:
        self.ports = ports
        self.cookie = cookie
        self.rng = rng
        self.stopping = False


class Group:
    """The sockets of one table, and an event set whenever one of them draws something."""

    def __init__(self, table_id: int) -> None:
        self.table_id = table_id
        self.changed = asyncio.Event()
        self.players: list[Client] = []
        self.watcher: Client | None = None

    def head(self) -> tuple[tuple[int, int], dict[str, Any]] | None:
        """The newest game view any up-to-date player holds."""
        best: tuple[tuple[int, int], dict[str, Any]] | None = None
        for c in self.players:
            if c.synced.is_set() and c.view is not None and (best is None or c.key > best[0]):
                best = (c.key, c.view)
        return best

    def watch(self) -> None:
        """Before looking at the sockets: any change from now on ends the next wait_change()."""
        self.changed.clear()

    async def wait_change(self, timeout: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.changed.wait(), max(0.0, timeout))


async def ws_connect(port: int, path: str, cookie: str, timeout: float) -> Any:
    from websockets.asyncio.client import connect

    return await connect(
        f"ws://127.0.0.1:{port}{path}",
        origin=f"http://localhost:{port}",  # type: ignore[arg-type]
        additional_headers=[("Cookie", cookie)],
        compression=None,
        ping_interval=None,  # a browser sends no pings of its own; it answers the server's
        open_timeout=timeout,
        close_timeout=2,
        max_size=2**22,
    )


def handshake_cause(exc: BaseException) -> str:
    from websockets.exceptions import InvalidStatus

    if isinstance(exc, InvalidStatus):
        return f"HTTP {exc.response.status_code}"
    if isinstance(exc, TimeoutError):
        return "timeout"
    if isinstance(exc, OSError):
        return f"{type(exc).__name__} (errno {exc.errno})"
    return type(exc).__name__


class Client:
    """One socket of one page, following docs/protocol.md as static/js/table.js does."""

    def __init__(
        self,
        ctx: Context,
        tally: Tally,
        group: Group,
        name: str,
        session: str,
        home: int,
        *,
        watcher: bool = False,
        auto_reconnect: bool = True,
    ) -> None:
        self.ctx = ctx
        self.tally = tally
        self.group = group
        self.table_id = group.table_id
        self.name = name
        self.cookie = f"{ctx.cookie}={session}"
        self.home = home
        self.port = home
        self.watcher = watcher
        self.auto_reconnect = auto_reconnect
        self.ws: Any = None
        self.reader: asyncio.Task[None] | None = None
        self.closing = False  # this client closes or drops the current connection itself
        self.restart_expected = False  # the bench is restarting the daphnes
        self.reconnecting = False
        self.last_seq: int | None = None  # the highest seq drawn (the page's state.lastSeq)
        self.reply_seq: int | None = None  # the last snapshot/resume's seq on this connection
        self.awaiting: str | None = None  # why a hello is waiting for its answer
        self.hello_last: int | None = None
        self.hello_at = 0.0
        self.reply: asyncio.Future[str] | None = None
        self.buffer: list[dict[str, Any]] = []  # updates that came before the answer to hello
        self.synced = asyncio.Event()  # connected and answered
        self.picture: dict[str, Any] | None = None
        self.view: dict[str, Any] | None = None
        self.key: tuple[int, int] = (0, -1)  # (game number, game version) last drawn
        self.pending: dict[str, asyncio.Future[dict[str, Any] | None]] = {}
        self.requests = 0
        self.pings: deque[float] = deque()
        self.washed: set[tuple[int, int]] = set()
        self.trace: deque[tuple[Any, ...]] = deque(maxlen=40)

    # connecting ----------------------------------------------------------------------------

    async def open(self, reason: str, port: int | None = None) -> bool:
        """Connect and say hello. False (and counted) when the handshake fails."""
        port = port if port is not None else self.home
        started = time.monotonic()
        try:
            ws = await ws_connect(port, f"/ws/tables/{self.table_id}/", self.cookie, 30)
        except Exception as exc:
            cause = handshake_cause(exc)
            self.tally.handshakes[cause] += 1
            self.tally.incident(
                "handshake_failure", self, cause=cause, reason=reason, error=str(exc)
            )
            return False
        self.tally.samples[f"handshake_s:{reason}"].append(time.monotonic() - started)
        self.port = port
        self.ws = ws
        self.closing = False
        self.reply_seq = None
        self.buffer = []
        self.trace.append((self._now(), "open", port, reason))
        self.reader = asyncio.create_task(self._read(ws))
        await self.hello(reason)
        return True

    async def hello(self, reason: str) -> None:
        if self.ws is None or self.awaiting is not None:
            return
        self.awaiting = reason
        self.hello_last = self.last_seq
        self.hello_at = time.monotonic()
        self.reply = asyncio.get_running_loop().create_future()
        self.tally.n[f"hello:{reason}"] += 1
        if not await self.send({"type": "hello", "last_seq": self.last_seq}):
            self.awaiting = None

    async def wait_reply(self, timeout: float) -> str:
        """ "snapshot", "resume", "closed" (the connection ended first) or "none" (no answer)."""
        if self.reply is None:
            return "none"
        try:
            return await asyncio.wait_for(asyncio.shield(self.reply), timeout)
        except TimeoutError:
            return "none"

    async def reconnect(self, reason: str, delay: float, *, attempts: int = 0) -> str:
        """Connect again after `delay` (retrying like the page) and wait for the answer."""
        if self.reconnecting:
            return "busy"
        self.reconnecting = True
        try:
            await asyncio.sleep(delay)
            backoff = 1.0
            tries = 0
            while True:
                if self.ctx.stopping and reason != "restart":
                    return "stopped"
                # A proxy spreads reconnects over the daphnes: not always the same one.
                port = self.home if reason == "restart" else self.ctx.rng.choice(self.ctx.ports)
                if await self.open(reason, port):
                    break
                tries += 1
                if attempts and tries >= attempts:
                    self.tally.n["gave_up_connecting"] += 1
                    return "failed"
                await asyncio.sleep(backoff)
                backoff = min(15.0, backoff * 2)
            self.tally.n["reconnects"] += 1
            outcome = await self.wait_reply(REPLY_TIMEOUT)
            if outcome in ("snapshot", "resume"):
                return outcome  # counted when it came
            # No answer, or the connection went first: this reconnect did not resume.
            self.tally.n["not_resumed"] += 1
            self.tally.n[f"not_resumed_{'no_reply' if outcome == 'none' else outcome}"] += 1
            self.tally.incident("reconnect_unanswered", self, reason=reason, outcome=outcome)
            if outcome == "none":
                self.awaiting = None
                await self.hello(reason + "_again")  # ask again so that the socket can go on
            return outcome
        finally:
            self.reconnecting = False

    async def drop(self) -> None:
        """Lose the connection abruptly: no close frame (a network cut, a laptop lid)."""
        ws = self.ws
        if ws is None:
            return
        self.closing = True
        self.trace.append((self._now(), "drop"))
        ws.transport.abort()
        if self.reader is not None:
            await asyncio.gather(self.reader, return_exceptions=True)

    async def close(self) -> None:
        ws = self.ws
        if ws is None:
            return
        self.closing = True
        with contextlib.suppress(Exception):
            await ws.close()
        if self.reader is not None:
            await asyncio.gather(self.reader, return_exceptions=True)

    async def send(self, message: dict[str, Any]) -> bool:
        ws = self.ws
        if ws is None:
            return False
        try:
            await ws.send(json.dumps(message))
        except Exception:
            return False
        self.trace.append((self._now(), "sent", message["type"]))
        return True

    @staticmethod
    def _now() -> float:
        return round(time.monotonic() - T0, 3)

    # receiving -----------------------------------------------------------------------------

    async def _read(self, ws: Any) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            while True:
                message = json.loads(await ws.recv())
                if self._takes(ws, message):
                    await self._handle(message)
        except ConnectionClosed:
            pass
        except Exception as exc:  # a bug in this client: say so, never hide it
            self.tally.n["client_exceptions"] += 1
            self.tally.incident("client_exception", self, error=repr(exc))
            self.closing = True
            ws.transport.abort()
        finally:
            self._closed(ws)

    def _takes(self, ws: Any, message: dict[str, Any]) -> bool:
        """Whether a message read on `ws` is handled (every one, here)."""
        return True

    def _closed(self, ws: Any) -> None:
        code = self._forget(ws)
        if self.closing:
            return
        if self.restart_expected:
            self.tally.n[f"closed_by_restart:{code}"] += 1
            return
        self.tally.closes[str(code)] += 1
        self.tally.incident("unexpected_close", self, code=code, reason=ws.close_reason or "")
        if self.auto_reconnect and not self.ctx.stopping:
            # The page reconnects after 1 s (then 2, 4, ... up to 15 s).
            task = asyncio.create_task(self.reconnect("after_close", 1.0))
            BACKGROUND.add(task)
            task.add_done_callback(BACKGROUND.discard)

    def _forget(self, ws: Any) -> int:
        """`ws` ended: whatever waited on it is answered and its state dropped. Its close code
        (1006 when it had none)."""
        code = int(ws.close_code) if ws.close_code is not None else 1006
        self.trace.append((self._now(), "closed", code, ws.close_reason or ""))
        if self.ws is ws:
            self.ws = None
        self.synced.clear()
        self.group.changed.set()  # wake whoever waits for this socket
        for future in self.pending.values():
            if not future.done():
                future.set_result(None)
        self.pending.clear()
        if self.reply is not None and not self.reply.done():
            self.reply.set_result("closed")
        self.awaiting = None
        self.buffer = []
        self.pings.clear()
        return code

    async def _handle(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        game = message.get("game")
        version = game.get("version") if isinstance(game, dict) else None
        self.trace.append((self._now(), kind, message.get("seq"), version, message.get("code")))
        self.tally.n[f"received:{kind}"] += 1
        if kind in ("snapshot", "resume"):
            await self._on_reply(message)
        elif kind == "update":
            if self.awaiting is not None:
                self.buffer.append(message)  # drawn after the answer to hello
            else:
                await self._on_update(message)
        elif kind == "ack":
            future = self.pending.pop(str(message.get("request_id")), None)
            if future is not None and not future.done():
                future.set_result(message)
        elif kind == "error":
            code = str(message.get("code", "?"))
            self.tally.errors[code] += 1
            self.tally.incident("error", self, code=code, message=message.get("message"))
            future = self.pending.pop(str(message.get("request_id")), None)
            if future is not None and not future.done():
                future.set_result(message)
        elif kind == "pong" and self.pings:
            self.tally.samples["pong_s"].append(time.monotonic() - self.pings.popleft())

    async def _on_reply(self, message: dict[str, Any]) -> None:
        reason, named = self.awaiting, self.hello_last
        self.awaiting = None
        kind = str(message["type"])
        seq = int(message["seq"])
        if reason is None:
            self.tally.n["unasked_replies"] += 1
            self.tally.incident("unasked_reply", self, type=kind, seq=seq)
        resumed = False
        if kind == "resume":
            batches = [b.get("seq") for b in message.get("events") or []]
            expected = list(range(named + 1, seq + 1)) if named is not None else None
            resumed = batches == expected
            if not resumed:
                self.tally.n["resume_inconsistent"] += 1
                self.tally.incident("resume_inconsistent", self, named=named, seq=seq, got=batches)
        base = reason or "?"
        self.tally.samples[f"reply_s:{base}"].append(time.monotonic() - self.hello_at)
        if base.endswith("_again"):
            self.tally.n["answers_to_asking_again"] += 1  # already counted as not resumed
        elif base == "connect":
            self.tally.n["hello_replies"] += 1
        elif base in RECONNECTS:
            if resumed:
                self.tally.n["resumed"] += 1
            else:
                self.tally.n["not_resumed"] += 1
                self.tally.incident("not_resumed", self, reason=reason, got=kind, named=named)
        elif base == "gap":
            if resumed:
                self.tally.n["gaps_filled"] += 1
            else:
                self.tally.n["gaps_unfilled"] += 1
                self.tally.incident("gap_unfilled", self, got=kind, named=named, seq=seq)
        elif reason is not None:  # a resync after a stall, an unanswered act or a stale one
            self.tally.n["resyncs" if resumed else "resyncs_not_resumed"] += 1
        if self.last_seq is not None and seq < self.last_seq:
            self.tally.n["seq_backwards"] += 1
            self.tally.incident("reply_behind", self, seq=seq, type=kind)
        self.last_seq = seq
        self.reply_seq = seq
        await self._draw(message)
        self.synced.set()
        if self.reply is not None and not self.reply.done():
            self.reply.set_result(kind)
        buffered, self.buffer = self.buffer, []
        for update in buffered:
            if self.awaiting is not None:
                self.buffer.append(update)
            else:
                await self._on_update(update)

    async def _on_update(self, message: dict[str, Any]) -> None:
        seq = int(message["seq"])
        last = self.last_seq
        if last is None or seq == last + 1:
            self.last_seq = seq
            await self._draw(message)
        elif seq <= last:
            if self.reply_seq is not None and seq <= self.reply_seq:
                # Sent before the answer to hello was read, which already brought it.
                self.tally.n["repeats_after_reply"] += 1
            else:
                self.tally.n["seq_backwards"] += 1
                self.tally.incident("seq_backwards", self, last=last, got=seq)
        else:
            self.tally.n["gaps"] += 1
            self.tally.incident("gap", self, last=last, got=seq)
            if self.watcher:
                # A watcher must receive every update in order (a resume is a failure here).
                self.tally.n["watcher_gaps"] += 1
            self.buffer = [message]
            await self.hello("gap")  # as the page does: resume from the last seq drawn

    async def _draw(self, message: dict[str, Any]) -> None:
        if isinstance(message.get("table"), dict):
            self.picture = message["table"]
        if "game" in message:
            self.view = message["game"]
        if self.view is not None:
            number = int((self.picture or {}).get("game_number") or 0)
            key = (number, int(self.view.get("version", -1)))
            if key < self.key:
                self.tally.n["version_backwards"] += 1
                self.tally.incident("version_backwards", self, was=self.key, now=key)
            self.key = key
        self.group.changed.set()
        if not self.watcher:
            await self._maybe_wash()

    async def _maybe_wash(self) -> None:
        """The page's maybeWash(): this browser's wash of the committed hand, once."""
        picture = self.picture or {}
        commitment = picture.get("commitment")
        seat = (picture.get("you") or {}).get("seat")
        if not commitment or seat is None:
            return
        hand = commitment["hand"]
        game = self.view
        if game and game.get("phase") == "awaiting_deal":
            if seat not in ((game.get("wash") or {}).get("seats") or []):
                return
        elif game and isinstance(game.get("deal"), int) and game["deal"] >= hand:
            return
        key = (int(picture.get("game_number") or 0), int(hand))
        if key in self.washed:
            return
        if await self.send({"type": "wash", "hand": hand, "entropy": os.urandom(32).hex()}):
            self.washed.add(key)
            self.tally.n["washes"] += 1

    # acting --------------------------------------------------------------------------------

    async def act(self, action: dict[str, Any], version: int) -> dict[str, Any] | None:
        """Send a game action; the ack or the error, or None when the connection went first."""
        self.requests += 1
        request_id = f"{self.name}-{self.requests}"
        future: asyncio.Future[dict[str, Any] | None] = asyncio.get_running_loop().create_future()
        self.pending[request_id] = future
        message = {"type": "act", "version": version, "action": action, "request_id": request_id}
        if not await self.send(message):
            self.pending.pop(request_id, None)
            return None
        try:
            return await asyncio.wait_for(future, ACK_TIMEOUT)
        except TimeoutError:
            self.pending.pop(request_id, None)
            self.tally.n["acts_unanswered"] += 1
            self.tally.incident("act_unanswered", self, request_id=request_id)
            await self.hello("act_timeout")  # as the page does when an act gets no answer
            return None

    def expire_pings(self) -> None:
        now = time.monotonic()
        while self.pings and now - self.pings[0] > PONG_TIMEOUT:
            self.pings.popleft()
            self.tally.n["pongs_missing"] += 1
            self.tally.incident("pong_missing", self)

    async def ping(self) -> None:
        self.expire_pings()
        if await self.send({"type": "ping"}):
            self.pings.append(time.monotonic())
            self.tally.n["pings"] += 1


#: Tasks started from callbacks, kept referenced until they end.
BACKGROUND: set[asyncio.Task[Any]] = set()


async def sleep_until(moment: float) -> None:
    await asyncio.sleep(max(0.0, moment - time.monotonic()))


def choose_action(view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    legal = view.get("legal_actions") or []
    if not legal:
        return None
    return {k: v for k, v in rng.choice(legal).items() if k != "seat"}


async def move_once(group: Group, tally: Tally, rng: random.Random, timeout: float) -> bool:
    """The player to act makes one random legal move; True when all four seats drew it."""
    deadline = time.monotonic() + timeout
    while True:
        group.watch()
        head = group.head()
        if head is not None:
            key, view = head
            seat = view.get("to_act")
            actor = group.players[seat] if isinstance(seat, int) else None
            if actor is not None and actor.synced.is_set() and actor.key == key:
                action = choose_action(actor.view or {}, rng)
                if action is not None:
                    break
        if time.monotonic() > deadline:
            tally.n["moves_not_made"] += 1
            tally.incident("move_not_made", None, table=group.table_id)
            return False
        await group.wait_change(0.5)
    sent = time.monotonic()
    reply = await actor.act(action, key[1])
    if reply is None or reply.get("type") != "ack":
        tally.n["moves_not_made"] += 1
        return False
    tally.n["moves"] += 1
    tally.samples["ack_s"].append(time.monotonic() - sent)
    target = (key[0], int(reply["version"]))
    while True:
        group.watch()
        if all(c.key >= target for c in group.players):
            break
        if time.monotonic() > deadline:
            lagging = [c for c in group.players if c.key < target]
            tally.n["updates_missing"] += len(lagging)
            for c in lagging:
                tally.incident("update_missing", c, wanted=target, have=c.key)
            return False
        await group.wait_change(0.5)
    tally.samples["delivery_s"].append(time.monotonic() - sent)
    return True


# --- the burst ----------------------------------------------------------------------------------


async def run_burst(
    args: argparse.Namespace, ctx: Context, servers: Servers, groups: list[dict[str, Any]]
) -> dict[str, Any]:
    tally = Tally("burst")
    rng = random.Random(args.seed * 7919 + 1)
    tables: list[Group] = []
    clients: list[Client] = []
    ports = ctx.ports
    for g, spec in enumerate(groups):
        group = Group(spec["table"])
        for s, session in enumerate(spec["sessions"]):
            c = Client(ctx, tally, group, f"b{g}.{s}", session, ports[(4 * g + s) % len(ports)],
                       auto_reconnect=False)  # fmt: skip
            group.players.append(c)
            clients.append(c)
        tables.append(group)
    load_before = os.getloadavg()
    log(f"burst: {len(clients)} sockets connecting within {args.burst_spread:g} s")

    def daphne_cpu() -> float:
        return sum(cpu_seconds(p.pid) for _, p in servers.stack.daphnes)

    cpu_connect = daphne_cpu()
    start = time.monotonic() + 0.5
    offsets = sorted(rng.uniform(0, args.burst_spread) for _ in clients)
    rng.shuffle(offsets)
    replies: list[float] = []

    async def first(c: Client, offset: float) -> None:
        await sleep_until(start + offset)
        tally.n["connects"] += 1
        backoff = 1.0
        for attempt in range(CONNECT_ATTEMPTS):
            if await c.open("connect"):  # a failure is counted in the handshake failures
                break
            if attempt == 0:
                tally.n["sockets_first_handshake_failed"] += 1
            await asyncio.sleep(backoff)  # the page tries again: 1, 2, 4, 8 s...
            backoff = min(15.0, backoff * 2)
        else:
            tally.n["sockets_never_connected"] += 1
            return
        outcome = await c.wait_reply(60)
        if outcome == "snapshot":
            replies.append(time.monotonic() - start - offset)
        else:
            tally.n["connect_replies_missing"] += 1
            tally.incident("connect_reply_missing", c, outcome=outcome)

    await asyncio.gather(*(first(c, o) for c, o in zip(clients, offsets, strict=True)))
    cpu_connect = daphne_cpu() - cpu_connect
    connect_s = max(replies) if replies else float("nan")
    log(
        f"burst: {len(replies)}/{len(clients)} snapshots, the last {connect_s:.1f} s after "
        "the start"
    )
    before = await asyncio.gather(*(move_once(g, tally, rng, 60) for g in tables))
    # Restart every daphne on its port, as a crash (SIGKILL) or a deploy (SIGTERM) does.
    for c in clients:
        c.restart_expected = True
    signum = signal.SIGKILL if args.restart_signal == "kill" else signal.SIGTERM
    log(f"burst: restarting {len(ports)} daphne(s) with {signal.Signals(signum).name}")
    restart_started = time.monotonic()
    await asyncio.to_thread(servers.kill_daphnes, signum)
    readers = [c.reader for c in clients if c.reader is not None]
    if readers:
        await asyncio.wait(readers, timeout=15)
    still_open = sum(1 for c in clients if c.ws is not None)
    await asyncio.to_thread(servers.start_daphnes)
    restart_s = time.monotonic() - restart_started
    cpu_reconnect = daphne_cpu()
    for c in clients:
        c.restart_expected = False
    log(f"burst: daphnes back in {restart_s:.1f} s; {len(clients)} sockets reconnect at once")
    reconnect_started = time.monotonic()
    outcomes = await asyncio.gather(
        *(c.reconnect("restart", 0.0, attempts=CONNECT_ATTEMPTS) for c in clients)
    )
    reconnect_s = time.monotonic() - reconnect_started
    cpu_reconnect = daphne_cpu() - cpu_reconnect
    after = await asyncio.gather(*(move_once(g, tally, rng, 60) for g in tables))
    await asyncio.gather(*(c.close() for c in clients))
    resumed = Counter(outcomes)
    log(f"burst: after the restart {dict(resumed)}")
    return {
        "tally": tally,
        "sockets": len(clients),
        "spread_s": args.burst_spread,
        "snapshots": len(replies),
        "all_replied_after_s": connect_s,
        "reply_after_connect_start": latency_summary(replies),
        "moves_before_delivered": sum(before),
        "moves_after_delivered": sum(after),
        "tables": len(tables),
        "restart_signal": signal.Signals(signum).name,
        "restart_seconds": round(restart_s, 2),
        "still_open_after_kill": still_open,
        "reconnect_outcomes": dict(resumed),
        "reconnect_all_answered_s": round(reconnect_s, 2),
        "load_average": {"before": load_before, "after": os.getloadavg()},
        # CPU the daphnes used for each wave, per socket (retries included)
        "daphne_cpu_ms_per_socket": {
            "connect": round(cpu_connect / len(clients) * 1000, 1),
            "reconnect": round(cpu_reconnect / len(clients) * 1000, 1),
        },
    }


# --- the soak -----------------------------------------------------------------------------------


class Clock:
    def __init__(self, t0: float, warmup: float, seconds: float) -> None:
        self.t0 = t0
        self.start = t0 + warmup
        self.end = self.start + seconds


class TableRun:
    """One table played at a human pace: moves every few seconds, silences, rematches."""

    def __init__(
        self, args: argparse.Namespace, ctx: Context, tally: Tally, group: Group, seed: int
    ) -> None:
        self.args = args
        self.ctx = ctx
        self.tally = tally
        self.group = group
        self.rng = random.Random(seed)
        self.offered: set[int] = set()
        self.over_since: float | None = None
        self.tasks: list[asyncio.Task[None]] = []

    async def run(self, clock: Clock) -> None:
        group = self.group
        lo, hi = self.args.move_seconds
        # Start once every socket of the table has its snapshot (they arrive over the ramp).
        everyone = [*group.players, *([group.watcher] if group.watcher else [])]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*(c.synced.wait() for c in everyone)), 120)
        while time.monotonic() < clock.end:
            pause = self.rng.uniform(lo, hi)
            await asyncio.sleep(min(pause, max(0.0, clock.end - time.monotonic())))
            if time.monotonic() >= clock.end:
                break
            if self.rng.random() < (lo + hi) / 2 / self.args.silence_every:
                silence = self.rng.uniform(10, self.args.silence_max)
                self.tally.n["silences"] += 1
                self.tally.samples["silence_s"].append(silence)
                await asyncio.sleep(min(silence, max(0.0, clock.end - time.monotonic())))
                continue
            await self.step(clock)
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)

    async def step(self, clock: Clock) -> None:
        group, tally = self.group, self.tally
        waited_from = time.monotonic()
        while True:
            group.watch()
            head = group.head()
            if head is not None:
                key, view = head
                if view.get("phase") == "game_over":
                    self.rematch(key[0])
                    return
                self.over_since = None
                seat = view.get("to_act")
                actor = group.players[seat] if isinstance(seat, int) else None
                if actor is not None and actor.synced.is_set() and actor.key == key:
                    action = choose_action(actor.view or {}, self.rng)
                    if action is not None:
                        break
            if time.monotonic() - waited_from > ACTOR_WAIT or time.monotonic() >= clock.end:
                tally.n["waits_for_actor"] += 1  # the player is away (dropped): a table waits
                return
            await group.wait_change(1.0)
        witnesses = [c for c in [*group.players, group.watcher] if c and c.synced.is_set()]
        sent = time.monotonic()
        reply = await actor.act(action, key[1])
        if reply is None:
            tally.n["acts_interrupted"] += 1  # the connection went (a drop) or no answer
            return
        if reply.get("type") == "error":
            if reply.get("code") == "stale":
                await actor.hello("stale")  # as the page does
            return
        tally.n["moves"] += 1
        if clock.start <= time.monotonic() <= clock.end:
            tally.n["moves_measured"] += 1
        tally.samples["ack_s"].append(time.monotonic() - sent)
        target = (key[0], int(reply["version"]))
        until = sent + DELIVERY_TIMEOUT
        while True:
            group.watch()
            if not all(c.synced.is_set() for c in witnesses):
                # A socket dropped meanwhile: no delivery time to take (it resumes by itself).
                tally.n["delivery_not_timed"] += 1
                return
            lagging = [c for c in witnesses if c.key < target]
            if not lagging:
                tally.samples["delivery_s"].append(time.monotonic() - sent)
                return
            if time.monotonic() > until:
                tally.n["stalled"] += len(lagging)
                for c in lagging:
                    tally.incident("stalled", c, wanted=target, have=c.key)
                    await c.hello("stall")
                return
            await group.wait_change(until - time.monotonic())

    def rematch(self, number: int) -> None:
        """The game is over: each player offers a rematch after a moment, as people do."""
        now = time.monotonic()
        if number not in self.offered:
            self.offered.add(number)
            self.over_since = now
            self.tally.n["games_finished"] += 1
            for player in self.group.players:
                self.tasks.append(asyncio.create_task(self.offer(player, number)))
        elif self.over_since is not None and now - self.over_since > 90:
            self.tally.n["rematches_stuck"] += 1
            self.tally.incident("rematch_stuck", None, table=self.group.table_id, game=number)
            self.over_since = None

    async def offer(self, player: Client, number: int) -> None:
        await asyncio.sleep(self.rng.uniform(1, 5))
        while not self.ctx.stopping:
            head = self.group.head()
            if head is not None and head[0][0] > number:
                return
            ready = player.synced.is_set() and player.key[0] == number
            if ready and await player.send({"type": "rematch", "want": True}):
                self.tally.n["rematch_offers"] += 1
                return
            await asyncio.sleep(0.5)


async def pinger(ctx: Context, client: Client, rng: random.Random) -> None:
    await asyncio.sleep(rng.uniform(0, PING_SECONDS))
    while not ctx.stopping:
        await client.ping()
        await asyncio.sleep(PING_SECONDS)


async def dropper(
    ctx: Context, client: Client, moments: list[float], rng: random.Random, tally: Tally
) -> None:
    for moment in moments:
        await sleep_until(moment)
        if ctx.stopping:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(client.synced.wait(), 30)
        if client.ws is None or client.reconnecting:
            continue
        tally.n["drops"] += 1
        await client.drop()
        await client.reconnect("drop", rng.uniform(1, 20))


async def sampler(
    stack: Stack, servers: Servers, clock: Clock, every: float, out: list[dict[str, Any]]
) -> None:
    await sleep_until(clock.start)
    while True:
        sample = await asyncio.to_thread(memory_sample, stack, servers)
        out.append({"t": round(time.monotonic() - clock.start, 1), "memory": sample})
        if time.monotonic() >= clock.end - 0.5:
            return
        await sleep_until(min(clock.end, time.monotonic() + every))


async def run_soak(
    args: argparse.Namespace,
    ctx: Context,
    stack: Stack,
    servers: Servers,
    groups: list[dict[str, Any]],
) -> dict[str, Any]:
    tally = Tally("soak")
    load_before = os.getloadavg()
    rng = random.Random(args.seed * 104729 + 2)
    ports = ctx.ports
    tables: list[TableRun] = []
    players: list[Client] = []
    watchers: list[Client] = []
    for g, spec in enumerate(groups):
        group = Group(spec["table"])
        for s, session in enumerate(spec["sessions"]):
            c = Client(ctx, tally, group, f"t{g}.s{s}", session, ports[(5 * g + s) % len(ports)])
            group.players.append(c)
            players.append(c)
        group.watcher = Client(ctx, tally, group, f"t{g}.w", spec["watcher"],
                               ports[(5 * g + 4) % len(ports)], watcher=True)  # fmt: skip
        watchers.append(group.watcher)
        tables.append(TableRun(args, ctx, tally, group, args.seed * 1000003 + g))
    seconds = args.minutes * 60
    clock = Clock(time.monotonic() + 0.5, args.warmup, seconds)
    log(
        f"soak: {len(tables)} tables x (4 players + 1 silent watcher) = "
        f"{len(players) + len(watchers)} sockets over {args.ramp:g} s; warm-up {args.warmup:g} s, "
        f"then {args.minutes:g} min"
    )

    async def arrive(c: Client, delay: float) -> None:
        await sleep_until(clock.t0 + delay)
        tries = 0
        while not await c.open("connect", c.home):
            tries += 1
            if tries >= 5:
                return
            await asyncio.sleep(min(15.0, 2.0**tries))
        if await c.wait_reply(REPLY_TIMEOUT) != "snapshot":
            tally.n["connect_replies_missing"] += 1
            tally.incident("connect_reply_missing", c)

    everyone = players + watchers
    arrivals = [arrive(c, rng.uniform(0, args.ramp)) for c in everyone]
    droppers = rng.sample(players, round(len(players) * args.drop_fraction))
    drops_each = max(1, round(args.minutes / 5))
    window = (clock.start, clock.end - 25)
    background: list[asyncio.Task[Any]] = [
        asyncio.create_task(pinger(ctx, c, random.Random(rng.random()))) for c in players
    ]
    if window[1] > window[0]:
        for c in droppers:
            moments = sorted(rng.uniform(*window) for _ in range(drops_each))
            background.append(
                asyncio.create_task(dropper(ctx, c, moments, random.Random(rng.random()), tally))
            )
    memory: list[dict[str, Any]] = []
    monitor = asyncio.create_task(sampler(stack, servers, clock, args.sample_every, memory))
    offsets = servers.log_offsets()
    await asyncio.gather(*arrivals)
    log(f"soak: {tally.n['hello_replies']} of {len(everyone)} sockets have their snapshot")
    playing = asyncio.gather(*(t.run(clock) for t in tables))
    cpu_before: dict[str, float] = {}
    busy_before = (0.0, 0.0)
    await sleep_until(clock.start)
    cpu_before = server_cpu(stack, servers)
    busy_before = system_busy()
    log(f"soak: warm-up over; measuring for {args.minutes:g} min")
    next_note = clock.start + 60
    while time.monotonic() < clock.end:
        await sleep_until(min(clock.end, next_note))
        if time.monotonic() >= next_note:
            next_note += 60
            dead = servers.dead()
            log(
                f"soak: {(time.monotonic() - clock.start) / 60:.0f} min: moves "
                f"{tally.n['moves']}, drops {tally.n['drops']}, resumed {tally.n['resumed']}, "
                f"unexpected closes {sum(tally.closes.values())}, gaps {tally.n['gaps']}, "
                f"errors {sum(tally.errors.values())}" + (f"; DEAD: {dead}" if dead else "")
            )
    cpu_after = server_cpu(stack, servers)
    busy_after = system_busy()
    await playing
    await monitor
    # Let every reconnect in flight finish, then stop the keep-alives.
    for task in background[len(players) :]:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(task), 40)
    ctx.stopping = True
    for task in background:
        task.cancel()
    await asyncio.gather(*background, return_exceptions=True)
    await asyncio.sleep(args.settle)
    # Every socket must have drawn every event its table recorded (a lost last update shows
    # only here: nothing later reveals the gap).
    asked = stack.tmp / "results-spec.json"
    asked.write_text(json.dumps({"tables": [t.group.table_id for t in tables]}))
    results_path = stack.tmp / "results.json"
    await asyncio.to_thread(django_role, stack, "results", str(asked), str(results_path))
    db = json.loads(results_path.read_text())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(
        (c.last_seq or 0) < db["seq"][str(c.table_id)] for c in everyone
    ):
        await asyncio.sleep(0.2)
    for c in players:
        c.expire_pings()
    for c in everyone:
        want = db["seq"][str(c.table_id)]
        if c.ws is None:
            tally.n["disconnected_at_end"] += 1
            tally.incident("disconnected_at_end", c)
        if (c.last_seq or 0) < want:
            tally.n["missing_at_end"] += 1
            tally.incident("missing_at_end", c, database_seq=want)
    log_until = servers.log_offsets()
    await asyncio.gather(*(c.close() for c in everyone))
    ctx.stopping = False
    window_s = clock.end - clock.start
    cpu = {k: (cpu_after.get(k, 0.0) - v) / window_s * 100 for k, v in cpu_before.items()}
    busy = busy_after[0] - busy_before[0]
    total = busy_after[1] - busy_before[1]
    cpu["machine"] = busy / total * 100 * (os.cpu_count() or 1) if total else float("nan")
    return {
        "tally": tally,
        "tables": len(tables),
        "players": len(players),
        "watchers": len(watchers),
        "droppers": len(droppers),
        "drops_planned": len(droppers) * drops_each if window[1] > window[0] else 0,
        "minutes": args.minutes,
        "warmup_s": args.warmup,
        "memory_samples": memory,
        "database": db,
        "cpu_percent_of_one_core": {k: round(v, 1) for k, v in cpu.items()},
        "log_offsets": (offsets, log_until),
        "load_average": {"before": load_before, "after": os.getloadavg()},
    }


# --- the report ---------------------------------------------------------------------------------


def fmt_latency(samples: list[float]) -> str:
    if not samples:
        return "none"
    d = latency_summary(samples)
    return (
        f"p50 {d['p50_ms']:.0f} ms, p99 {d['p99_ms']:.0f} ms, max {d['max_ms']:.0f} ms "
        f"({len(samples)})"
    )


def fmt_load(load: tuple[float, float, float]) -> str:
    return " / ".join(f"{v:.1f}" for v in load)


def tally_json(tally: Tally) -> dict[str, Any]:
    return {
        "counts": dict(sorted(tally.n.items())),
        "errors": dict(tally.errors),
        "unexpected_closes": dict(tally.closes),
        "handshake_failures": dict(tally.handshakes),
        "latency": {k: latency_summary(v) for k, v in sorted(tally.samples.items())},
        "incident_counts": dict(tally.incident_counts),
        "incidents": tally.incidents,
    }


def memory_table(samples: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Start (after the warm-up), end and max of each process's RSS and PSS, in MB."""
    table: dict[str, dict[str, float]] = {}
    if not samples:
        return table
    first, last = samples[0]["memory"], samples[-1]["memory"]
    for name in last:
        for measure in ("rss_mb", "pss_mb", "used_memory_mb", "keys", "file_mb"):
            values = [
                s["memory"][name][measure] for s in samples if measure in s["memory"].get(name, {})
            ]
            values = [v for v in values if v == v]  # no NaN
            if not values or measure not in last[name]:
                continue
            table[f"{name} {measure}"] = {
                "start": first.get(name, {}).get(measure, float("nan")),
                "end": last[name][measure],
                "max": max(values),
            }
    return table


def report(
    args: argparse.Namespace,
    stack: Stack,
    servers: Servers,
    setup: dict[str, Any],
    burst: dict[str, Any] | None,
    soak: dict[str, Any] | None,
    logs_burst: dict[str, Any] | None,
    logs_soak: dict[str, Any] | None,
) -> tuple[dict[str, Any], bool]:
    what = (
        "embedded (SQLite, in-memory channel layer, filesystem broker)"
        if args.stack == "embedded"
        else "production (PostgreSQL 15 fsync=off, Redis channel layer, broker and cache)"
    )
    lines = [
        "",
        "Dominologist soak test",
        f"  stack        {what}, DEBUG={stack.env['DEBUG']}",
        f"  servers      {len(servers.ports)} daphne(s) (ports "
        f"{', '.join(map(str, servers.ports))}), 1 Celery worker (2 processes), 1 beat; "
        "started as `make run` does",
        f"  machine      {os.cpu_count()} cores, {stack.load_before:.0f}% of one core busy before "
        f"the run; code {code_revision()} in {ROOT}; setup {setup.get('setup_seconds', '?')} s",
    ]
    targets: list[tuple[str, str, int]] = []

    def logs_line(found: dict[str, Any] | None, only: str | None = None) -> tuple[int, int, str]:
        if not found:
            return 0, 0, "no logs"
        picked = {k: v for k, v in found.items() if only is None or k.startswith(only)}
        tracebacks = sum(v["tracebacks"] for v in picked.values())
        maxconn = sum(v["max_connections_errors"] for v in picked.values())
        shown = Counter[str]()
        for v in picked.values():
            shown.update(v["exceptions"])
        detail = "; ".join(f"{n} x {e}" for e, n in shown.most_common(4))
        return tracebacks, maxconn, detail

    if burst is not None:
        t: Tally = burst["tally"]
        n = burst["sockets"]
        outcomes = burst["reconnect_outcomes"]
        restart_closes = {
            k.split(":")[1]: v for k, v in t.n.items() if k.startswith("closed_by_restart:")
        }
        tb, maxconn, detail = logs_line(logs_burst, "daphne")
        tb_all, _, _ = logs_line(logs_burst)
        killed = sum(v["instances_killed"] for v in (logs_burst or {}).values())
        lines += [
            "",
            f"burst: {burst['tables']} tables x 4 = {n} sockets connecting within "
            f"{burst['spread_s']:g} s, then the daphnes restarted and everyone reconnecting at "
            "once",
            f"  connect      snapshots {burst['snapshots']}/{n}, the last "
            f"{burst['all_replied_after_s']:.1f} s after the start; first handshake failed for "
            f"{t.n['sockets_first_handshake_failed']} sockets, never connected "
            f"{t.n['sockets_never_connected']}; failed handshakes in all (with the reconnects) "
            f"{sum(t.handshakes.values())} {dict(t.handshakes) or ''}",
            f"  handshake                 {fmt_latency(t.samples['handshake_s:connect'])} "
            "(daphne gives up at 5 s)",
            f"  hello -> snapshot         {fmt_latency(t.samples['reply_s:connect'])}",
            f"  one move per table        delivered to all four at "
            f"{burst['moves_before_delivered']}/{burst['tables']} tables",
            f"  restart      {burst['restart_signal']}, back in {burst['restart_seconds']:.1f} s; "
            f"closes seen {restart_closes or 'none'}; still open after the kill "
            f"{burst['still_open_after_kill']}",
            f"  reconnect    resumed {t.n['resumed']}/{n}, did not resume {t.n['not_resumed']} "
            f"(outcomes {outcomes}); all answered in {burst['reconnect_all_answered_s']:.1f} s",
            f"  handshake                 {fmt_latency(t.samples['handshake_s:restart'])}",
            f"  hello -> resume           {fmt_latency(t.samples['reply_s:restart'])}",
            f"  one move per table        delivered to all four at "
            f"{burst['moves_after_delivered']}/{burst['tables']} tables",
            f"  errors {dict(t.errors) or 'none'}; unexpected closes {dict(t.closes) or 'none'}; "
            f"tracebacks in daphne logs {tb} (MaxConnectionsError {maxconn})"
            + (f": {detail}" if detail else "")
            + (f"; in worker/beat logs {tb_all - tb}" if tb_all - tb else ""),
            f"  daphne       application instances killed after their connection was given up "
            f'("took too long to shut down"): {killed}',
            f"  load average before {fmt_load(burst['load_average']['before'])}, after "
            f"{fmt_load(burst['load_average']['after'])} ({os.cpu_count()} cores); daphne CPU "
            f"per socket {burst['daphne_cpu_ms_per_socket']['connect']:.1f} ms (connect wave), "
            f"{burst['daphne_cpu_ms_per_socket']['reconnect']:.1f} ms (reconnect wave)",
        ]
        closes_1011 = t.closes.get("1011", 0) + int(restart_closes.get("1011", 0))
        targets += [
            ("burst", "handshake failures", sum(t.handshakes.values())),
            ("burst", "sockets without their snapshot", n - burst["snapshots"]),
            ("burst", "1011 closes", closes_1011),
            ("burst", "other unexpected closes", sum(t.closes.values()) - t.closes.get("1011", 0)),
            ("burst", "error messages", sum(t.errors.values())),
            (
                "burst",
                "reconnects that did not resume",
                t.n["not_resumed"] + t.n["gave_up_connecting"],
            ),
            (
                "burst",
                "moves not delivered to all four",
                2 * burst["tables"]
                - burst["moves_before_delivered"]
                - burst["moves_after_delivered"],
            ),
            ("burst", "tracebacks in server logs", tb_all),
        ]
    if soak is not None:
        t = soak["tally"]
        db = soak["database"]
        lost = {
            "gaps not filled by a resume": t.n["gaps_unfilled"],
            "seq backwards": t.n["seq_backwards"],
            "game version backwards": t.n["version_backwards"],
            "resumes not contiguous": t.n["resume_inconsistent"],
            "watcher gaps": t.n["watcher_gaps"],
            "updates stalled > 15 s": t.n["stalled"],
            "sockets missing events at the end": t.n["missing_at_end"],
        }
        other_errors = {k: v for k, v in t.errors.items() if k not in BENIGN_ERRORS}
        benign = {k: v for k, v in t.errors.items() if k in BENIGN_ERRORS}
        tb, maxconn, detail = logs_line(logs_soak)
        silences = t.samples["silence_s"]
        lines += [
            "",
            f"soak: {soak['tables']} tables x (4 players + 1 silent watcher) = "
            f"{soak['players'] + soak['watchers']} sockets; {soak['minutes']:g} min after a "
            f"{soak['warmup_s']:g} s warm-up; a move every {args.move_seconds[0]:g}-"
            f"{args.move_seconds[1]:g} s per table",
            f"  moves        {t.n['moves']} acknowledged ({t.n['moves_measured']} after the "
            f"warm-up, {t.n['moves_measured'] / max(1e-9, soak['minutes']):.0f}/min); the "
            f"database has {db['player_moves']} player moves; games finished "
            f"{t.n['games_finished']} (database {db['games_finished']}), rematch offers "
            f"{t.n['rematch_offers']}, stuck {t.n['rematches_stuck']}",
            f"  pace         silences {len(silences)} (mean "
            f"{sum(silences) / max(1, len(silences)):.0f} s), waits for an away player "
            f"{t.n['waits_for_actor']}, acts interrupted by a drop "
            f"{t.n['acts_interrupted']}, unanswered {t.n['acts_unanswered']}",
            f"  move -> ack               {fmt_latency(t.samples['ack_s'])}",
            f"  move -> every socket      {fmt_latency(t.samples['delivery_s'])}",
            f"  keep-alive   pings {t.n['pings']}, pongs missing {t.n['pongs_missing']}, "
            f"ping -> pong {fmt_latency(t.samples['pong_s'])}; washes {t.n['washes']}",
            f"  drops        {t.n['drops']} by {soak['droppers']} players; reconnects "
            f"{t.n['reconnects']}: resumed {t.n['resumed']}, did not resume {t.n['not_resumed']}"
            f" (no reply {t.n['not_resumed_no_reply']})",
            f"  hello -> resume           {fmt_latency(t.samples['reply_s:drop'])}",
            f"  handshake                 {fmt_latency(t.samples['handshake_s:connect'])} "
            f"(arrival), {fmt_latency(t.samples['handshake_s:drop'])} (after a drop)",
            f"  unexpected closes {dict(t.closes) or 'none'}; handshake failures "
            f"{dict(t.handshakes) or 'none'}",
            f"  order        gaps seen {t.n['gaps']} (filled by a resume {t.n['gaps_filled']}); "
            + ", ".join(f"{k} {v}" for k, v in lost.items()),
            f"  errors       {other_errors or 'none'}"
            + (f" (and ignored as the page does: {benign})" if benign else ""),
            f"  server logs  tracebacks {tb} (MaxConnectionsError {maxconn})"
            + (f": {detail}" if detail else ""),
            f"  load average before {fmt_load(soak['load_average']['before'])}, after "
            f"{fmt_load(soak['load_average']['after'])} ({os.cpu_count()} cores)",
            "  cpu (% of one core, after the warm-up)  "
            + ", ".join(f"{k} {v:.0f}" for k, v in soak["cpu_percent_of_one_core"].items()),
            "",
            "  memory (MB)                          start      end      max",
        ]
        for name, row in memory_table(soak["memory_samples"]).items():
            lines.append(f"    {name:32} {row['start']:8.1f} {row['end']:8.1f} {row['max']:8.1f}")
        lines.append("    (RSS per process; PSS counts shared pages once: for the worker's pool")
        lines.append("     and PostgreSQL's backends it is the sum that means something)")
        targets += [
            ("soak", "unexpected closes", sum(t.closes.values())),
            ("soak", "updates lost or out of order", sum(lost.values())),
            ("soak", "reconnects that did not resume", t.n["not_resumed"]),
            ("soak", "handshake failures", sum(t.handshakes.values())),
            ("soak", "errors received", sum(other_errors.values())),
            ("soak", "acts or pings unanswered", t.n["acts_unanswered"] + t.n["pongs_missing"]),
            ("soak", "tracebacks in server logs", tb),
            ("soak", "client exceptions (bench bugs)", t.n["client_exceptions"]),
        ]
    ok = all(value == 0 for _, _, value in targets)
    lines += ["", "targets (each 0)"]
    for phase, name, value in targets:
        lines.append(f"  {phase:5} {name:38} {'yes' if value == 0 else 'NO '}  ({value})")
    lines.append(f"all targets met: {'yes' if ok else 'NO'}")
    print("\n".join(lines), flush=True)
    figures: dict[str, Any] = {
        "stack": args.stack,
        "debug": stack.env["DEBUG"],
        "daphnes": len(servers.ports),
        "command": "bench/soak.py " + " ".join(sys.argv[1:]),
        "code": code_revision(),
        "tree": str(ROOT),
        "machine_load_before_percent": round(stack.load_before, 1),
        "setup_seconds": setup.get("setup_seconds"),
        "targets": [{"phase": p, "name": n, "value": v, "met": v == 0} for p, n, v in targets],
        "all_met": ok,
    }
    if burst is not None:
        figures["burst"] = {**{k: v for k, v in burst.items() if k != "tally"},
                            **tally_json(burst["tally"]), "logs": logs_burst}  # fmt: skip
    if soak is not None:
        figures["soak"] = {
            **{k: v for k, v in soak.items() if k not in ("tally", "log_offsets")},
            **tally_json(soak["tally"]),
            "memory": memory_table(soak["memory_samples"]),
            "logs": logs_soak,
        }
    return figures, ok


def record(figures: dict[str, Any]) -> Path:
    """Keep the last full run's summary per stack under bench/results/ (as ws_load.py does)."""
    path = ROOT / "bench" / "results" / f"soak-{figures['stack']}.json"
    path.parent.mkdir(exist_ok=True)

    def ms(summary: dict[str, float] | None) -> dict[str, float] | None:
        return {k: round(v, 1) for k, v in summary.items()} if summary else None

    summary: dict[str, Any] = {
        "command": figures["command"],
        "code": figures["code"],
        "when": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "daphnes": figures["daphnes"],
        "machine_load_before_percent": figures["machine_load_before_percent"],
        "all_met": figures["all_met"],
        "targets": {f"{t['phase']}: {t['name']}": t["value"] for t in figures["targets"]},
    }
    burst = figures.get("burst")
    if burst:
        summary["burst"] = {
            "sockets": burst["sockets"],
            "snapshots": burst["snapshots"],
            "reconnect_outcomes": burst["reconnect_outcomes"],
            "handshake_ms": ms(burst["latency"].get("handshake_s:connect")),
            "hello_reply_ms": ms(burst["latency"].get("reply_s:connect")),
            "resume_ms": ms(burst["latency"].get("reply_s:restart")),
            "load_average": burst["load_average"],
        }
    soak = figures.get("soak")
    if soak:
        counts = soak["counts"]
        summary["soak"] = {
            "tables": soak["tables"],
            "minutes": soak["minutes"],
            "moves": counts.get("moves", 0),
            "drops": counts.get("drops", 0),
            "resumed": counts.get("resumed", 0),
            "games_finished": counts.get("games_finished", 0),
            "delivery_ms": ms(soak["latency"].get("delivery_s")),
            "memory_mb": soak["memory"],
            "load_average": soak["load_average"],
        }
    path.write_text(json.dumps(summary, indent=2, default=str) + "\n")
    return path


# --- main ---------------------------------------------------------------------------------------


async def run_all(
    args: argparse.Namespace, stack: Stack, servers: Servers, setup: dict[str, Any]
) -> tuple[dict[str, Any] | None, dict[str, Any] | None, Any, Any]:
    ctx = Context(servers.ports, setup["cookie"], random.Random(args.seed))
    burst = soak = None
    logs_burst = logs_soak = None
    if not args.no_burst:
        before = servers.log_offsets()
        burst = await run_burst(args, ctx, servers, setup["burst"])
        await asyncio.sleep(2)  # the daphnes write what the closes caused
        logs_burst = scan_logs(servers.logs, before, None)
    if not args.burst_only:
        soak = await run_soak(args, ctx, stack, servers, setup["soak"])
        since, until = soak["log_offsets"]
        logs_soak = scan_logs(servers.logs, since, until)
    return burst, soak, logs_burst, logs_soak


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--stack", choices=["embedded", "production"], default="embedded")
    parser.add_argument("--daphnes", type=int, default=None, help="default 1 embedded, 2 prod.")
    parser.add_argument("--tables", type=int, default=50, help="soak tables (4 players each)")
    parser.add_argument("--minutes", type=float, default=20, help="soak, after the warm-up")
    parser.add_argument("--warmup", type=float, default=30, help="seconds before measuring")
    parser.add_argument("--ramp", type=float, default=10, help="seconds over which sockets come")
    parser.add_argument(
        "--move-seconds",
        default="2,6",
        help="a table's pause between moves: uniform between these two (seconds)",
    )
    parser.add_argument("--silence-max", type=float, default=120, help="longest silence (s)")
    parser.add_argument(
        "--silence-every", type=float, default=300, help="mean seconds of play between silences"
    )
    parser.add_argument("--drop-fraction", type=float, default=0.05, help="players who drop")
    parser.add_argument("--burst-tables", type=int, default=100)
    parser.add_argument("--burst-spread", type=float, default=1.0, help="seconds to connect in")
    parser.add_argument("--restart-signal", choices=["kill", "term"], default="kill")
    phases = parser.add_mutually_exclusive_group()
    phases.add_argument("--burst-only", action="store_true", help="only the burst phase")
    phases.add_argument("--no-burst", action="store_true", help="only the soak phase")
    parser.add_argument("--sample-every", type=float, default=10, help="memory, seconds")
    parser.add_argument("--settle", type=float, default=3, help="seconds before the final check")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument(
        "--no-record",
        action="store_true",
        help="do not write bench/results/soak-STACK.json (written after a run of both phases)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary folders")
    parser.add_argument("--_setup", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--_results", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.daphnes is None:
        args.daphnes = 1 if args.stack == "embedded" else 2
    lo, _, hi = args.move_seconds.partition(",")
    args.move_seconds = (float(lo), float(hi or lo))
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args._setup:
        setup_role(*args._setup)
        return 0
    if args._results:
        results_role(*args._results)
        return 0

    def stop(signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, stop)
    load = machine_load()
    if load > 15:
        log(f"WARNING: the machine is already busy ({load:.0f}% of one core) before the run")
    # ws_load's Stack, with the application and settings `make run` serves.
    stack = Stack(
        argparse.Namespace(
            stack=args.stack,
            settings="dominoes_site.settings",
            debug=args.stack == "embedded",  # as `make run` (embedded) and a deployment
            pin=False,
            asgi="dominoes_site.asgi:application",
            keep=args.keep,
        )
    )
    stack.load_before = load
    servers = Servers(stack, args.daphnes)
    try:
        if args.stack == "production":
            log("starting a private PostgreSQL cluster (fsync off) and redis-server (no saving)")
            stack.start_postgres()
            stack.start_redis()
        log(f"migrating ({args.stack}) in {stack.var}")
        stack.manage("migrate", "--noinput", "-v", "0")
        soak_tables = 0 if args.burst_only else args.tables
        burst_tables = 0 if args.no_burst else args.burst_tables
        log(f"creating players and {soak_tables} + {burst_tables} started tables")
        spec = stack.tmp / "spec.json"
        out = stack.tmp / "setup.json"
        spec.write_text(json.dumps({"soak": soak_tables, "burst": burst_tables}))
        django_role(stack, "setup", str(spec), str(out))
        setup = json.loads(out.read_text())
        servers.start_daphnes()
        servers.start_celery()
        log(f"daphne on {', '.join(map(str, servers.ports))}, worker and beat started")
        time.sleep(3)  # the worker and the beat connect to the broker
        burst, soak, logs_burst, logs_soak = asyncio.run(run_all(args, stack, servers, setup))
        dead = servers.dead()
        if dead:
            log(f"server processes that stopped during the run: {dead}")
        figures, ok = report(args, stack, servers, setup, burst, soak, logs_burst, logs_soak)
        figures["dead_processes"] = dead
        if not (args.no_record or args.burst_only or args.no_burst):
            log(f"recorded {record(figures).relative_to(ROOT)}")
        if args.json:
            Path(args.json).write_text(json.dumps(figures, indent=2, default=str))
            log(f"wrote {args.json}")
        return 0 if ok and not dead else 1
    except KeyboardInterrupt:
        log("interrupted; stopping everything")
        return 130
    finally:
        stack.close()


if __name__ == "__main__":
    raise SystemExit(main())
