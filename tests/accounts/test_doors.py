"""Log-in, log-out, and the age gate at every door: pages and the WebSocket."""

from __future__ import annotations

import time
from typing import Any

import pytest
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client
from django.urls import reverse

from accounts.models import AgeStatus, User
from accounts.services import AccountNotAllowed, age_status_set, ensure_may_play
from dominoes_site.asgi import application
from tests.conftest import PASSWORD


def socket_for(client: Client, path: str = "/ws/heartbeat/") -> WebsocketCommunicator:
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    return WebsocketCommunicator(
        application,
        path,
        headers=[
            (b"cookie", cookie.encode()),
            (b"origin", b"http://localhost"),
            (b"host", b"localhost"),
        ],
    )


@pytest.mark.django_db
def test_log_in_and_out(client: Client, alice: User) -> None:
    response = client.post(reverse("account_login"), {"login": alice.email, "password": PASSWORD})
    assert response.status_code == 302
    assert client.get(reverse("home")).context["user"] == alice
    response = client.post(reverse("account_logout"))
    assert response.status_code == 302
    assert not client.get(reverse("home")).context["user"].is_authenticated


@pytest.mark.django_db
def test_wrong_password_is_a_form_error(client: Client, alice: User) -> None:
    response = client.post(reverse("account_login"), {"login": alice.email, "password": "nope"})
    assert response.status_code == 200
    assert response.context["form"].errors


@pytest.mark.django_db
def test_suspended_player_is_refused_at_pages(client: Client, alice: User, warden: User) -> None:
    client.force_login(alice)
    assert client.get(reverse("accounts:my_profile")).status_code == 302
    age_status_set(user=alice, status=AgeStatus.SUSPENDED, reason="check", changed_by=warden)
    for name in ("home", "accounts:profile_edit"):
        response = client.get(reverse(name))
        assert response.status_code == 403
        assert b"suspended" in response.content
    # They can still read the rules and log out.
    assert client.get(reverse("rules")).status_code == 200
    assert client.post(reverse("account_logout")).status_code == 302


@pytest.mark.django_db
def test_services_refuse_suspended_and_under_age(alice: User, make_user: Any) -> None:
    ensure_may_play(alice)
    alice.age_status = AgeStatus.SUSPENDED
    with pytest.raises(AccountNotAllowed):
        ensure_may_play(alice)
    import datetime as dt

    kid = make_user("Kid", born=dt.date.today().replace(year=dt.date.today().year - 10))
    with pytest.raises(AccountNotAllowed, match="adults only"):
        ensure_may_play(kid)


@pytest.mark.django_db(transaction=True)
async def test_heartbeat_socket_for_a_player(client: Client, alice: User) -> None:
    await client.aforce_login(alice)
    socket = socket_for(client)
    connected, _ = await socket.connect()
    assert connected
    hello = await socket.receive_json_from()
    now_ms = time.time() * 1000
    assert hello["type"] == "hello" and abs(hello["server_time"] - now_ms) < 60_000  # ms
    assert isinstance(hello["server_time"], int)
    await socket.send_json_to({"type": "ping"})
    pong = await socket.receive_json_from()
    assert pong["type"] == "pong" and isinstance(pong["server_time"], int)
    assert abs(pong["server_time"] - time.time() * 1000) < 60_000
    await socket.send_to(text_data="{not json")
    error = await socket.receive_json_from()
    assert error == {"type": "error", "code": "bad_json", "message": error["message"]}
    await socket.send_to(text_data="x" * 10000)
    assert (await socket.receive_json_from())["code"] == "too_large"
    await socket.send_json_to({"type": "teleport"})
    assert (await socket.receive_json_from())["code"] == "unknown_type"
    await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_anonymous_socket_is_closed_4001() -> None:
    socket = WebsocketCommunicator(
        application, "/ws/heartbeat/", headers=[(b"origin", b"http://localhost")]
    )
    # Accepted, then closed with the code: a browser sees 4001, not a failed handshake.
    connected, _ = await socket.connect()
    assert connected
    assert await socket.receive_output(timeout=5) == {"type": "websocket.close", "code": 4001}


@pytest.mark.django_db(transaction=True)
async def test_foreign_origin_is_refused(client: Client, alice: User) -> None:
    await client.aforce_login(alice)
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    socket = WebsocketCommunicator(
        application,
        "/ws/heartbeat/",
        headers=[(b"cookie", cookie), (b"origin", b"http://evil.example")],
    )
    connected, _ = await socket.connect()
    assert not connected


@pytest.mark.django_db(transaction=True)
async def test_suspended_player_socket_refused_at_connect(client: Client, alice: User) -> None:
    await client.aforce_login(alice)
    await User.objects.filter(pk=alice.pk).aupdate(age_status=AgeStatus.SUSPENDED)
    socket = socket_for(client)
    connected, _ = await socket.connect()
    assert connected
    assert await socket.receive_output(timeout=5) == {"type": "websocket.close", "code": 4003}


@pytest.mark.django_db(transaction=True)
async def test_suspension_closes_open_sockets(client: Client, alice: User, warden: User) -> None:
    from asgiref.sync import sync_to_async

    await client.aforce_login(alice)
    socket = socket_for(client)
    assert (await socket.connect())[0]
    await socket.receive_json_from()  # hello
    await sync_to_async(age_status_set)(
        user=alice, status=AgeStatus.SUSPENDED, reason="reported", changed_by=warden
    )
    notice = await socket.receive_json_from(timeout=5)
    assert notice["type"] == "suspended"
    closed = await socket.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": 4003}
