"""Quick pairing bench: players join "Play now" pools over a minute; time from joining to seated.

    .venv/bin/python bench/pairing.py                                # 100 players, 60 s, one pool
    .venv/bin/python bench/pairing.py --cells citizen:1v1:0,fives:1v1:0,citizen:ct3:0

On the embedded default (SQLite, the Unix-socket channel layer, the filesystem broker), started
the way bench/ws_load.py does it and with its `Stack`: a fresh VAR_DIR in a temporary folder,
`manage.py migrate`, a set-up process that makes the players (with Django sessions) and gives
each a rating in the pool of its cell, drawn from N(1500, 200) with a fixed seed, then one daphne
serving the house's ASGI app, one Celery worker and beat (the pairing sweep every second).

Each player is a client that does what a browser does: it opens `/ws/notices/` (every page does),
loads the home page (the grid, and the CSRF cookie), and at its moment (uniform over `--seconds`,
seeded) presses its cell: `POST /play/join/`. It is seated when the response takes it to its table
(someone who fit was waiting: the join paired it) or when the `pairing_seated` notice arrives (a
later join or the sweep paired it), or gives up 90 s after joining (left over: a pool whose size
is not a multiple of its tables). One sample: from sending the POST to that moment. The server's
own figure, from `PoolEntry.joined_at` to `seated_at`, is reported beside it. Nobody presses
Ready: unconfirmed tables are called off after 30 s, which the measurement never waits for.

Targets (issue 16): p50 <= 3 s, p99 <= 10 s, for 100 players joining over a minute.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from http.cookiejar import Cookie, CookieJar
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.ws_load import (  # noqa: E402  (the bench's own stack, shared)
    BIN,
    Stack,
    free_port,
    latency_summary,
    players_with_sessions,
    wait_for_port,
)

TARGETS = {"p50_s": 3.0, "p99_s": 10.0}


def log(message: str) -> None:
    print(f"[pairing {time.strftime('%H:%M:%S')}] {message}", flush=True)


# --- set-up and the server's own figures (each runs as its own Django process) ----------------


def _django() -> None:
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dominoes_site.settings")
    import django

    django.setup()


def setup_role(spec_path: str, out_path: str) -> None:
    _django()
    from django.conf import settings

    from ledger.services import signup_grant
    from pairing.cells import cell_parse
    from ratings.models import Rating
    from ratings.pools import pool_for

    spec = json.loads(Path(spec_path).read_text())
    rng = random.Random(spec["seed"])
    users, sessions = players_with_sessions("Pairing", spec["players"])
    cells = spec["cells"]
    players = []
    ratings = []
    for i, (user, session) in enumerate(zip(users, sessions, strict=True)):
        cell = cells[i % len(cells)]
        rating = max(800.0, min(2400.0, rng.gauss(1500, 200)))
        pool = pool_for(cell_parse(cell).settings()).value
        ratings.append(Rating(user=user, pool=pool, rating=rating, deviation=80, games=30))
        players.append({"user": user.pk, "session": session, "cell": cell})
    Rating.objects.bulk_create(ratings)
    for user in users:  # made in bulk, so without the sign-up grant a stake needs
        signup_grant(user=user)
    out = {"cookie": settings.SESSION_COOKIE_NAME, "players": players}
    Path(out_path).write_text(json.dumps(out))


def report_role(out_path: str) -> None:
    _django()
    from pairing.models import PoolEntry

    rows = [
        {
            "user": e.user_id,
            "cell": e.cell,
            "status": e.status,
            "wait_s": (e.seated_at - e.joined_at).total_seconds() if e.seated_at else None,
            "table": e.match.table_id if e.match else None,
        }
        for e in PoolEntry.objects.select_related("match").order_by("joined_at")
    ]
    Path(out_path).write_text(json.dumps(rows))


# --- the players --------------------------------------------------------------------------------


def _opener(port: int, cookie_name: str, session: str) -> tuple[Any, CookieJar]:
    jar = CookieJar()
    jar.set_cookie(
        Cookie(
            0,
            cookie_name,
            session,
            None,
            False,
            "127.0.0.1",
            False,
            False,
            "/",
            True,
            False,
            None,
            False,
            None,
            None,
            {},
        )
    )
    return urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar)), jar


def _csrf(jar: CookieJar) -> str:
    return next(c.value for c in jar if c.name == "csrftoken")


async def player(
    opening: asyncio.Semaphore,
    base: str,
    port: int,
    cookie_name: str,
    spec: dict[str, Any],
    at: float,
    t0: float,
    timeout: float,
) -> dict[str, Any]:
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidMessage

    opener, jar = _opener(port, cookie_name, spec["session"])
    async with opening:  # a few handshakes at a time: a burst of 100 lost some on a busy machine
        for attempt in range(5):
            try:
                socket = await connect(
                    f"ws://127.0.0.1:{port}/ws/notices/",
                    origin=f"http://127.0.0.1:{port}",  # type: ignore[arg-type]
                    additional_headers=[("Cookie", f"{cookie_name}={spec['session']}")],
                    open_timeout=60,
                    ping_interval=None,
                )
                break
            except (OSError, TimeoutError, InvalidMessage):
                if attempt == 4:
                    raise
                await asyncio.sleep(0.5 * (attempt + 1))
    hello = json.loads(await socket.recv())
    assert hello["type"] == "hello", hello
    await asyncio.to_thread(lambda: opener.open(base + "/", timeout=60).read())
    await asyncio.sleep(max(0.0, t0 + at - time.monotonic()))
    seated = asyncio.get_running_loop().create_future()

    async def notices() -> None:
        async for raw in socket:
            message = json.loads(raw)
            if message.get("kind") == "pairing_seated" and not seated.done():
                seated.set_result(("notice", time.monotonic()))

    listening = asyncio.create_task(notices())
    mode, shape, stake = spec["cell"].split(":")
    body = urllib.parse.urlencode(
        {"csrfmiddlewaretoken": _csrf(jar), "cell": f"{mode}:{shape}", "stake": stake, "next": "/"}
    ).encode()
    sent = time.monotonic()

    def join() -> str:
        with opener.open(base + "/play/join/", data=body, timeout=60) as response:
            response.read()
            return str(response.url)

    landed = await asyncio.to_thread(join)
    if "/tables/" in landed and not seated.done():
        seated.set_result(("response", time.monotonic()))

    def state() -> str:
        with opener.open(base + "/play/status/", timeout=60) as response:
            return str(json.loads(response.read())["state"])

    if not seated.done() and await asyncio.to_thread(state) == "idle":
        seated.set_result(("refused", None))  # the join was refused (the page says why)
    try:
        how, when = await asyncio.wait_for(seated, timeout)
    except TimeoutError:
        how, when = "never", None
    listening.cancel()
    await socket.close()
    return {
        "user": spec["user"],
        "cell": spec["cell"],
        "joined_at": round(sent - t0, 3),
        "how": how,
        "wait_s": None if when is None else when - sent,
    }


async def run_players(
    port: int, cookie: str, players: list[dict[str, Any]], seconds: float, seed: int
) -> list[dict[str, Any]]:
    asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(max_workers=64))
    rng = random.Random(seed)
    moments = sorted(rng.uniform(0, seconds) for _ in players)
    rng.shuffle(players)
    t0 = time.monotonic() + 20  # time to open every socket and load every page first
    base = f"http://127.0.0.1:{port}"
    opening = asyncio.Semaphore(10)
    return await asyncio.gather(
        *(
            player(opening, base, port, cookie, spec, at, t0, timeout=90)
            for spec, at in zip(players, moments, strict=True)
        )
    )


# --- the run ------------------------------------------------------------------------------------


def summary(waits: list[float]) -> dict[str, float]:
    ms = latency_summary(waits)
    return {k.replace("_ms", "_s"): round(v / 1000, 3) for k, v in ms.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--cells", default="citizen:1v1:0", help="comma-separated cell keys")
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--out", default="", help="write the JSON report here too")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("--role", default="", help=argparse.SUPPRESS)
    parser.add_argument("--spec", default="", help=argparse.SUPPRESS)
    parser.add_argument("--result", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.role == "setup":
        setup_role(args.spec, args.result)
        return
    if args.role == "report":
        report_role(args.result)
        return

    args.settings = "dominoes_site.settings"
    args.asgi = "dominoes_site.asgi:application"
    args.pin = False
    args.debug = True  # the embedded default, as `make run` starts it (DEBUG on by default)
    stack = Stack(args)
    try:
        log(f"VAR_DIR {stack.var}: migrate")
        stack.manage("migrate", "--no-input", "-v", "0")
        spec_path, setup_path = stack.tmp / "spec.json", stack.tmp / "setup.json"
        cells = args.cells.split(",")
        spec_path.write_text(
            json.dumps({"players": args.players, "cells": cells, "seed": args.seed})
        )
        me = [sys.executable, str(Path(__file__).resolve())]
        subprocess.run(
            [*me, "--role", "setup", "--spec", str(spec_path), "--result", str(setup_path)],
            cwd=ROOT,
            env=stack.env,
            check=True,
        )
        setup = json.loads(setup_path.read_text())
        port = free_port()
        stack.env.update(ALLOWED_HOSTS="127.0.0.1,localhost")
        daphne = subprocess.Popen(
            [str(BIN / "daphne"), "-b", "127.0.0.1", "-p", str(port), "-v", "0", args.asgi],
            cwd=ROOT,
            env=stack.env,
            stdout=open(stack.tmp / "daphne.log", "wb"),  # noqa: SIM115
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        stack.daphnes.append((port, daphne))
        for role in ("worker", "beat"):
            extra = ["--concurrency", "1"] if role == "worker" else ["-s", str(stack.var / "cb")]
            stack.others.append(
                subprocess.Popen(
                    [str(BIN / "celery"), "-A", "dominoes_site", role, "-l", "WARNING", *extra],
                    cwd=ROOT,
                    env=stack.env,
                    stdout=open(stack.tmp / f"{role}.log", "wb"),  # noqa: SIM115
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )
        wait_for_port(port, 60, alive=lambda: daphne.poll() is None)
        log(f"{args.players} players join {cells} over {args.seconds:.0f} s")
        started = time.monotonic()
        results = asyncio.run(
            run_players(port, setup["cookie"], setup["players"], args.seconds, args.seed)
        )
        took = time.monotonic() - started
        server_path = stack.tmp / "server.json"
        subprocess.run(
            [*me, "--role", "report", "--result", str(server_path)],
            cwd=ROOT,
            env=stack.env,
            check=True,
        )
        server = json.loads(server_path.read_text())
    except BaseException:
        daphne_log = stack.tmp / "daphne.log"
        if daphne_log.exists():
            log("failed; daphne's log:\n" + daphne_log.read_text(errors="replace")[-3000:])
        raise
    finally:
        stack.close()

    seated = [r["wait_s"] for r in results if r["wait_s"] is not None]
    server_waits = [r["wait_s"] for r in server if r["wait_s"] is not None]
    by_cell: dict[str, list[float]] = {}
    for r in results:
        if r["wait_s"] is not None:
            by_cell.setdefault(r["cell"], []).append(r["wait_s"])
    client = summary(seated)
    report = {
        "bench": "pairing",
        "stack": "embedded",
        "players": args.players,
        "seconds": args.seconds,
        "cells": cells,
        "seed": args.seed,
        "run_seconds": round(took, 1),
        "seated": len(seated),
        "never_seated": [r["user"] for r in results if r["wait_s"] is None],
        "seated_by": {
            how: sum(1 for r in results if r["how"] == how)
            for how in ("response", "notice", "refused", "never")
        },
        "join_to_seated": client,
        "server_joined_to_seated": summary(server_waits),
        "by_cell": {cell: summary(w) for cell, w in by_cell.items()},
        "targets": TARGETS,
        "met": {
            "p50": client["p50_s"] <= TARGETS["p50_s"],
            "p99": client["p99_s"] <= TARGETS["p99_s"],
        },
        "samples": sorted(results, key=lambda r: r["joined_at"]),
    }
    text = json.dumps(report, indent=1)
    if args.out:
        Path(args.out).write_text(text + "\n")
    shown = {k: v for k, v in report.items() if k != "samples"}
    print(json.dumps(shown, indent=1))


if __name__ == "__main__":
    main()
