"""A socket follows its own seat at once: after its own `sit` it is in the seat's group before
its next frame is read, not only once the update saying so has come back to it.

(It used to move only on that update: a player who sat and pressed Ready at once could have the
game's start sent to the seat's group before its socket had joined it, and wait for it forever.)
"""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer

from tables import broadcast, presence, services
from tests.tables.helpers import connect, next_reply, receive_until


async def _settled(socket: Any) -> None:
    """Wait until the socket has handled every frame sent before (it handles them in order)."""
    await socket.send_json_to({"type": "ping"})
    while (await socket.receive_json_from(timeout=30))["type"] != "pong":
        pass


async def _in_group(socket: Any, inside: str, outside: str, number: int) -> None:
    """The socket is in `inside` and not in `outside`: a watcher count sent to `outside` and
    then one to `inside` (one sender: they arrive in that order), and only the second comes."""
    layer = get_channel_layer()
    await layer.group_send(outside, {"type": "table.watchers", "watchers": number})
    await layer.group_send(inside, {"type": "table.watchers", "watchers": number + 1})
    while True:
        message = await socket.receive_json_from(timeout=30)
        assert message != {"type": "watchers", "watchers": number}, f"still in {outside}"
        if message == {"type": "watchers", "watchers": number + 1}:
            return


@pytest.mark.django_db(transaction=True)
async def test_a_player_is_in_the_seats_group_before_its_next_frame(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await sync_to_async(services.table_create)(host=alice, mode="citizen", players=2)
    await sync_to_async(services.seat_ready)(table_id=table.pk, user=alice, ready=True)
    socket = await connect(bob, table.pk)
    await socket.send_json_to({"type": "hello", "last_seq": None})
    snapshot = await next_reply(socket)
    assert snapshot["type"] == "snapshot" and snapshot["table"]["you"]["seat"] is None

    # Hold every update: the socket cannot learn its seat from one.
    held: list[list[tuple[str, dict[str, Any]]]] = []
    release = broadcast.group_send_many
    monkeypatch.setattr(broadcast, "group_send_many", held.append)
    monkeypatch.setattr(presence, "group_send_many", held.append)
    await socket.send_json_to({"type": "sit", "seat": 1})
    await _settled(socket)
    await _in_group(socket, broadcast.seat_group(table.pk, 1), broadcast.public_group(table.pk), 71)

    # Bob's Ready starts the game: its update reaches him with his hand.
    await socket.send_json_to({"type": "ready", "ready": True})
    await _settled(socket)
    monkeypatch.undo()
    assert len(held) >= 2
    for batch in held:
        await sync_to_async(release)(batch)
    last = max(message["seq"] for batch in held for _g, message in batch if "seq" in message)
    started = await receive_until(socket, last, seat=1)
    assert started["game"]["phase"] != "waiting" and len(started["game"]["hand"]) > 0
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_player_who_stands_is_back_among_the_watchers_at_once(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await sync_to_async(services.table_create)(host=alice, mode="citizen", players=2)
    await sync_to_async(services.seat_take)(table_id=table.pk, user=bob, number=1)
    socket = await connect(bob, table.pk)
    await socket.send_json_to({"type": "hello", "last_seq": None})
    assert (await next_reply(socket))["table"]["you"]["seat"] == 1

    monkeypatch.setattr(broadcast, "group_send_many", lambda batch: None)
    monkeypatch.setattr(presence, "group_send_many", lambda batch: None)
    await socket.send_json_to({"type": "stand"})
    await _settled(socket)
    await _in_group(socket, broadcast.public_group(table.pk), broadcast.seat_group(table.pk, 1), 73)
    await socket.disconnect()
