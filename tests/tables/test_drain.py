"""Stopping a daphne drains it: its sockets are told to move (`reconnect`: a page opens a new
socket and closes the old one once the new one is answered), those that do not are closed with
1012, and no player flashes away.

A real server is started through the house's entry point (`python -m dominoes_site.serve`) as a
process of its own and sent SIGTERM, as systemd or `make run` does.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import re
import signal
import socket
import subprocess
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import websockets
from asgiref.sync import sync_to_async
from django.utils import timezone

from dominoes_site import draining, serve
from tables import presence, services
from tables.models import Presence, Seat, Table, TableEvent
from tests.live import end_process, free_port, serve_process
from tests.tables.helpers import connect, receive_until
from tests.tables.test_restart import cookie_for, open_socket

#: The issue's bound: a stopped daphne is gone within 10 s.
EXIT_WITHIN_SECONDS = 10


def started(alice: Any, bob: Any) -> Table:
    table = services.table_create(host=alice, mode="citizen", players=2)
    services.seat_take(table_id=table.pk, user=bob, number=1)
    for user in (alice, bob):
        services.seat_ready(table_id=table.pk, user=user, ready=True)
    return table


def comings_and_goings(table: Table, after: int = 0) -> list[dict[str, Any]]:
    """The table's events of players leaving and coming back, past event number `after`."""
    return [
        e
        for row in TableEvent.objects.filter(table=table, seq__gt=after)
        for e in row.public
        if e["type"] in ("away", "online", "back")
    ]


def events_in(message: dict[str, Any]) -> list[dict[str, Any]]:
    if message["type"] == "resume":  # batches, one per event number
        return [e for batch in message["events"] for e in batch["events"]]
    return list(message.get("events", [])) if message["type"] == "update" else []


async def hello(socket: Any, last_seq: int | None) -> dict[str, Any]:
    await socket.send(json.dumps({"type": "hello", "last_seq": last_seq}))
    while True:
        message = json.loads(await asyncio.wait_for(socket.recv(), 30))
        if message["type"] in ("snapshot", "resume"):
            return message


async def close_code(socket: Any, timeout: float = 8) -> tuple[int | None, list[dict[str, Any]]]:
    """Read until the server closes the socket: its close code, and what came before it."""
    got: list[dict[str, Any]] = []
    try:
        async with asyncio.timeout(timeout):
            async for frame in socket:
                got.append(json.loads(frame))
    except TimeoutError:
        return None, got
    except websockets.ConnectionClosed:
        pass
    return socket.close_code, got


def stop(process: subprocess.Popen[bytes]) -> float:
    """SIGTERM, then the seconds until the process ended (killed past the bound)."""
    began = time.monotonic()
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=EXIT_WITHIN_SECONDS + 20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    return time.monotonic() - began


@pytest.mark.django_db(transaction=True)
def test_a_stopped_server_tells_its_sockets_to_reconnect_and_exits(
    alice: Any, bob: Any, tmp_path: Path
) -> None:
    table = started(alice, bob)
    cookie = cookie_for(alice)
    port = free_port()
    server = serve_process(port, tmp_path / "server.log")
    try:

        async def go() -> tuple[int | None, list[dict[str, Any]], float]:
            socket = await open_socket(port, table.pk, cookie)
            await hello(socket, None)
            waiting = asyncio.create_task(close_code(socket))
            took = await asyncio.to_thread(stop, server)
            code, got = await waiting
            return code, got, took

        code, got, took = asyncio.run(go())
    finally:
        end_process(server)
    log = (tmp_path / "server.log").read_text()
    # Told to move first; a client that does not is then closed the old way.
    assert [m["type"] for m in got] == ["reconnect"], got
    assert code == draining.CLOSE_RESTART, (
        f"closed with {code}, stopped in {took:.1f} s\n{log[-3000:]}"
    )
    assert took < EXIT_WITHIN_SECONDS, f"took {took:.1f} s to stop\n{log[-3000:]}"
    assert server.returncode == 0, log[-3000:]
    assert "Traceback" not in log, log[-3000:]


@pytest.mark.django_db(transaction=True)
def test_a_drain_tells_its_sockets_a_few_at_a_time_a_table_together(
    alice: Any, bob: Any, make_user: Any, tmp_path: Path
) -> None:
    """Not a crowd at once: at 4 sockets a second, 12 sockets (3 tables, each player with two
    tabs) are told over about 3 s, one table's sockets after another; these clients do not
    move, so each is then closed with 1012, in the same order."""
    carol, dave, erin, frank = (make_user(n) for n in ("Carol", "Dave", "Erin", "Frank"))
    tables = [started(alice, bob), started(carol, dave), started(erin, frank)]
    players = [(alice, bob), (carol, dave), (erin, frank)]
    port = free_port()
    server = serve_process(port, tmp_path / "server.log", {"DRAIN_TELL_PER_SECOND": "4"})
    try:

        async def go() -> list[tuple[float, int, int | None]]:
            sockets = []
            for table, pair in zip(tables, players, strict=True):
                for user in pair:
                    cookie = await sync_to_async(cookie_for)(user)
                    for _tab in range(2):
                        socket = await open_socket(port, table.pk, cookie)
                        await hello(socket, None)
                        sockets.append((table.pk, socket))

            async def closed(table_id: int, socket: Any) -> tuple[float, int, int | None]:
                code, _ = await close_code(socket, timeout=30)
                return time.monotonic(), table_id, code

            waiting = [asyncio.create_task(closed(t, s)) for t, s in sockets]
            await asyncio.to_thread(stop, server)
            return sorted(await asyncio.gather(*waiting))

        closes = asyncio.run(go())
    finally:
        end_process(server)
    log = (tmp_path / "server.log").read_text()
    assert [code for _, _, code in closes] == [draining.CLOSE_RESTART] * 12, log[-3000:]
    # spread: 12 sockets at 4 a second (a loaded machine only spreads them more)
    assert closes[-1][0] - closes[0][0] >= 1.5, closes
    # a table's sockets one after another: the order of tables changes only twice
    order = [table_id for _, table_id, _ in closes]
    assert sum(a != b for a, b in itertools.pairwise(order)) == 2, order
    assert server.returncode == 0 and "Traceback" not in log, log[-3000:]


@pytest.mark.django_db(transaction=True)
def test_a_player_moved_to_another_server_is_never_away(
    alice: Any, bob: Any, tmp_path: Path
) -> None:
    table = started(alice, bob)
    cookies = [cookie_for(u) for u in (alice, bob)]
    ports = [free_port(), free_port()]
    servers = [serve_process(p, tmp_path / f"server-{n}.log") for n, p in enumerate(ports)]
    try:

        async def go() -> tuple[int, int | None, list[dict[str, Any]], dict[str, Any]]:
            # Alice on the first server, Bob on the second; the first is stopped.
            mine = await open_socket(ports[0], table.pk, cookies[0])
            theirs = await open_socket(ports[1], table.pk, cookies[1])
            seq = (await hello(mine, None))["seq"]
            await hello(theirs, None)
            watching = asyncio.create_task(close_code(theirs, timeout=6))
            servers[0].send_signal(signal.SIGTERM)
            code, _ = await close_code(mine)
            # The page reconnects at once (the proxy sends it to the server still running).
            again = await open_socket(ports[1], table.pk, cookies[0])
            resumed = await hello(again, seq)
            # What Bob was sent meanwhile, and a few seconds after.
            _, bob_saw = await watching
            await again.close()
            await theirs.close()
            return seq, code, bob_saw, resumed

        seq, code, bob_saw, resumed = asyncio.run(go())
        assert servers[0].wait(timeout=EXIT_WITHIN_SECONDS) == 0
    finally:
        for server in servers:
            end_process(server)
    assert code == draining.CLOSE_RESTART
    sent = [e for m in [*bob_saw, resumed] for e in events_in(m)]
    assert not [e for e in sent if e["type"] in ("away", "online", "back")], sent
    # (Bob's own leaving at the end may be recorded by now: only Alice's seat counts.)
    assert not [e for e in comings_and_goings(table, seq) if e["seat"] == 0]
    assert Seat.objects.get(table=table, number=0).away_since is None
    # The drained socket's row is still there, aged: the sweep drops it within
    # DRAIN_HOLD_SECONDS (and then, had Alice not come back, she would be away).
    soon = timezone.now() - timedelta(seconds=presence.PRESENCE_STALE_SECONDS - 30)
    assert Presence.objects.filter(table=table, user=alice, seen_at__lt=soon).count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_player_who_moves_as_the_page_does_hears_everything_and_sees_no_close(
    alice: Any, bob: Any, tmp_path: Path
) -> None:
    """The page's way (static/js/table.js, `moveSocket`): told `reconnect`, it opens a new socket
    (here on the other server, as the proxy would), says hello there, and closes the old one
    once the new one is answered. The old socket goes on carrying the table meanwhile: a chat
    line Bob sends after the drain began reaches it. Alice is never closed by the server nor
    away, and the drained server exits cleanly."""
    table = started(alice, bob)
    cookies = [cookie_for(u) for u in (alice, bob)]
    ports = [free_port(), free_port()]
    servers = [serve_process(p, tmp_path / f"server-{n}.log") for n, p in enumerate(ports)]
    try:

        async def go() -> dict[str, Any]:
            mine = await open_socket(ports[0], table.pk, cookies[0])
            theirs = await open_socket(ports[1], table.pk, cookies[1])
            seq = (await hello(mine, None))["seq"]
            await hello(theirs, None)
            servers[0].send_signal(signal.SIGTERM)
            told = json.loads(await asyncio.wait_for(mine.recv(), 30))
            # Told; Bob speaks (through the other server) before Alice has moved.
            await theirs.send(json.dumps({"type": "chat", "text": "still there?"}))
            while (heard := json.loads(await asyncio.wait_for(mine.recv(), 30)))["type"] != "chat":
                pass
            again = await open_socket(ports[1], table.pk, cookies[0])
            resumed = await hello(again, seq)
            await mine.close()  # 1000: the page closes the old socket itself
            exited = await asyncio.to_thread(servers[0].wait, EXIT_WITHIN_SECONDS)
            await again.close()
            await theirs.close()
            return {
                "told": told,
                "heard": heard,
                "resumed": resumed,
                "code": mine.close_code,
                "exited": exited,
                "seq": seq,
            }

        got = asyncio.run(go())
    finally:
        for server in servers:
            end_process(server)
    log = (tmp_path / "server-0.log").read_text()
    assert got["told"]["type"] == "reconnect", got["told"]
    assert got["heard"]["message"]["text"] == "still there?"
    assert got["resumed"]["type"] == "resume"
    assert got["code"] == 1000  # closed by Alice, not by the server
    assert got["exited"] == 0 and "Traceback" not in log, log[-3000:]
    assert "Drained in" in log, log[-3000:]  # everything finished: nothing was cut off
    assert not [e for e in comings_and_goings(table, got["seq"]) if e["seat"] == 0]
    assert Seat.objects.get(table=table, number=0).away_since is None


@pytest.mark.django_db(transaction=True)
async def test_a_drained_socket_holds_the_player_online_a_little(alice: Any, bob: Any) -> None:
    """A player whose socket was drained and who does not come back is away once the sweep
    drops the aged row (within DRAIN_HOLD_SECONDS and a sweep), with the usual grace."""
    table = await sync_to_async(started)(alice, bob)
    sockets = [await connect(u, table.pk) for u in (alice, bob)]
    for s in sockets:
        await s.send_json_to({"type": "hello", "last_seq": None})
    seq = (await receive_until(sockets[1], 0, 1))["seq"]
    draining.start()
    try:
        # The client echoes the server's close code (or not: the drain is what counts).
        await sockets[0].disconnect(code=1000)
    finally:
        draining.reset()
    assert not await sync_to_async(comings_and_goings)(table, seq)
    assert await sync_to_async(Presence.objects.filter(user=alice).count)() == 1

    soon = timezone.now() + timedelta(seconds=presence.DRAIN_HOLD_SECONDS - 5)
    await sync_to_async(presence.presence_sweep)(now=soon)
    assert not await sync_to_async(comings_and_goings)(table, seq)
    later = timezone.now() + timedelta(seconds=presence.DRAIN_HOLD_SECONDS + 1)
    await sync_to_async(presence.presence_sweep)(now=later)
    update = await receive_until(sockets[1], seq + 1, 1)
    away = next(e for e in update["events"] if e["type"] == "away")
    assert away["seat"] == 0 and away["on_purpose"] is False
    await sockets[1].disconnect()


def test_an_endpoint_gets_a_listen_backlog() -> None:
    assert serve.with_backlog("tcp:port=8001:interface=0.0.0.0", 900) == (
        "tcp:port=8001:interface=0.0.0.0:backlog=900"
    )
    assert serve.with_backlog("unix:/run/dominoes/web1.sock", 900) == (
        "unix:/run/dominoes/web1.sock:backlog=900"
    )
    assert serve.with_backlog("tcp:port=1:backlog=5", 900) == "tcp:port=1:backlog=5"
    assert serve.with_backlog("fd:fileno=3", 900) == "fd:fileno=3"


@pytest.mark.django_db(transaction=True)
def test_the_server_listens_with_a_deep_backlog(tmp_path: Path) -> None:
    """Twisted listens with a backlog of 50: a lost server's sockets, all coming back to this
    one at once, overflowed it (the kernel dropped their SYNs, the proxy timed out and took
    this live daphne for a dead one). `ss` shows a listening socket's backlog as its Send-Q."""
    port = free_port()
    server = serve_process(port, tmp_path / "server.log", {"DAPHNE_BACKLOG": "777"})
    try:
        listing = subprocess.run(
            ["ss", "-ltnH", f"sport = :{port}"], capture_output=True, text=True, check=True
        ).stdout.split()
    finally:
        end_process(server)
    assert listing[0] == "LISTEN" and listing[2] == "777", listing


def listening_pids(port: int) -> set[int]:
    """The processes listening on 127.0.0.1:`port` (from `ss`)."""
    out = subprocess.run(
        ["ss", "-ltnpH", f"sport = :{port}"], capture_output=True, text=True, check=True
    ).stdout
    return {int(pid) for pid in re.findall(r"pid=(\d+)", out)}


def test_a_tcp_endpoint_is_listened_on_with_reuse_port() -> None:
    endpoint, listener = serve.reusable("tcp:port=0:interface=127.0.0.1", backlog=16)
    assert listener is not None
    try:
        assert endpoint == f"adopted:fileno={listener.fileno()}:domain=INET"
        assert listener.getsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT) == 1
    finally:
        listener.close()
    v6, listener6 = serve.reusable(r"tcp:port=0:interface=\:\:1")
    if listener6 is not None:  # (a machine without IPv6 refuses the bind)
        listener6.close()
        assert v6.endswith(":domain=INET6")
    assert serve.reusable("unix:/run/dominoes/daphne-1.sock") == (
        "unix:/run/dominoes/daphne-1.sock",
        None,
    )


def test_an_adopted_socket_is_let_go_without_closing_what_has_its_number_now() -> None:
    """Twisted closes an adopted socket's descriptor as it listens on a copy. The number is then
    free, and the next file opened (a player's connection) may get it: the server lets the
    socket object go without closing that number again."""
    endpoint, listener = serve.reusable("tcp:port=0:interface=127.0.0.1", backlog=16)
    assert listener is not None
    number = int(re.findall(r"fileno=(\d+)", endpoint)[0])
    copy = os.dup(number)  # what Twisted's AdoptedStreamServerEndpoint.listen does: a copy...
    os.close(number)  # ...and the original closed
    with open(os.devnull, "rb") as later:  # the next file opened takes the free number
        assert later.fileno() == number
        server = serve.DrainingServer.__new__(serve.DrainingServer)
        server.adopted = [listener]
        server._release_adopted()
        assert server.adopted == []
        os.fstat(later.fileno())  # still open (a close of the socket would have ended it)
    os.close(copy)


@pytest.mark.django_db(transaction=True)
def test_a_new_server_on_the_same_address_takes_the_drained_sockets(
    alice: Any, bob: Any, tmp_path: Path
) -> None:
    """docs/deploy.md's rolling deploy: the new daphne starts on the old one's address (both
    listen with SO_REUSEPORT), then the old one is drained. The socket told to move opens its
    new socket to the same address, and the new daphne answers it; nothing is refused, and the
    old daphne exits cleanly."""
    table = started(alice, bob)
    cookie = cookie_for(alice)
    port = free_port()
    both = {"DAPHNE_REUSE_PORT": "1"}
    old = serve_process(port, tmp_path / "old.log", both)
    news: list[subprocess.Popen[bytes]] = []

    def start_new() -> None:
        """The new server beside the old one (the kernel may give it any new connection)."""
        new = serve_process(port, tmp_path / "new.log", both)
        news.append(new)
        # (its /healthz may have been answered by the old one: wait for it to listen)
        deadline = time.monotonic() + 60
        while new.pid not in listening_pids(port) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert listening_pids(port) == {old.pid, new.pid}

    try:

        async def go() -> tuple[dict[str, Any], dict[str, Any], int | None]:
            mine = await open_socket(port, table.pk, cookie)  # the old server's, the only one
            seq = (await hello(mine, None))["seq"]
            await asyncio.to_thread(start_new)
            old.send_signal(signal.SIGTERM)
            told = json.loads(await asyncio.wait_for(mine.recv(), 30))
            again = await open_socket(port, table.pk, cookie)  # the same address
            resumed = await hello(again, seq)
            await mine.close()
            exited = await asyncio.to_thread(old.wait, EXIT_WITHIN_SECONDS)
            # The old daphne is gone: what answers now is the new one.
            await again.send(json.dumps({"type": "ping"}))
            pong = json.loads(await asyncio.wait_for(again.recv(), 30))
            await again.close()
            assert pong["type"] == "pong"
            return told, resumed, exited

        told, resumed, exited = asyncio.run(go())
        assert listening_pids(port) == {news[0].pid}
    finally:
        end_process(old)
        for process in news:
            end_process(process)
    log = (tmp_path / "old.log").read_text()
    assert told["type"] == "reconnect"
    assert resumed["type"] == "resume"
    assert exited == 0 and "Traceback" not in log, log[-3000:]
