"""Sign-up and the 18+ gate: boundaries, field errors and the 24-hour retry block."""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from accounts.age_block import COOKIE
from accounts.models import User

TODAY = dt.date(2026, 11, 30)


def signup_data(**overrides: Any) -> dict[str, Any]:
    data = {
        "email": "newbie@example.com",
        "display_name": "Newbie",
        "date_of_birth": "1995-06-01",
        "password1": "a-long-table-talk-42",
        "password2": "a-long-table-talk-42",
        "confirm_adult": "on",
        "time_zone": "UTC",
    }
    data.update(overrides)
    return data


def post_signup(client: Client, **overrides: Any) -> Any:
    return client.post(reverse("account_signup"), signup_data(**overrides))


@pytest.fixture(autouse=True)
def _today(frozen_today: Any) -> None:
    frozen_today(TODAY)


@pytest.mark.django_db
def test_adult_signs_up_and_is_logged_in(client: Client) -> None:
    response = post_signup(client)
    assert response.status_code == 302
    user = User.objects.get(email="newbie@example.com")
    assert user.display_name == "Newbie"
    assert user.date_of_birth == dt.date(1995, 6, 1)
    assert user.age_status == "declared"
    assert client.get(reverse("home")).context["user"] == user


@pytest.mark.django_db
def test_eighteenth_birthday_today_may_join(client: Client) -> None:
    response = post_signup(client, date_of_birth="2008-11-30")
    assert response.status_code == 302
    assert User.objects.filter(email="newbie@example.com").exists()


@pytest.mark.django_db
def test_eighteenth_birthday_tomorrow_is_refused_kindly(client: Client) -> None:
    response = post_signup(client, date_of_birth="2008-12-01")
    assert response.status_code == 403
    assert b"adults only" in response.content
    assert not User.objects.exists()
    assert COOKIE in response.cookies


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("born", "today", "accepted"),
    [
        # Born on 29 February: in a common year the birthday is reached on 1 March.
        ("2008-02-29", dt.date(2026, 2, 28), False),
        ("2008-02-29", dt.date(2026, 3, 1), True),
        # Turning 18 on a leap day itself.
        ("2014-02-28", dt.date(2032, 2, 28), True),
        ("2014-03-01", dt.date(2032, 2, 29), False),
        ("2014-02-29", dt.date(2032, 2, 29), None),  # 2014 had no 29 February: a bad date
    ],
)
def test_leap_day_birthdays(
    client: Client, frozen_today: Any, born: str, today: dt.date, accepted: bool | None
) -> None:
    frozen_today(today)
    response = post_signup(client, date_of_birth=born)
    expected_status = {True: 302, False: 403, None: 200}[accepted]
    assert response.status_code == expected_status
    assert User.objects.exists() is bool(accepted)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("2027-01-01", "That date is in the future."),
        ("1800-01-01", "Please enter your real date of birth."),
        ("not a date", "Enter a real date"),
        ("2001-02-30", "Enter a real date"),
        ("", "This field is required."),
    ],
)
def test_bad_dates_are_field_errors(client: Client, value: str, message: str) -> None:
    response = post_signup(client, date_of_birth=value)
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert any(message in e for e in errors["date_of_birth"])
    assert not User.objects.exists()
    assert COOKIE not in response.cookies  # a typo is not an under-age declaration


@pytest.mark.django_db
def test_adult_box_must_be_ticked(client: Client) -> None:
    data = signup_data()
    del data["confirm_adult"]
    response = client.post(reverse("account_signup"), data)
    assert response.status_code == 200
    assert "confirm_adult" in response.context["form"].errors
    assert not User.objects.exists()


@pytest.mark.django_db
def test_display_name_is_unique_ignoring_case(client: Client, alice: User) -> None:
    response = post_signup(client, display_name="aLiCe")
    assert response.status_code == 200
    assert "display_name" in response.context["form"].errors
    assert User.objects.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["ab", "x" * 25, "<script>", "House Shark", "-dash-"])
def test_bad_display_names(client: Client, name: str) -> None:
    response = post_signup(client, display_name=name)
    assert response.status_code == 200
    assert "display_name" in response.context["form"].errors


@pytest.mark.django_db
def test_under_age_blocks_retry_for_24_hours(client: Client, monkeypatch: Any) -> None:
    refused = post_signup(client, date_of_birth="2010-01-01")
    assert refused.status_code == 403
    # The same browser tries again with an adult date: refused, nothing created.
    retry = post_signup(client, date_of_birth="1990-01-01")
    assert retry.status_code == 403
    assert b"paused" in retry.content
    assert not User.objects.exists()
    assert client.get(reverse("account_signup")).status_code == 403
    # 23 hours later: still paused.
    real_time = time.time
    monkeypatch.setattr(time, "time", lambda: real_time() + 23 * 3600)
    assert post_signup(client, date_of_birth="1990-01-01").status_code == 403
    # A day later the browser may sign up.
    monkeypatch.setattr(time, "time", lambda: real_time() + 24 * 3600 + 5)
    assert post_signup(client, date_of_birth="1990-01-01").status_code == 302
    assert User.objects.count() == 1


@pytest.mark.django_db
def test_block_cookie_survives_a_new_session(client: Client) -> None:
    post_signup(client, date_of_birth="2010-01-01")
    cookie = client.cookies[COOKIE].value
    fresh = Client()
    fresh.cookies[COOKIE] = cookie
    assert post_signup(fresh, date_of_birth="1990-01-01").status_code == 403


@pytest.mark.django_db
def test_forged_block_cookie_is_ignored_not_trusted(client: Client) -> None:
    client.cookies[COOKIE] = "forged-value"
    assert post_signup(client).status_code == 302
