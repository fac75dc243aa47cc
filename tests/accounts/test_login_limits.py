"""Log-in limits count wrong passwords, per account and per address, at the site and in admin."""

from __future__ import annotations

from typing import Any

import pytest
from allauth.account.adapter import get_adapter
from django.test import Client, RequestFactory
from django.urls import reverse

from tests.conftest import PASSWORD

WRONG = "not-the-password"


@pytest.fixture(autouse=True)
def _quick_hashes(settings: Any) -> None:
    """These tests check passwords by the dozen: a quick hash (the limits do not depend on it)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def site_login(client: Client, email: str, password: str, address: str = "127.0.0.1") -> Any:
    return client.post(
        reverse("account_login"), {"login": email, "password": password}, REMOTE_ADDR=address
    )


def admin_login(client: Client, email: str, password: str, address: str = "127.0.0.1") -> Any:
    return client.post(
        reverse("admin:login"),
        {"username": email, "password": password, "next": "/admin/"},
        REMOTE_ADDR=address,
    )


def errors_of(response: Any) -> str:
    return " ".join(str(e) for e in response.context["form"].errors.get("__all__", []))


@pytest.fixture
def club(make_user: Any) -> list[Any]:
    return [make_user(f"Player{n:02d}") for n in range(12)]


@pytest.mark.django_db
def test_a_club_logging_in_together_from_one_address_gets_in(club: list[Any]) -> None:
    """Eleven log-ins are in flight (their passwords being checked) when the twelfth arrives."""
    factory = RequestFactory()
    in_flight = []
    for player in club[:11]:
        request = factory.post(reverse("account_login"), REMOTE_ADDR="127.0.0.1")
        adapter = get_adapter(request)
        adapter.pre_authenticate(request, email=player.email, password=PASSWORD)
        in_flight.append(adapter)
    response = site_login(Client(), club[11].email, PASSWORD)
    assert response.status_code == 302, errors_of(response)
    for adapter in in_flight:
        adapter._rollback_login_failed_rl_usage()


@pytest.mark.django_db
def test_log_ins_that_succeed_never_count(club: list[Any]) -> None:
    """36 log-ins from one address within a minute, all let in."""
    for _round in range(3):
        for player in club:
            assert site_login(Client(), player.email, PASSWORD).status_code == 302


@pytest.mark.django_db
def test_wrong_passwords_for_an_account_pause_it_and_say_so(alice: Any, bob: Any) -> None:
    for _ in range(5):
        response = site_login(Client(), alice.email, WRONG)
        assert response.status_code == 200
        assert "Too many" not in errors_of(response)
    response = site_login(Client(), alice.email, PASSWORD)
    assert response.status_code == 200
    message = errors_of(response)
    assert "wrong passwords were tried for this account" in message
    assert "Try again in 5 minutes" in message
    # The same address is not refused for another account: only Alice's is paused.
    assert site_login(Client(), bob.email, PASSWORD).status_code == 302
    # Typed in capitals, it is the same account.
    assert site_login(Client(), alice.email.upper(), PASSWORD).status_code == 200


@pytest.mark.django_db
def test_wrong_passwords_from_an_address_pause_that_address(
    make_user: Any, alice: Any, bob: Any
) -> None:
    for n in range(10):
        response = site_login(Client(), f"nobody{n}@example.com", WRONG, "203.0.113.7")
        assert "Too many" not in errors_of(response)
    response = site_login(Client(), alice.email, PASSWORD, "203.0.113.7")
    assert response.status_code == 200
    message = errors_of(response)
    assert "wrong passwords were tried from your network" in message
    assert "Try again in 1 minute." in message
    # Another address is not affected.
    assert site_login(Client(), bob.email, PASSWORD, "198.51.100.2").status_code == 302


@pytest.mark.django_db
def test_the_admin_log_in_is_limited(warden: Any) -> None:
    """40 wrong passwords, then the right one: refused, and the page says why."""
    client = Client()
    refused = 0
    for _ in range(40):
        response = admin_login(client, warden.email, WRONG)
        assert response.status_code == 200
        refused += "wrong passwords were tried" in errors_of(response)
    assert refused == 35  # the first 5 were checked, the rest refused unchecked
    response = admin_login(client, warden.email, PASSWORD)
    assert response.status_code == 200
    assert "wrong passwords were tried for this account" in errors_of(response)
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_admin_and_site_share_the_counters(warden: Any) -> None:
    for _ in range(3):
        admin_login(Client(), warden.email, WRONG)
    for _ in range(2):
        site_login(Client(), warden.email, WRONG)
    response = admin_login(Client(), warden.email, PASSWORD)
    assert "wrong passwords were tried for this account" in errors_of(response)


@pytest.mark.django_db
def test_admin_right_password_is_not_a_guess(warden: Any, alice: Any) -> None:
    """A right password logs staff in; a player's right password is refused by the admin, but
    is not counted as a wrong one."""
    for _ in range(8):
        response = admin_login(Client(), alice.email, PASSWORD)
        assert response.status_code == 200
        assert "wrong passwords" not in errors_of(response)
    client = Client()
    assert admin_login(client, warden.email, PASSWORD).status_code == 302
    assert client.session["_auth_user_id"] == str(warden.pk)


@pytest.mark.django_db
def test_admin_log_in_in_spanish(warden: Any) -> None:
    for _ in range(5):
        admin_login(Client(), warden.email, WRONG)
    client = Client()
    client.cookies["django_language"] = "es"
    response = admin_login(client, warden.email, PASSWORD)
    assert "contraseñas incorrectas" in errors_of(response)
