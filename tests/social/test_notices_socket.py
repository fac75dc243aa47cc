"""The notices socket: a notice reaches its own player only, bad input leaves it open, its pings
mark the player online, and pages watch tournaments on it."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.db import transaction
from django.test import Client

from dominoes_site.asgi import application
from social import presence
from social.notices import notify_user


async def socket_for(user: Any, path: str = "/ws/notices/") -> WebsocketCommunicator:
    client = Client()
    await client.aforce_login(user)
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    socket = WebsocketCommunicator(
        application, path, headers=[(b"cookie", cookie.encode()), (b"origin", b"http://localhost")]
    )
    connected, code = await socket.connect()
    assert connected, code
    hello = await socket.receive_json_from(timeout=10)
    assert hello["type"] == "hello"
    return socket


async def pong(socket: WebsocketCommunicator) -> dict[str, Any]:
    """A ping's answer: everything the socket had to send before it has been received."""
    await socket.send_json_to({"type": "ping"})
    message = await socket.receive_json_from(timeout=10)
    assert message["type"] == "pong", message
    return message


@pytest.mark.django_db(transaction=True)
async def test_a_notice_reaches_its_player_only(alice: Any, bob: Any) -> None:
    to_alice = await socket_for(alice)
    to_bob = await socket_for(bob)

    def send() -> None:
        with transaction.atomic():
            notify_user(alice.pk, "challenge", {"challenge": 7, "from": "Bob"})

    await sync_to_async(send)()
    message = await to_alice.receive_json_from(timeout=10)
    assert message == {"type": "notice", "kind": "challenge", "challenge": 7, "from": "Bob"}
    await pong(to_bob)  # anything for Bob would have come before his pong
    assert await to_bob.receive_nothing(timeout=0.2)
    await to_alice.disconnect()
    await to_bob.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_notice_leaves_only_when_its_transaction_commits(alice: Any) -> None:
    socket = await socket_for(alice)

    class Undo(Exception):
        pass

    def send_and_roll_back() -> None:
        try:
            with transaction.atomic():
                notify_user(alice.pk, "challenge", {"challenge": 1})
                raise Undo
        except Undo:
            pass
        with transaction.atomic():
            notify_user(alice.pk, "challenge", {"challenge": 2})

    await sync_to_async(send_and_roll_back)()
    message = await socket.receive_json_from(timeout=10)
    assert message["challenge"] == 2  # the rolled-back one never left
    await socket.disconnect()


def test_a_notice_may_not_overwrite_its_type() -> None:
    with pytest.raises(ValueError):
        notify_user(1, "challenge", {"type": "pong"})


@pytest.mark.django_db(transaction=True)
async def test_bad_input_is_answered_and_the_socket_stays_open(alice: Any) -> None:
    socket = await socket_for(alice)
    await socket.send_to(text_data="not json")
    assert (await socket.receive_json_from(timeout=10))["code"] == "bad_json"
    await socket.send_json_to({"type": "shout"})
    assert (await socket.receive_json_from(timeout=10))["code"] == "unknown_type"
    for bad in (
        {"type": "watch", "topic": "everything"},
        {"type": "watch", "topic": "tournament", "id": 0},
    ):
        await socket.send_json_to(bad)
        error = await socket.receive_json_from(timeout=10)
        assert error["type"] == "error" and error["code"] == "bad_watch", bad
    # The id is a whole number as on the table socket: 0 to 2**53 - 1, no bool, float or text.
    for number in ("5", True, -1, 1.0, None, 2**53, 10**400):
        await socket.send_json_to({"type": "watch", "topic": "tournament", "id": number})
        error = await socket.receive_json_from(timeout=10)
        assert (error["type"], error["code"], error["field"]) == ("error", "bad_field", "id")
    await socket.send_json_to({"type": "watch", "topic": "tournament", "id": 2**53 - 1})
    assert (await socket.receive_json_from(timeout=10))["type"] == "watching"
    await pong(socket)  # still open, still answering

    def send() -> None:
        with transaction.atomic():
            notify_user(alice.pk, "hello_again", {})

    await sync_to_async(send)()
    assert (await socket.receive_json_from(timeout=10))["kind"] == "hello_again"
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_the_socket_needs_a_login() -> None:
    socket = WebsocketCommunicator(
        application, "/ws/notices/", headers=[(b"origin", b"http://localhost")]
    )
    connected, _code = await socket.connect()
    if connected:
        closed = await socket.receive_output(timeout=5)
        assert closed["type"] == "websocket.close" and closed["code"] == 4001


@pytest.mark.django_db(transaction=True)
async def test_an_open_socket_marks_its_player_online(alice: Any, bob: Any) -> None:
    assert alice.pk not in presence.online_user_ids()
    socket = await socket_for(alice)
    assert alice.pk in presence.online_user_ids()
    assert bob.pk not in presence.online_user_ids()
    await socket.disconnect()


def test_online_means_seen_in_the_last_slots() -> None:
    start = 1_000_000 * presence.SLOT_SECONDS
    presence.mark_online(5, now=start)
    assert presence.online_user_ids(now=start) == {5}
    last = start + presence.SLOT_SECONDS * presence.ONLINE_SLOTS - 1
    assert presence.online_user_ids(now=last) == {5}
    assert presence.online_user_ids(now=last + 1) == set()
    presence.mark_online(6, now=start + presence.SLOT_SECONDS)
    assert presence.online_user_ids(now=start + presence.SLOT_SECONDS) == {5, 6}


@pytest.mark.django_db(transaction=True)
async def test_pings_keep_a_player_online(alice: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    socket = await socket_for(alice)
    real = presence.current_slot
    # Ten slots later (five minutes): the mark made at connect is too old to count...
    monkeypatch.setattr(presence, "current_slot", lambda now=None: real(now) + 10)
    assert alice.pk not in presence.online_user_ids()
    await pong(socket)  # ...until the page's next ping marks the player again
    assert alice.pk in presence.online_user_ids()
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_the_rate_limit_of_the_table_socket_holds_here(
    alice: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A burst of 30, then `rate_limited` (naming the message), and the 50th refusal closes the
    socket with 4008: 5,000 pings are not all answered."""
    monkeypatch.setattr("dominoes_site.consumers.RATE_PER_SECOND", 0.0)
    socket = await socket_for(alice)
    for _ in range(30):
        await pong(socket)
    await socket.send_json_to({"type": "watch", "topic": "tournaments", "request_id": "w-1"})
    error = await socket.receive_json_from(timeout=10)
    assert error["code"] == "rate_limited"
    assert (error["request_type"], error["request_id"]) == ("watch", "w-1")
    for _ in range(48):
        await socket.send_json_to({"type": "ping"})
        assert (await socket.receive_json_from(timeout=10))["code"] == "rate_limited"
    await socket.send_json_to({"type": "ping"})
    assert await socket.receive_output(timeout=10) == {"type": "websocket.close", "code": 4008}


@pytest.mark.django_db(transaction=True)
async def test_one_account_may_have_ten_notices_sockets_open(alice: Any, bob: Any) -> None:
    sockets = [await socket_for(alice) for _ in range(10)]
    eleventh = WebsocketCommunicator(
        application, "/ws/notices/", headers=sockets[0].scope["headers"]
    )
    connected, _code = await eleventh.connect()
    assert connected
    assert await eleventh.receive_output(timeout=10) == {"type": "websocket.close", "code": 4009}
    others = await socket_for(bob)  # another account is not held back
    await pong(others)
    await sockets[0].disconnect()  # a page closed: its place is free again
    again = await socket_for(alice)
    await pong(again)
    for socket in [*sockets[1:], again, others]:
        await socket.disconnect()
