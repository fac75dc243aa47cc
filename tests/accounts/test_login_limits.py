"""Log-in limits count wrong passwords, per account and per address, at the site and in admin."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from django.contrib.auth.hashers import MD5PasswordHasher
from django.core import mail
from django.test import Client
from django.urls import reverse

from tests.concurrency import at_once
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
def test_a_password_reset_by_e_mail_ends_the_accounts_pause(alice: Any) -> None:
    for _ in range(5):
        site_login(Client(), alice.email, WRONG)
    assert "tried for this account" in errors_of(site_login(Client(), alice.email, PASSWORD))
    client = Client()
    client.post(reverse("account_reset_password"), {"email": alice.email})
    link = re.search(r"https?://[^/\s]+(/accounts/password/reset/key/\S+)", mail.outbox[0].body)
    assert link
    page = client.get(link.group(1), follow=True)
    form_url = page.redirect_chain[-1][0] if page.redirect_chain else link.group(1)
    new = "a-new-bone-9-yard"
    client.post(form_url, {"password1": new, "password2": new})
    assert site_login(Client(), alice.email, new).status_code == 302


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


# --- really at once -------------------------------------------------------------------------------


class SlowHasher(MD5PasswordHasher):
    """A password check that takes as long as a real one, so log-ins sent at once overlap."""

    def verify(self, password: str, encoded: str) -> bool:
        time.sleep(0.1)
        return bool(super().verify(password, encoded))


@pytest.fixture
def _slow_checks(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["tests.accounts.test_login_limits.SlowHasher"]


def page_says(response: Any) -> str:
    """The page's text (in threads the test client's `context` may hold another thread's
    templates: the signal it listens to is global)."""
    return response.content.decode()


def _checked(responses: list[Any]) -> int:
    """How many of the log-ins had their password checked (told it was wrong, not refused)."""
    return sum("not correct" in page_says(r) for r in responses)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("_slow_checks")
def test_wrong_passwords_for_many_accounts_sent_at_once_are_held_to_the_address_limit(
    make_user: Any,
) -> None:
    """30 wrong passwords for 30 accounts, sent together from one address: only 10 are checked,
    the rest are refused for the address, and the address is then paused."""
    players = [make_user(f"Member{n:02d}") for n in range(30)]
    responses = at_once(
        *[lambda p=p: site_login(Client(), p.email, WRONG, "203.0.113.9") for p in players]
    )
    assert all(r.status_code == 200 for r in responses), responses
    refused = sum("tried from your network" in page_says(r) for r in responses)
    assert _checked(responses) == 10 and refused == 20
    response = site_login(Client(), players[0].email, PASSWORD, "203.0.113.9")
    assert "tried from your network" in errors_of(response)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("_slow_checks")
def test_right_passwords_sent_at_once_for_one_account_all_get_in(alice: Any) -> None:
    """Twelve right log-ins for one account, together: none is a wrong password, all get in."""
    responses = at_once(*[lambda: site_login(Client(), alice.email, PASSWORD) for _ in range(12)])
    assert [r.status_code for r in responses] == [302] * 12, sum(
        "Too many" in page_says(r) for r in responses
    )
    # and none of them counted: five wrong ones are still checked before the account pauses
    for _ in range(5):
        assert "not correct" in errors_of(site_login(Client(), alice.email, WRONG))
    assert "tried for this account" in errors_of(site_login(Client(), alice.email, WRONG))


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("_slow_checks")
def test_a_club_logging_in_at_once_from_one_address_gets_in(make_user: Any) -> None:
    """30 right log-ins for 30 accounts from one address, together: all get in (the address's
    places are given back as each password proves right)."""
    players = [make_user(f"Member{n:02d}") for n in range(30)]
    responses = at_once(
        *[lambda p=p: site_login(Client(), p.email, PASSWORD, "203.0.113.9") for p in players]
    )
    assert [r.status_code for r in responses] == [302] * 30, sum(
        "Too many" in page_says(r) for r in responses
    )
