"""docs/protocol.md, "An open socket follows its account", over a real daphne.

A client that knows only the document: its session logs out over HTTP (in the daphne, like a
browser), or staff suspend the account from another process (like the daily job in the Celery
worker): its open table socket closes with the documented code at once, and a message sent after
the log-out is not carried out. Runs on the embedded stack and on PostgreSQL + Redis.
"""

from __future__ import annotations

import asyncio
import json
import re
import urllib.parse
import urllib.request
from contextlib import suppress
from http.cookiejar import CookieJar
from typing import Any

import pytest
import websockets
from channels.db import database_sync_to_async

from accounts.models import AgeStatus
from accounts.services import age_status_set
from tables import services
from tables.models import Seat
from tests.live import start_server, stop_server
from tests.protocol.test_conformance import cookie_for

pytestmark = pytest.mark.django_db(transaction=True)


def log_out_over_http(port: int, cookie: str) -> int:
    """POST the site's log-out form as the browser holding `cookie` would (CSRF and all)."""
    base = f"http://localhost:{port}"
    jar = CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.addheaders = [("Cookie", cookie)]
    page = opener.open(f"{base}/accounts/logout/", timeout=30).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert token is not None, "the log-out page has its form"
    csrf = next(c.value for c in jar if c.name == "csrftoken")
    opener.addheaders = [("Cookie", f"{cookie}; csrftoken={csrf}"), ("Referer", base + "/")]
    body = urllib.parse.urlencode({"csrfmiddlewaretoken": token.group(1)}).encode()
    with opener.open(f"{base}/accounts/logout/", data=body, timeout=30) as response:
        return int(response.status)


async def opened(port: int, table_id: int, cookie: str) -> Any:
    socket = await websockets.connect(
        f"ws://127.0.0.1:{port}/ws/tables/{table_id}/",
        additional_headers={"Cookie": cookie, "Origin": f"http://localhost:{port}"},
        compression=None,
    )
    await socket.send(json.dumps({"type": "hello", "last_seq": None}))
    while json.loads(await asyncio.wait_for(socket.recv(), timeout=10))["type"] != "snapshot":
        pass
    return socket


async def close_code(socket: Any) -> tuple[int, list[dict[str, Any]]]:
    """Read until the socket closes: the code, and the messages before it."""
    seen: list[dict[str, Any]] = []
    with pytest.raises(websockets.ConnectionClosed) as closed:
        while True:
            seen.append(json.loads(await asyncio.wait_for(socket.recv(), timeout=15)))
    assert closed.value.rcvd is not None, "closed with a close frame"
    return closed.value.rcvd.code, seen


def test_log_out_and_suspension_close_open_sockets(alice: Any, bob: Any, warden: Any) -> None:
    table = services.table_create(host=bob, mode="fives", players=2)
    alices, bobs = cookie_for(alice), cookie_for(bob)
    server = start_server()
    try:
        port = server.port.value

        async def play() -> None:
            # Log-out: the socket closes with 4001, and a "sit" sent right after the log-out
            # (before the close reached the client) is not carried out.
            socket = await opened(port, table.pk, alices)
            status = await asyncio.to_thread(log_out_over_http, port, alices)
            assert status == 200
            with suppress(websockets.ConnectionClosed):  # (unless the close came first)
                await socket.send(json.dumps({"type": "sit", "seat": 1}))
            code, seen = await close_code(socket)
            assert code == 4001
            assert not any(m["type"] in ("update", "error") for m in seen), seen
            # (database_sync_to_async: its thread's connection is closed after use)
            seat = await database_sync_to_async(Seat.objects.get)(table=table, number=1)
            assert seat.user_id is None
            # Suspension from another process: `suspended` says why, then 4003.
            socket = await opened(port, table.pk, bobs)
            await database_sync_to_async(age_status_set)(
                user=bob, status=AgeStatus.SUSPENDED, reason="a report", changed_by=warden
            )
            code, seen = await close_code(socket)
            assert code == 4003
            assert seen[-1]["type"] == "suspended" and "suspended" in seen[-1]["message"]

        asyncio.run(play())
    finally:
        stop_server(server)
