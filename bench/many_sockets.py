"""Many sockets on one box: 10,000 open sockets in a realistic mix, and one table watched by 1,000.

    .venv/bin/python bench/many_sockets.py                          # full size, production stack
    .venv/bin/python bench/many_sockets.py --tables 200 --watchers 800 --lobby 400 --spectators 200
    .venv/bin/python bench/many_sockets.py --code-root /tmp/old-tree   # the servers run that code
    .venv/bin/python bench/compare.py --script many_sockets.py --rev b8f44db --rounds 1

It reuses bench/ws_load.py's machinery: a private PostgreSQL cluster (fsync off) and redis-server
(`--stack production`, the default; `embedded`: SQLite and the in-memory layer), `migrate`, a
set-up process that makes the players with Django sessions and the started games through
`tables.services`, and `--daphnes` daphne processes serving the house's real application
(`dominoes_site.asgi:application`). The open-file limit is raised (we are root) for this
process, the servers and the clients.

Scenario 1, "mix" (sockets as pages open them; a table's sockets all go to one daphne, table t
on daphne t mod D, as docs/deploy.md's proxy routes them; lobby and notices sockets alternate):

- `--tables` T one-on-one tables (Citizen, 2 players), both players seated and the game started;
  each player has its table socket and its notices socket (`/ws/notices/`): 4 T sockets;
- `--watchers` W spectators, each one table socket at a table drawn at random (uniform);
- `--lobby` L lobby sockets (`/ws/lobby/`), each a different user.

Default: 2,000 players x (table + notices) + 4,000 watchers + 2,000 lobby = 10,000 sockets.
Clients behave like the pages: table sockets send `hello` on opening and `ping` every 20 s,
notices sockets `ping` every 25 s, lobby sockets send nothing. The sockets are opened in a
shuffled order (`--client-procs` processes, at most `--connect-concurrency` handshakes in flight
in each), and play starts at a table as soon as both its players have their snapshot: a move
every `--move-every` seconds per table on average (human pace), each by the player to act (a
random legal action). After the ramp the play goes on for `--hold` seconds, then it pauses and
the check runs: every socket sends `ping` and must get its `pong`; at `--check-tables` tables (a
sample) the player to act moves and every socket of those tables (players and watchers) must
hear it; a set-up process then creates one public table (every lobby socket must hear of it)
and sends every player a notice (every notices socket must get it). Anything not heard within
`--check-timeout` seconds is a deaf socket.

Reported: memory per socket (the daphnes' RSS after a warm-up and after the ramp, the difference
over the sockets; Redis's too; the client processes' separately), the handshake rate (sockets
opened / the ramp's wall time), handshake latency (TCP connect to the 101) and table sockets'
hello -> snapshot latency, p50/p99, the server CPU per handshake, the play's move -> both players
and move -> every socket of the table latencies, and the check's dead and deaf sockets.

Scenario 2, "final": the mix's sockets are closed, then one more started table gets its 2 players
and `--spectators` watchers (spread over the client processes). The players move at a steady
pace, one move every `--final-interval` seconds (a finished game is followed by a rematch) for
`--final-seconds`; reported: move -> every watcher (per move, when the last watcher has it) p50 /
p99 and per delivery, and the server CPU per move (daphnes' CPU time delta / moves; PostgreSQL
and Redis separately). Clients run on the same 2 cores as the servers: their CPU is reported too.

The servers run the code of `--code-root` (default: this tree), this script being the client:
bench/compare.py --script many_sockets.py runs it against an older commit's worktree that way.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing as mp
import os
import random
import re
import resource
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ws_load
from ws_load import cpu_seconds, latency_summary, percentile

HERE = Path(__file__).resolve().parent.parent
APP = "dominoes_site.asgi:application"
NOFILE = 262144


def log(message: str) -> None:
    print(f"[many_sockets {time.strftime('%H:%M:%S')}] {message}", flush=True)


def raise_nofile() -> int:
    """Raise the open-file limit as far as we may (inherited by every process started here)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    for want in (NOFILE, hard):
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (max(want, soft), max(want, hard)))
            break
        except (ValueError, OSError):
            continue
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def rss_kib(pid: int | str = "self") -> int:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    found = re.search(r"^VmRSS:\s+(\d+) kB", text, re.M)
    return int(found.group(1)) if found else 0


def use_code_root(root: Path) -> None:
    """Make ws_load's Stack start the servers (and migrate, and set up) from `root`'s code."""
    ws_load.ROOT = root
    ws_load.HOUSE_VARIABLES = tuple(
        line.partition("=")[0]
        for line in (root / ".env.example").read_text().splitlines()
        if re.match(r"^[A-Z_]+=", line)
    )


# --- set-up and probes (Django processes running the code root's code) ------------------------


def setup_role(spec_path: str, out_path: str) -> None:
    import django

    django.setup()
    from django.conf import settings
    from django.db import connections

    from tables import services
    from tables.models import Game

    spec = json.loads(Path(spec_path).read_text())
    started = time.monotonic()
    tables, watchers, lobby = spec["tables"], spec["watchers"], spec["lobby"]
    players, player_sessions = ws_load.players_with_sessions("Player", 2 * tables + 2)
    _, watcher_sessions = ws_load.players_with_sessions("Watcher", max(watchers, spec["final"]))
    lobby_users, lobby_sessions = ws_load.players_with_sessions("Lobbyist", lobby + 1)
    log(f"set-up: {len(players) + len(watcher_sessions) + len(lobby_users)} users and sessions")

    def make_tables(k: int, procs: int, out: Path) -> None:
        made = {}
        for t in range(k, tables + 1, procs):  # the last one is the final's
            host, guest = players[2 * t], players[2 * t + 1]
            table = services.table_create(host=host, mode="citizen", players=2)
            services.seat_take(table_id=table.pk, user=guest, number=1)
            services.seat_ready(table_id=table.pk, user=host, ready=True)
            services.seat_ready(table_id=table.pk, user=guest, ready=True)
            made[t] = table.pk
        out.write_text(json.dumps(made))

    # The tables in a few forked processes (each its own database connection).
    connections.close_all()
    procs = max(1, min(spec["procs"], tables))
    outs = [Path(out_path).with_suffix(f".{k}") for k in range(procs)]
    forks = [mp.get_context("fork").Process(target=make_tables, args=(k, procs, outs[k]))
             for k in range(procs)]  # fmt: skip
    for f in forks:
        f.start()
    for f in forks:
        f.join()
        assert f.exitcode == 0, f"a set-up process failed ({f.exitcode})"
    made = {int(t): pk for o in outs for t, pk in json.loads(o.read_text()).items()}
    ids = [made[t] for t in range(tables + 1)]
    playing = Game.objects.filter(status=Game.Status.PLAYING).count()
    assert playing == tables + 1, f"{playing} games started, {tables + 1} wanted"
    out = {
        "cookie": settings.SESSION_COOKIE_NAME,
        "tables": ids[:tables],
        "final_table": ids[tables],
        "player_ids": [u.pk for u in players],
        "player_sessions": player_sessions,
        "watcher_sessions": watcher_sessions,
        "lobby_sessions": lobby_sessions[:lobby],
        "probe_host": lobby_users[lobby].pk,
        "setup_seconds": round(time.monotonic() - started, 1),
    }
    Path(out_path).write_text(json.dumps(out))


def probe_role(spec_path: str, out_path: str) -> None:
    """After the ramp: one new public table (the lobby hears of it) and a notice to every player."""
    import django

    django.setup()
    from accounts.models import User
    from social.notices import notify_user
    from tables import services

    spec = json.loads(Path(spec_path).read_text())
    host = User.objects.get(pk=spec["host"])
    table = services.table_create(host=host, mode="citizen", players=2)
    for user_id in spec["players"]:
        notify_user(user_id, "bench_probe", {"token": spec["token"]})
    Path(out_path).write_text(json.dumps({"table": table.pk}))


# --- clients ----------------------------------------------------------------------------------


class Sock:
    __slots__ = (
        "alive",
        "changed",
        "close_code",
        "error_at",
        "errors",
        "heard",
        "kind",
        "last",
        "lobby_ids",
        "pong",
        "retries",
        "seq",
        "snap",
        "snap_at",
        "spec",
        "t_open",
        "t_snap",
        "t_start",
        "tokens",
        "types",
        "version",
        "view",
        "ws",
    )  # fmt: skip

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.kind: str = spec["kind"]  # player, watcher, lobby, notices
        self.ws: Any = None
        self.seq = -1
        self.version = -1
        self.view: dict[str, Any] | None = None
        self.heard: list[tuple[int, int, float]] = []  # (seq, game version, when)
        self.changed = asyncio.Event()
        self.snap = asyncio.Event()
        self.pong = 0.0
        self.lobby_ids: set[int] = set()
        self.tokens: set[str] = set()
        self.errors: Counter[str] = Counter()
        self.error_at = 0.0
        self.close_code: int | None = None
        self.alive = False
        self.t_start = self.t_open = self.t_snap = 0.0
        self.types: Counter[str] = Counter()
        self.last: dict[str, float] = {}  # when each kind of message came last
        self.retries = 0
        self.snap_at = 0.0  # the latest snapshot or resume


async def _open(s: Sock, opts: dict[str, Any], sem: asyncio.Semaphore) -> None:
    from websockets.asyncio.client import connect

    port = s.spec["port"]
    async with sem:
        for attempt in range(5):
            s.t_start = time.monotonic()
            try:
                s.ws = await connect(
                    f"ws://127.0.0.1:{port}{s.spec['path']}",
                    origin=f"http://localhost:{port}",  # type: ignore[arg-type]
                    additional_headers=[("Cookie", f"{opts['cookie']}={s.spec['session']}")],
                    compression=None,
                    ping_interval=None,
                    open_timeout=90,
                    close_timeout=2,
                    max_size=2**22,
                )
                s.t_open = time.monotonic()
                s.alive = True
                break
            except (OSError, TimeoutError, Exception) as exc:
                s.retries += 1
                s.errors[f"connect:{type(exc).__name__}"] += 1
                if attempt == 4:
                    return
                await asyncio.sleep(0.5 * (attempt + 1))
    if s.kind in ("player", "watcher"):
        await s.ws.send(json.dumps({"type": "hello", "last_seq": None}))


async def _read(s: Sock) -> None:
    if s.ws is None:
        return
    try:
        async for raw in s.ws:
            t = time.monotonic()
            message = json.loads(raw)
            kind = message.get("type")
            s.types[kind] += 1
            s.last[str(kind)] = t
            if kind in ("snapshot", "resume", "update"):
                seq = message.get("seq", -1)
                game = message.get("game")
                version = game["version"] if game else -1
                if kind != "update" or seq > s.seq:
                    s.seq = max(s.seq, seq)
                    s.version = version
                    if s.kind == "player" and (game is not None or kind != "update"):
                        s.view = game
                    if kind == "update":
                        s.heard.append((seq, version, t))
                if kind != "update":
                    s.snap_at = t
                if kind != "update" and not s.snap.is_set():
                    s.t_snap = t
                    s.snap.set()
            elif kind == "pong":
                s.pong = t
            elif kind == "table":
                s.lobby_ids.add(int(message["table"]["id"]))
            elif kind == "notice":
                if message.get("kind") == "bench_probe":
                    s.tokens.add(str(message.get("token")))
            elif kind == "error":
                s.errors[str(message.get("code"))] += 1
                s.error_at = t
            s.changed.set()
    except Exception as exc:
        s.errors[f"read:{type(exc).__name__}"] += 1
    finally:
        s.alive = False
        s.close_code = getattr(s.ws, "close_code", None)
        s.changed.set()
        s.snap.set()


async def _pinger(s: Sock, every: float, rng: random.Random) -> None:
    await asyncio.sleep(rng.uniform(0, every))
    while s.alive:
        with contextlib.suppress(Exception):
            await s.ws.send('{"type": "ping"}')
        await asyncio.sleep(every)


async def _until(s: Sock, ok: Any, deadline: float) -> bool:
    while not ok():
        if not s.alive:
            return bool(ok())
        s.changed.clear()
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(remaining):
                await s.changed.wait()
    return True


def _where(s: Sock, opts: dict[str, Any]) -> str:
    """A socket's kind and daphne (index), as the check counts them."""
    return f"{s.kind}@daphne{opts['ports'].index(s.spec['port'])}"


def _first_at(s: Sock, seq: int) -> float | None:
    for got, _, t in s.heard:
        if got >= seq:
            return t
    return None


class Table:
    """One table's sockets in this client process (all of them, in the mix)."""

    def __init__(self, key: int) -> None:
        self.key = key
        self.players: list[Sock | None] = [None, None]
        self.watchers: list[Sock] = []
        self.moves: list[tuple[int, float, float, float]] = []  # (seq, sent, actor, both)
        self.over = False
        self.failures: Counter[str] = Counter()
        self.lock = asyncio.Lock()

    def socks(self) -> list[Sock]:
        return [p for p in self.players if p is not None] + self.watchers

    async def move(self, rng: random.Random, timeout: float) -> bool:
        """One move by the player to act; True when both players have it."""
        async with self.lock:
            return await self._move(rng, timeout)

    async def _move(self, rng: random.Random, timeout: float) -> bool:
        players = [p for p in self.players if p is not None]
        if len(players) < 2 or not all(p.alive for p in players):
            self.failures["player_gone"] += 1
            return False
        head = players[0].view
        if head is None:
            self.failures["no_view"] += 1
            return False
        if head.get("phase") == "game_over":
            if not await self._rematch(players, timeout):
                self.over = True
                return False
            head = players[0].view or {}
        actor = head.get("to_act")
        if actor is None:  # between hands: the server deals by itself
            await _until(players[0], lambda: (players[0].view or {}).get("to_act") is not None,
                         time.monotonic() + 3)  # fmt: skip
            actor = (players[0].view or {}).get("to_act")
            if actor is None:
                self.failures["no_turn"] += 1
                return False
        mover = players[actor]
        view = mover.view or {}
        legal = view.get("legal_actions") or []
        if not legal:  # this seat has not seen the turn reach it yet
            await _until(mover, lambda: bool((mover.view or {}).get("legal_actions")),
                         time.monotonic() + 3)  # fmt: skip
            view = mover.view or {}
            legal = view.get("legal_actions") or []
            if not legal:
                self.failures["no_legal_action"] += 1
                return False
        version = view["version"]
        action = {k: v for k, v in rng.choice(legal).items() if k != "seat"}
        sent = time.monotonic()
        await mover.ws.send(json.dumps({"type": "act", "version": version, "action": action}))
        deadline = sent + timeout
        ok = await _until(
            mover,
            lambda: mover.error_at >= sent or any(v > version and t >= sent
                                                  for _, v, t in mover.heard[-8:]),
            deadline,
        )  # fmt: skip
        if not ok or mover.error_at >= sent:
            self.failures["timeout" if not ok else "refused"] += 1
            await self._resync(players, timeout)
            return False
        seq = next(q for q, v, t in mover.heard if v > version and t >= sent)
        actor_at = _first_at(mover, seq) or sent
        other = players[1 - actor]
        if not await _until(other, lambda: other.seq >= seq, deadline):
            self.failures["other_timeout"] += 1
            await self._resync(players, timeout)
            return False
        self.moves.append((seq, sent, actor_at, _first_at(other, seq) or time.monotonic()))
        return True

    async def _resync(self, players: list[Sock], timeout: float) -> None:
        """After a move that went astray: both players say hello again, as a page that missed
        an update does, so that the next move is made against the game as it is."""
        asked = time.monotonic()
        for p in players:
            with contextlib.suppress(Exception):
                await p.ws.send(json.dumps({"type": "hello", "last_seq": None}))
        for p in players:
            if not await _until(p, lambda p=p: p.snap_at >= asked, asked + timeout):
                self.failures["resync_timeout"] += 1
        self.failures["resyncs"] += 1

    async def _rematch(self, players: list[Sock], timeout: float) -> bool:
        for p in players:
            await p.ws.send(json.dumps({"type": "rematch", "want": True}))
        deadline = time.monotonic() + timeout
        for p in players:
            if not await _until(p, lambda p=p: (p.view or {}).get("phase") not in (None,
                                "game_over"), deadline):  # fmt: skip
                self.failures["no_rematch"] += 1
                return False
        return True

    def deliveries(self) -> tuple[list[float], list[float]]:
        """(move -> both players, move -> every socket of the table) samples, seconds."""
        both, everyone = [], []
        for seq, sent, actor_at, other_at in self.moves:
            both.append(max(actor_at, other_at) - sent)
            # Only the watchers that had their snapshot before the move (and its seq after it).
            times = [_first_at(w, seq) for w in self.watchers if 0 < w.t_snap <= sent]
            if all(t is not None for t in times):
                everyone.append(max([actor_at, other_at, *times]) - sent)  # type: ignore[list-item]
        return both, everyone


async def _client(conn: Any, plan: dict[str, Any], opts: dict[str, Any]) -> None:
    loop = asyncio.get_running_loop()
    rng = random.Random(opts["seed"] * 7919 + plan["index"])
    socks = [Sock(spec) for spec in plan["sockets"]]
    tables: dict[int, Table] = {}
    for s in socks:
        if s.kind in ("player", "watcher"):
            table = tables.setdefault(s.spec["table"], Table(s.spec["table"]))
            if s.kind == "player":
                table.players[s.spec["seat"]] = s
            else:
                table.watchers.append(s)
    rss_before = rss_kib()
    conn.send(("ready", rss_before))

    async def command() -> Any:
        return await loop.run_in_executor(None, conn.recv)

    tasks: list[asyncio.Task[Any]] = []
    play = {"on": False, "stop": False}
    cpu0 = time.process_time()

    async def open_one(s: Sock) -> None:
        await _open(s, opts, sem)
        if s.ws is None:
            return
        tasks.append(asyncio.create_task(_read(s)))
        every = {"player": 20.0, "watcher": 20.0, "notices": 25.0}.get(s.kind)
        if every and opts["pings"]:
            tasks.append(asyncio.create_task(_pinger(s, every, rng)))

    async def play_table(table: Table) -> None:
        players = [p for p in table.players if p is not None]
        for p in players:
            await p.snap.wait()
        trng = random.Random(opts["seed"] * 104729 + table.key)
        await asyncio.sleep(trng.uniform(0, opts["move_every"]))
        while not play["stop"] and not table.over:
            if play["on"]:
                await table.move(trng, opts["move_timeout"])
            await asyncio.sleep(trng.uniform(0.5, 1.5) * opts["move_every"])

    _, t0 = await command()
    await asyncio.sleep(max(0.0, t0 - time.monotonic()))
    sem = asyncio.Semaphore(opts["connect_concurrency"])
    order = list(socks)
    rng.shuffle(order)
    players_tables = [t for t in tables.values() if all(t.players)]
    play["on"] = plan["scenario"] == "mix"
    players_tasks = [asyncio.create_task(play_table(t)) for t in players_tables]

    async def progress() -> None:  # a long ramp says how far it got
        while True:
            await asyncio.sleep(60)
            n = sum(1 for s in socks if s.ws is not None)
            log(f"client {plan['index']}: {n} of {len(socks)} sockets open")

    ticker = asyncio.create_task(progress())
    await asyncio.gather(*(open_one(s) for s in order))
    ticker.cancel()
    table_socks = [s for s in socks if s.kind in ("player", "watcher") and s.ws is not None]
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(120):
            await asyncio.gather(*(s.snap.wait() for s in table_socks))
    conn.send(("opened", {
        "handshakes": [(s.kind, s.t_start, s.t_open) for s in socks if s.ws is not None],
        "hellos": [s.t_snap - s.t_open for s in table_socks if s.t_snap],
        "failed": Counter(s.kind for s in socks if s.ws is None),
        "retries": sum(s.retries for s in socks),
        "rss_kib": rss_kib(),
        "rss_before_kib": rss_before,
        "sockets": sum(1 for s in socks if s.ws is not None),
        "cpu_seconds": time.process_time() - cpu0,
    }))  # fmt: skip

    while True:
        message = await command()
        what = message[0]
        if what == "pause":
            play["on"] = False
            for t in players_tables:  # the move in flight, if any, finishes
                async with t.lock:
                    pass
            conn.send(("paused", None))
        elif what == "check":
            _, sample, timeout = message
            mark = time.monotonic()
            deadline = mark + timeout
            for s in socks:
                if s.alive:
                    with contextlib.suppress(Exception):
                        await s.ws.send('{"type": "ping"}')
            mine = [t for t in players_tables if t.key in set(sample)]
            before = {t.key: len(t.moves) for t in mine}
            await asyncio.gather(*(t.move(rng, timeout) for t in mine))
            deaf: Counter[str] = Counter()
            no_move = 0
            for t in mine:
                if len(t.moves) == before[t.key]:
                    no_move += 1
                    continue
                seq = t.moves[-1][0]
                for s in t.socks():
                    if not await _until(s, lambda s=s, seq=seq: s.seq >= seq, deadline):
                        deaf[_where(s, opts)] += 1
            dead: Counter[str] = Counter()
            for s in socks:
                ponged = lambda s=s, mark=mark: s.pong >= mark  # noqa: E731
                if s.ws is not None and not await _until(s, ponged, deadline):
                    dead[_where(s, opts)] += 1
            conn.send(("checked", {
                "tables": len(mine), "no_move": no_move, "deaf": deaf, "dead": dead,
                "table_sockets_checked": sum(len(t.socks()) for t in mine),
            }))  # fmt: skip
        elif what == "verify":
            _, probe_table, token, timeout = message
            began = time.monotonic()
            deadline = began + timeout
            deaf = Counter()
            # What a deaf socket did hear after the check began, and whether it is still open.
            heard_since: Counter[str] = Counter()
            for s in socks:
                if s.kind == "lobby":
                    ok = await _until(s, lambda s=s, p=probe_table: p in s.lobby_ids, deadline)
                elif s.kind == "notices":
                    ok = await _until(s, lambda s=s, k=token: k in s.tokens, deadline)
                else:
                    continue
                if not ok:
                    deaf[_where(s, opts)] += 1
                    heard_since["open" if s.alive else "closed"] += 1
                    for kind, at in s.last.items():
                        if at >= began:
                            heard_since[f"{s.kind}:{kind}"] += 1
            conn.send(("verified", {"deaf": deaf, "deaf_heard_since": heard_since}))
        elif what == "play":  # the final: steady pace on this process's table, if it has one
            _, start, seconds, interval = message
            moves: list[tuple[int, float]] = []
            end = start + seconds
            await asyncio.sleep(max(0.0, start - time.monotonic()))
            c0 = time.process_time()
            due = start
            for t in players_tables:
                while time.monotonic() < end and not t.over:
                    if await t.move(rng, opts["move_timeout"]):
                        moves.append((t.moves[-1][0], t.moves[-1][1]))
                    due += interval
                    await asyncio.sleep(max(0.0, due - time.monotonic()))
            await asyncio.sleep(max(0.0, end - time.monotonic()))
            cpu = time.process_time() - c0
            await asyncio.sleep(opts["move_timeout"] / 4)  # the last move's watchers
            conn.send(("played", {
                "moves": moves,
                "heard": [[(q, t) for q, _, t in s.heard] for s in socks if s.kind == "watcher"],
                "failures": sum((t.failures for t in players_tables), Counter()),
                "cpu_seconds": cpu,
            }))  # fmt: skip
        elif what == "close":
            play["stop"] = True
            both: list[float] = []
            everyone: list[float] = []
            for t in players_tables:
                b, e = t.deliveries()
                both += b
                everyone += e
            alive = Counter(s.kind for s in socks if s.alive)
            errors: Counter[str] = Counter()
            for s in socks:
                errors.update(s.errors)
            closed = Counter(str(s.close_code) for s in socks if s.ws is not None and not s.alive)
            types: Counter[str] = Counter()
            for s in socks:
                types.update({f"{s.kind}:{k}": n for k, n in s.types.items()})
            for p in players_tasks:
                p.cancel()
            await asyncio.gather(
                *(s.ws.close() for s in socks if s.ws is not None), return_exceptions=True
            )
            conn.send(("closed", {
                "moves": sum(len(t.moves) for t in players_tables),
                "both": both, "everyone": everyone, "alive": alive, "closed": closed,
                "errors": errors, "frames": types,
                "failures": sum((t.failures for t in players_tables), Counter()),
                "games_over": sum(1 for t in players_tables if t.over),
                "cpu_seconds": time.process_time() - cpu0,
            }))  # fmt: skip
            break
    for task in tasks:
        task.cancel()


def client_process(conn: Any, plan: dict[str, Any], opts: dict[str, Any]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops us
    try:
        asyncio.run(_client(conn, plan, opts))
    except BaseException as exc:
        import traceback

        conn.send(("failed", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"))
        raise


# --- the driver -------------------------------------------------------------------------------


class Clients:
    def __init__(self, plans: list[dict[str, Any]], opts: dict[str, Any]) -> None:
        context = mp.get_context("spawn")
        self.workers = []
        for plan in plans:
            parent, child = context.Pipe()
            process = context.Process(target=client_process, args=(child, plan, opts), daemon=True)
            process.start()
            self.workers.append((process, parent))

    def send(self, message: Any) -> None:
        for _, parent in self.workers:
            parent.send(message)

    def receive(self, what: str, seconds: float) -> list[Any]:
        out = []
        deadline = time.monotonic() + seconds
        for _, parent in self.workers:
            if not parent.poll(max(0.0, deadline - time.monotonic())):
                raise RuntimeError(f"a client process did not report {what} in {seconds:.0f} s")
            message = parent.recv()
            if message[0] == "failed":
                raise RuntimeError(f"a client process failed:\n{message[1]}")
            if message[0] != what:
                raise RuntimeError(f"a client process said {message[0]!r}, not {what!r}")
            out.append(message[1])
        return out

    def pids(self) -> list[int]:
        return [p.pid for p, _ in self.workers if p.pid is not None]

    def stop(self) -> None:
        for process, _ in self.workers:
            process.join(timeout=15)
            if process.is_alive():
                process.kill()
                process.join(timeout=5)


def _merge(counters: list[Any]) -> dict[str, int]:
    total: Counter[str] = Counter()
    for c in counters:
        total.update(c)
    return dict(total)


def _ms(values: list[float]) -> dict[str, float]:
    return {k: round(v, 1) for k, v in latency_summary(values).items()} | {"n": len(values)}


class Server:
    def __init__(self, stack: ws_load.Stack) -> None:
        self.stack = stack

    def daphne_pids(self) -> list[int]:
        return [p.pid for _, p in self.stack.daphnes]

    def rss(self) -> dict[str, int]:
        out = {"daphnes": sum(rss_kib(pid) for pid in self.daphne_pids())}
        if self.stack.redis is not None:
            out["redis"] = rss_kib(self.stack.redis.pid)
        return out

    def cpu(self) -> dict[str, float]:
        return ws_load._server_cpu(self.stack)

    def daphne_cpu(self) -> float:
        return sum(cpu_seconds(pid) for pid in self.daphne_pids())

    def redis_connections(self) -> int | None:
        """Clients connected to Redis now (the daphnes' pools, the cache, ...)."""
        url = self.stack.env.get("REDIS_URL")
        if not url:
            return None
        import redis

        client = redis.Redis.from_url(url)
        try:
            return int(client.info("clients")["connected_clients"])
        finally:
            client.close()

    def wait_quiet(self, seconds: float = 60, below: float = 0.15) -> float:
        """Wait until the daphnes use less than `below` of a core (the closes settled)."""
        start = time.monotonic()
        while time.monotonic() - start < seconds:
            a = self.daphne_cpu()
            time.sleep(1.0)
            if self.daphne_cpu() - a < below:
                break
        return time.monotonic() - start


def _warm_up(ports: list[int], setup: dict[str, Any]) -> None:
    """One socket of each kind per daphne, opened and closed: the daphnes' lazy imports and
    first connections happen before the memory is read."""

    async def run() -> None:
        from websockets.asyncio.client import connect

        for port in ports:
            for path, session in (
                ("/ws/lobby/", setup["player_sessions"][0]),
                ("/ws/notices/", setup["player_sessions"][0]),
                (f"/ws/tables/{setup['tables'][0]}/", setup["watcher_sessions"][0]),
            ):
                async with connect(
                    f"ws://127.0.0.1:{port}{path}",
                    origin=f"http://localhost:{port}",  # type: ignore[arg-type]
                    additional_headers=[("Cookie", f"{setup['cookie']}={session}")],
                    open_timeout=60,
                ) as ws:
                    if "tables" in path:
                        await ws.send(json.dumps({"type": "hello", "last_seq": None}))
                    await ws.send('{"type": "ping"}')
                    async with asyncio.timeout(30):
                        while json.loads(await ws.recv())["type"] != "pong":
                            pass

    asyncio.run(run())


def mix_plans(args: argparse.Namespace, setup: dict[str, Any], ports: list[int]) -> list[Any]:
    """Every socket of the mix, split over the client processes; a table's sockets (players and
    watchers) all in one process and on one daphne."""
    rng = random.Random(args.seed)
    procs = args.client_procs
    plans: list[dict[str, Any]] = [
        {"index": i, "scenario": "mix", "sockets": []} for i in range(procs)
    ]
    tables = setup["tables"]

    def table_port(t: int) -> int:
        return int(ports[t % len(ports)])

    for t, table_id in enumerate(tables):
        for seat in (0, 1):
            session = setup["player_sessions"][2 * t + seat]
            plans[t % procs]["sockets"].append({
                "kind": "player", "table": t, "seat": seat, "port": table_port(t),
                "path": f"/ws/tables/{table_id}/", "session": session,
            })  # fmt: skip
            n = 2 * t + seat
            plans[n % procs]["sockets"].append(
                {"kind": "notices", "port": int(ports[n % len(ports)]), "path": "/ws/notices/",
                 "session": session}
            )  # fmt: skip
    for w in range(args.watchers):
        t = rng.randrange(len(tables))
        plans[t % procs]["sockets"].append({
            "kind": "watcher", "table": t, "seat": None, "port": table_port(t),
            "path": f"/ws/tables/{tables[t]}/", "session": setup["watcher_sessions"][w],
        })  # fmt: skip
    for i in range(args.lobby):
        plans[i % procs]["sockets"].append(
            {"kind": "lobby", "port": int(ports[i % len(ports)]), "path": "/ws/lobby/",
             "session": setup["lobby_sessions"][i]}
        )  # fmt: skip
    return plans


def final_plans(args: argparse.Namespace, setup: dict[str, Any], ports: list[int]) -> list[Any]:
    procs = args.client_procs
    table_id = setup["final_table"]
    port = int(ports[0])
    path = f"/ws/tables/{table_id}/"
    plans: list[dict[str, Any]] = [
        {"index": i, "scenario": "final", "sockets": []} for i in range(procs)
    ]
    n = len(setup["tables"])
    for seat in (0, 1):
        plans[0]["sockets"].append({
            "kind": "player", "table": n, "seat": seat, "port": port, "path": path,
            "session": setup["player_sessions"][2 * n + seat],
        })  # fmt: skip
    for w in range(args.spectators):
        plans[(w + 1) % procs]["sockets"].append({
            "kind": "watcher", "table": n, "seat": None, "port": port, "path": path,
            "session": setup["watcher_sessions"][w],
        })  # fmt: skip
    return [p for p in plans if p["sockets"]]


def client_opts(
    args: argparse.Namespace, setup: dict[str, Any], ports: list[int]
) -> dict[str, Any]:
    return {
        "ports": ports,
        "cookie": setup["cookie"],
        "seed": args.seed,
        "connect_concurrency": args.connect_concurrency,
        "move_every": args.move_every,
        "move_timeout": args.move_timeout,
        "pings": not args.no_pings,
    }


def open_all(clients: Clients, server: Server) -> dict[str, Any]:
    rss_clients_before = sum(clients.receive("ready", 120))
    rss_before = server.rss()
    cpu_before = server.cpu()
    t0 = time.monotonic() + 0.5
    clients.send(("open", t0))
    opened = clients.receive("opened", 1800)
    cpu_after = server.cpu()
    rss_after = server.rss()
    redis_connections = server.redis_connections()
    handshakes = [h for o in opened for h in o["handshakes"]]
    sockets = sum(o["sockets"] for o in opened)
    first = min((h[1] for h in handshakes), default=t0)
    last = max((h[2] for h in handshakes), default=t0)
    ramp = max(1e-9, last - first)
    by_kind: dict[str, list[float]] = {}
    for kind, start, done in handshakes:
        by_kind.setdefault(kind, []).append(done - start)
    every = [d for v in by_kind.values() for d in v]
    # The ramp's opening rate in 1-second bins: the steadiest second and the median one.
    bins = Counter(int(done - first) for _, _, done in handshakes)
    per_second = sorted(bins.values())
    daphne_cpu = sum(v - cpu_before.get(k, 0.0) for k, v in cpu_after.items() if "daphne" in k)
    server_cpu = sum(v - cpu_before.get(k, 0.0) for k, v in cpu_after.items())
    rss_clients_after = sum(o["rss_kib"] for o in opened)
    return {
        "sockets": sockets,
        "failed": _merge([o["failed"] for o in opened]),
        "retries": sum(o["retries"] for o in opened),
        "ramp_seconds": round(ramp, 2),
        "handshakes_per_s": round(sockets / ramp, 1),
        "handshakes_per_s_median_second": per_second[len(per_second) // 2] if per_second else 0,
        "handshake_ms": _ms(every),
        "handshake_ms_by_kind": {k: _ms(v) for k, v in sorted(by_kind.items())},
        "hello_to_snapshot_ms": _ms([h for o in opened for h in o["hellos"]]),
        "server_cpu_ms_per_handshake": {
            "daphnes": round(daphne_cpu * 1000 / max(1, sockets), 2),
            "all": round(server_cpu * 1000 / max(1, sockets), 2),
        },
        "memory_kib": {
            "daphnes_before": rss_before["daphnes"],
            "daphnes_after": rss_after["daphnes"],
            "redis_before": rss_before.get("redis"),
            "redis_after": rss_after.get("redis"),
            "clients_before": rss_clients_before,
            "clients_after": rss_clients_after,
        },
        "memory_kib_per_socket": {
            "daphnes": round((rss_after["daphnes"] - rss_before["daphnes"]) / max(1, sockets), 2),
            "redis": round(
                (rss_after.get("redis", 0) - rss_before.get("redis", 0)) / max(1, sockets), 2
            ),
            "clients": round((rss_clients_after - rss_clients_before) / max(1, sockets), 2),
        },
        "client_cpu_seconds": round(sum(o["cpu_seconds"] for o in opened), 1),
        "redis_connections": redis_connections,
    }


def run_django(stack: ws_load.Stack, role: str, spec: dict[str, Any]) -> dict[str, Any]:
    spec_path = stack.tmp / f"{role}-spec.json"
    out_path = stack.tmp / f"{role}-out.json"
    spec_path.write_text(json.dumps(spec))
    subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), f"--_{role}", str(spec_path),
         str(out_path)],
        cwd=ws_load.ROOT, env=stack.env, check=True, timeout=3600,
    )  # fmt: skip
    return dict(json.loads(out_path.read_text()))


def run_mix(args: argparse.Namespace, stack: ws_load.Stack, setup: dict[str, Any]) -> Any:
    server = Server(stack)
    ports = [p for p, _ in stack.daphnes]
    plans = mix_plans(args, setup, ports)
    total = sum(len(p["sockets"]) for p in plans)
    log(f"mix: opening {total} sockets from {len(plans)} client processes")
    clients = Clients(plans, client_opts(args, setup, ports))
    try:
        ramp = open_all(clients, server)
        log(
            f"mix: {ramp['sockets']} open in {ramp['ramp_seconds']} s "
            f"({ramp['handshakes_per_s']}/s), failed {ramp['failed'] or 'none'}; "
            f"daphnes {ramp['memory_kib_per_socket']['daphnes']} KiB per socket"
        )
        log(f"mix: play goes on for {args.hold:g} s")
        cpu0 = server.cpu()
        time.sleep(args.hold)
        cpu1 = server.cpu()
        hold_cpu = {k: round((v - cpu0.get(k, 0.0)) / args.hold * 100, 1) for k, v in cpu1.items()}
        rss_hold = server.rss()
        clients.send(("pause",))
        clients.receive("paused", args.move_timeout + 30)
        rng = random.Random(args.seed)
        sample = sorted(
            rng.sample(range(len(setup["tables"])), min(args.check_tables, len(setup["tables"])))
        )
        log(f"check: a ping on every socket, a move at {len(sample)} tables")
        clients.send(("check", sample, args.check_timeout))
        checked = clients.receive("checked", args.check_timeout * 4 + 120)
        token = os.urandom(6).hex()
        probe = run_django(
            stack, "probe", {"host": setup["probe_host"], "players": setup["player_ids"][
                : 2 * len(setup["tables"])], "token": token},
        )  # fmt: skip
        log(f"check: probe table {probe['table']} and {2 * len(setup['tables'])} notices sent")
        clients.send(("verify", probe["table"], token, args.check_timeout))
        verified = clients.receive("verified", args.check_timeout * 4 + 120)
        clients.send(("close",))
        closed = clients.receive("closed", 300)
    finally:
        clients.stop()
    deaf = _merge([c["deaf"] for c in checked] + [v["deaf"] for v in verified])
    dead = _merge([c["dead"] for c in checked])
    return {
        "sockets_planned": total,
        "mix": Counter(s["kind"] for p in plans for s in p["sockets"]),
        "ramp": ramp,
        "hold": {
            "seconds": args.hold,
            "cpu_percent_of_one_core": hold_cpu,
            "daphnes_rss_kib_end": rss_hold["daphnes"],
        },
        "play": {
            "moves": sum(c["moves"] for c in closed),
            "move_to_both_players_ms": _ms([x for c in closed for x in c["both"]]),
            "move_to_every_table_socket_ms": _ms([x for c in closed for x in c["everyone"]]),
            "failures": _merge([c["failures"] for c in closed]),
            "games_over": sum(c["games_over"] for c in closed),
        },
        "check": {
            "tables": sum(c["tables"] for c in checked),
            "tables_without_a_move": sum(c["no_move"] for c in checked),
            "table_sockets_checked": sum(c["table_sockets_checked"] for c in checked),
            "dead": dead,
            "deaf": deaf,
            "deaf_heard_since": _merge([v.get("deaf_heard_since", {}) for v in verified]),
            "dead_total": sum(dead.values()),
            "deaf_total": sum(deaf.values()),
            "alive_at_close": _merge([c["alive"] for c in closed]),
            "closed_before_the_end": _merge([c["closed"] for c in closed]),
        },
        "client_errors": _merge([c["errors"] for c in closed]),
        "frames_received": _merge([c["frames"] for c in closed]),
        "client_cpu_seconds": round(sum(c["cpu_seconds"] for c in closed), 1),
    }


def run_final(args: argparse.Namespace, stack: ws_load.Stack, setup: dict[str, Any]) -> Any:
    server = Server(stack)
    ports = [p for p, _ in stack.daphnes]
    plans = final_plans(args, setup, ports)
    log(f"final: 2 players and {args.spectators} watchers at table {setup['final_table']}")
    clients = Clients(plans, client_opts(args, setup, ports))
    try:
        ramp = open_all(clients, server)
        # Each watcher's arrival sends the new count to everyone at the table (and the lobby):
        # the play starts once the daphnes have worked through that.
        settled = server.wait_quiet(120)
        log(
            f"final: {ramp['sockets']} open in {ramp['ramp_seconds']} s; settled in {settled:.0f} s"
        )
        start = time.monotonic() + 1.0
        clients.send(("play", start, args.final_seconds, args.final_interval))
        time.sleep(max(0.0, start - time.monotonic()))
        cpu0 = server.cpu()
        time.sleep(args.final_seconds)
        cpu1 = server.cpu()
        played = clients.receive("played", args.move_timeout + 120)
        clients.send(("close",))
        closed = clients.receive("closed", 300)
    finally:
        clients.stop()
    moves = [m for p in played for m in p["moves"]]
    heard = [h for p in played for h in p["heard"]]
    per_move: list[float] = []
    per_delivery: list[float] = []
    missed = 0
    for seq, sent in moves:
        latest = 0.0
        for watcher in heard:
            at = next((t for q, t in watcher if q >= seq), None)
            if at is None:
                missed += 1
                latest = float("inf")
                continue
            per_delivery.append(at - sent)
            latest = max(latest, at - sent)
        if latest != float("inf"):
            per_move.append(latest)
    cpu = {k: v - cpu0.get(k, 0.0) for k, v in cpu1.items()}
    daphne = sum(v for k, v in cpu.items() if "daphne" in k)
    n = max(1, len(moves))
    return {
        "spectators": args.spectators,
        "watchers_open": ramp["sockets"] - 2,
        "ramp": {
            k: ramp[k]
            for k in (
                "sockets",
                "failed",
                "ramp_seconds",
                "handshakes_per_s",
                "handshake_ms",
                "hello_to_snapshot_ms",
            )
        },
        "interval_s": args.final_interval,
        "seconds": args.final_seconds,
        "moves": len(moves),
        "move_to_every_watcher_ms": _ms(per_move),
        "move_to_a_watcher_ms": _ms(per_delivery),
        "deliveries_missed": missed,
        "moves_not_reaching_every_watcher": len(moves) - len(per_move),
        "failures": _merge([p["failures"] for p in played]),
        "server_cpu_ms_per_move": {
            "daphnes": round(daphne * 1000 / n, 1),
            **{k: round(v * 1000 / n, 1) for k, v in cpu.items() if "daphne" not in k},
        },
        "cpu_percent_of_one_core": {
            **{k: round(v / args.final_seconds * 100, 1) for k, v in cpu.items()},
            "clients": round(sum(p["cpu_seconds"] for p in played) / args.final_seconds * 100, 1),
        },
        "alive_at_close": _merge([c["alive"] for c in closed]),
        "client_errors": _merge([c["errors"] for c in closed]),
        "frames_received": _merge([c["frames"] for c in closed]),
        "settle_seconds_after_opening": round(settled, 1),
    }


def report(figures: dict[str, Any]) -> None:
    lines = ["", "Dominologist: many sockets on one box", f"  {figures['what']}"]
    mix = figures.get("mix_result")
    if mix:
        r = mix["ramp"]
        m = r["memory_kib_per_socket"]
        mem = r["memory_kib"]
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(mix["mix"].items()))
        lines += [
            "",
            f"mix: {mix['sockets_planned']} sockets ({kinds})",
            f"  opened         {r['sockets']} in {r['ramp_seconds']} s = "
            f"{r['handshakes_per_s']} handshakes/s (median second "
            f"{r['handshakes_per_s_median_second']}); failed {r['failed'] or 'none'}, "
            f"retries {r['retries']}",
            f"  handshake ms   p50 {r['handshake_ms']['p50_ms']}  p99 "
            f"{r['handshake_ms']['p99_ms']}  max {r['handshake_ms']['max_ms']};  "
            f"hello -> snapshot p50 "
            f"{r['hello_to_snapshot_ms']['p50_ms']}  p99 {r['hello_to_snapshot_ms']['p99_ms']}",
            f"  server CPU     {r['server_cpu_ms_per_handshake']['daphnes']} ms per handshake "
            f"(daphnes; {r['server_cpu_ms_per_handshake']['all']} with PostgreSQL and Redis)",
            f"  memory/socket  daphnes {m['daphnes']} KiB ({mem['daphnes_before'] // 1024} -> "
            f"{mem['daphnes_after'] // 1024} MiB), redis {m['redis']} KiB, clients "
            f"{m['clients']} KiB ({mem['clients_before'] // 1024} -> "
            f"{mem['clients_after'] // 1024} MiB)",
            f"  redis          {r.get('redis_connections')} connections after the ramp",
            f"  hold           {mix['hold']['seconds']:g} s, cpu % of a core "
            f"{mix['hold']['cpu_percent_of_one_core']}",
            f"  play           {mix['play']['moves']} moves; move -> both players ms "
            f"p50 {mix['play']['move_to_both_players_ms']['p50_ms']} p99 "
            f"{mix['play']['move_to_both_players_ms']['p99_ms']}; -> every socket of the table "
            f"p50 {mix['play']['move_to_every_table_socket_ms']['p50_ms']} p99 "
            f"{mix['play']['move_to_every_table_socket_ms']['p99_ms']}; failures "
            f"{mix['play']['failures'] or 'none'}",
            f"  check          {mix['check']['tables']} tables moved "
            f"({mix['check']['tables_without_a_move']} could not), "
            f"{mix['check']['table_sockets_checked']} of their sockets; dead "
            f"{mix['check']['dead'] or 0}, deaf {mix['check']['deaf'] or 0}",
            f"  at the end     alive {mix['check']['alive_at_close']}, closed early "
            f"{mix['check']['closed_before_the_end'] or 'none'}",
        ]
    final = figures.get("final_result")
    if final:
        lines += [
            "",
            f"final: 1 table, 2 players, {final['watchers_open']} watchers "
            f"(opened in {final['ramp']['ramp_seconds']} s)",
            f"  moves          {final['moves']} in {final['seconds']:g} s "
            f"(one every {final['interval_s']:g} s); failures {final['failures'] or 'none'}",
            f"  move -> every watcher ms  p50 {final['move_to_every_watcher_ms']['p50_ms']}  "
            f"p99 {final['move_to_every_watcher_ms']['p99_ms']}  max "
            f"{final['move_to_every_watcher_ms']['max_ms']}   (target p99 <= 1000)",
            f"  move -> a watcher ms      p50 {final['move_to_a_watcher_ms']['p50_ms']}  p99 "
            f"{final['move_to_a_watcher_ms']['p99_ms']};  missed deliveries "
            f"{final['deliveries_missed']}",
            f"  server CPU per move ms    {final['server_cpu_ms_per_move']}",
            f"  cpu % of a core           {final['cpu_percent_of_one_core']}",
        ]
    print("\n".join(lines), flush=True)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--stack", choices=["embedded", "production"], default="production")
    parser.add_argument("--daphnes", type=int, default=2, help="one per core (docs/deploy.md)")
    parser.add_argument("--tables", type=int, default=1000, help="1v1 tables (2 players each)")
    parser.add_argument("--watchers", type=int, default=4000)
    parser.add_argument("--lobby", type=int, default=2000)
    parser.add_argument("--spectators", type=int, default=1000, help="the final's watchers")
    parser.add_argument("--scenarios", default="mix,final")
    parser.add_argument("--move-every", type=float, default=15.0, help="s per move per table")
    parser.add_argument("--hold", type=float, default=30.0, help="s of play after the ramp")
    parser.add_argument("--check-tables", type=int, default=100)
    parser.add_argument("--check-timeout", type=float, default=20.0)
    parser.add_argument("--final-seconds", type=float, default=60.0)
    parser.add_argument("--final-interval", type=float, default=1.0, help="s between moves")
    parser.add_argument("--client-procs", type=int, default=4)
    parser.add_argument("--connect-concurrency", type=int, default=16, help="per client proc")
    parser.add_argument("--move-timeout", type=float, default=20.0)
    parser.add_argument("--no-pings", action="store_true", help="clients send no keep-alives")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--code-root", type=Path, default=HERE, help="the servers' code")
    parser.add_argument("--json", metavar="FILE", help="also write the figures here")
    parser.add_argument("--no-record", action="store_true", help="no bench/results/ file")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folders")
    parser.add_argument("--_setup", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--_probe", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    # What ws_load.Stack reads.
    args.settings = "dominoes_site.settings"
    args.asgi = APP
    args.debug = False
    args.pin = False
    args.code_root = args.code_root.resolve()
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args._setup or args._probe:
        sys.path.insert(0, str(Path.cwd()))
        (setup_role if args._setup else probe_role)(*(args._setup or args._probe))
        return 0

    def stop(signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, stop)
    nofile = raise_nofile()
    use_code_root(args.code_root)
    load = ws_load.machine_load()
    log(f"open files {nofile}; machine {load:.0f}% of one core busy before the run")
    stack = ws_load.Stack(args)
    stack.load_before = load
    scenarios = {s.strip() for s in args.scenarios.split(",")}
    figures: dict[str, Any] = {
        "command": "bench/many_sockets.py " + " ".join(sys.argv[1:]),
        "code": ws_load.code_revision(),
        "code_root": str(args.code_root),
        "client": f"bench/many_sockets.py at {_revision(HERE)}",
        "when": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "stack": args.stack,
        "daphnes": args.daphnes,
        "client_procs": args.client_procs,
        "cores": os.cpu_count(),
        "machine_load_before_percent": round(load, 1),
        "what": (
            f"{args.stack} stack, {args.daphnes} daphnes ({APP}), code {ws_load.code_revision()}"
            f" from {args.code_root}; {args.client_procs} client processes; {os.cpu_count()} "
            f"cores shared by all; machine {load:.0f}% busy before"
        ),
    }
    try:
        if args.stack == "production":
            log("starting a private PostgreSQL cluster (fsync off) and redis-server")
            stack.start_postgres()
            stack.start_redis()
        log(f"migrating in {stack.var} (code {args.code_root})")
        stack.manage("migrate", "--noinput", "-v", "0")
        log(
            f"creating {2 * args.tables + 2} players, {max(args.watchers, args.spectators)} "
            f"watchers, {args.lobby + 1} lobby users, {args.tables + 1} started 1v1 games"
        )
        setup = run_django(
            stack, "setup", {"tables": args.tables, "watchers": args.watchers,
                             "lobby": args.lobby, "final": args.spectators, "procs": 4},
        )  # fmt: skip
        log(f"set-up took {setup['setup_seconds']} s")
        ports = stack.start_daphnes(args.daphnes)
        log(f"daphnes on {', '.join(map(str, ports))}; warming up")
        _warm_up(ports, setup)
        if "mix" in scenarios:
            figures["mix_result"] = run_mix(args, stack, setup)
            if "final" in scenarios:
                log(f"mix closed; the daphnes settled in {Server(stack).wait_quiet():.0f} s")
        if "final" in scenarios:
            figures["final_result"] = run_final(args, stack, setup)
        figures["daphne_rss_kib_end"] = Server(stack).rss()
        report(figures)
        if not args.no_record:
            sizes = (args.tables, args.watchers, args.lobby, args.spectators)
            size = "full" if sizes == (1000, 4000, 2000, 1000) else "t{}-w{}-l{}-s{}".format(*sizes)
            if scenarios != {"mix", "final"}:
                size += "-" + "-".join(sorted(scenarios))
            path = HERE / "bench" / "results" / f"many-sockets-{args.stack}-{size}.json"
            path.parent.mkdir(exist_ok=True)
            path.write_text(json.dumps(figures, indent=2, default=str) + "\n")
            log(f"recorded {path.relative_to(HERE)}")
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


def _revision(root: Path) -> str:
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True
    ).stdout.strip()
    return head or "unknown"


_ = percentile  # (re-exported for callers that want ws_load's percentile)

if __name__ == "__main__":
    raise SystemExit(main())
