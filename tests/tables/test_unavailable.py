"""A database out of reach is an `error` on the socket, which stays open; nothing was done."""

from __future__ import annotations

from typing import Any

import pytest

from dominoes_site import db_hop
from tables import consumers, services
from tests.tables.helpers import connect, next_reply


@pytest.mark.django_db(transaction=True)
async def test_an_unreachable_database_is_an_error_and_the_socket_stays_open(
    alice: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from asgiref.sync import sync_to_async

    table = await sync_to_async(services.table_create)(host=alice, mode="citizen", players=2)
    socket = await connect(alice, table.pk)
    await socket.send_json_to({"type": "hello", "last_seq": None})
    assert (await next_reply(socket))["type"] == "snapshot"

    def unreachable(**kwargs: Any) -> None:
        raise db_hop.DatabaseUnavailable("connection refused")

    monkeypatch.setattr(consumers, "chat_send", unreachable)
    await socket.send_json_to({"type": "chat", "text": "hello", "request_id": "c1"})
    error = await next_reply(socket)
    assert error["type"] == "error" and error["code"] == "unavailable", error
    assert error["request_id"] == "c1"
    assert "nothing was done" in error["message"]
    monkeypatch.undo()
    await socket.send_json_to({"type": "ping"})
    assert (await next_reply(socket))["type"] == "pong"  # still open
    await socket.disconnect()
