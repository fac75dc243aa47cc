"""Closing an account closes its sockets at once, and a closed account's socket is refused."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async

from privacy import services
from tables import services as tables
from tests.tables.helpers import connect


@pytest.mark.django_db(transaction=True)
async def test_closing_closes_every_socket_of_the_account(alice: Any, bob: Any) -> None:
    table = await sync_to_async(tables.table_create)(host=bob, mode="citizen", players=2)
    socket = await connect(alice, table.pk)
    watcher = await connect(bob, table.pk)
    await sync_to_async(services.account_close)(user=alice, by=alice)
    for _ in range(20):
        message = await socket.receive_output(timeout=5)
        if message["type"] == "websocket.close":
            assert message["code"] in (4001, 4003)
            break
    else:
        raise AssertionError("the socket stayed open")
    await socket.disconnect()
    # Bob's socket is his: still open.
    await watcher.send_json_to({"type": "ping"})
    while True:
        answer = await watcher.receive_json_from(timeout=5)
        if answer["type"] == "pong":
            break
    await watcher.disconnect()
