"""Getting play money: the sign-up grant and the daily allowance, each paid exactly once."""

from __future__ import annotations

import datetime as dt
import threading
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.db import connection
from django.test import Client
from django.urls import reverse

from accounts.models import User
from ledger import services
from ledger.models import Posting, Reason
from tests.ledger.helpers import assert_books_balance, books, dollars

NOON = dt.datetime(2026, 3, 10, 12, 0, tzinfo=dt.UTC)


@pytest.mark.django_db
def test_a_new_player_gets_the_signup_grant_once(make_user: Any, settings: Any) -> None:
    alice = make_user("Alice")
    assert (dollars(alice), books(alice)) == (
        settings.LEDGER_SIGNUP_DOLLARS,
        settings.LEDGER_SIGNUP_BOOKS,
    )
    posting = Posting.objects.get(key=f"signup:{alice.pk}")
    assert posting.reason == Reason.SIGNUP and posting.user == alice
    again = services.signup_grant(user=alice)
    assert again is not None and again.pk == posting.pk
    alice.save()  # saving the account again grants nothing
    assert dollars(alice) == settings.LEDGER_SIGNUP_DOLLARS
    assert Posting.objects.filter(reason=Reason.SIGNUP).count() == 1
    assert_books_balance()


@pytest.mark.django_db
def test_the_grant_amounts_come_from_settings(make_user: Any, settings: Any) -> None:
    settings.LEDGER_SIGNUP_DOLLARS = 7
    settings.LEDGER_SIGNUP_BOOKS = 0
    alice = make_user("Alice")
    assert (dollars(alice), books(alice)) == (7, 0)


@pytest.mark.django_db
def test_signing_up_on_the_site_grants_play_money(client: Client, frozen_today: Any) -> None:
    frozen_today(dt.date(2026, 3, 10))
    response = client.post(
        reverse("account_signup"),
        {
            "email": "newbie@example.com",
            "display_name": "Newbie",
            "date_of_birth": "1995-06-01",
            "password1": "a-long-table-talk-42",
            "password2": "a-long-table-talk-42",
            "confirm_adult": "on",
            "time_zone": "UTC",
        },
    )
    assert response.status_code == 302
    user = User.objects.get(email="newbie@example.com")
    assert Posting.objects.filter(key=f"signup:{user.pk}").exists()
    assert dollars(user) > 0


@pytest.mark.django_db
def test_the_allowance_is_claimed_once_per_day(alice: Any, settings: Any) -> None:
    before = (dollars(alice), books(alice))
    posting = services.allowance_claim(user=alice, now=NOON)
    assert posting.key == f"allowance:{alice.pk}:2026-03-10"
    assert (dollars(alice), books(alice)) == (
        before[0] + settings.LEDGER_ALLOWANCE_DOLLARS,
        before[1] + settings.LEDGER_ALLOWANCE_BOOKS,
    )
    with pytest.raises(services.AlreadyClaimed) as refused:
        services.allowance_claim(user=alice, now=NOON + dt.timedelta(hours=11, minutes=59))
    assert "already claimed" in refused.value.message
    assert refused.value.next_at == dt.datetime(2026, 3, 11, tzinfo=dt.UTC)
    services.allowance_claim(user=alice, now=NOON + dt.timedelta(hours=12))
    assert Posting.objects.filter(reason=Reason.ALLOWANCE, user=alice).count() == 2
    assert_books_balance()


@pytest.mark.django_db
def test_the_day_is_the_players_own(alice: Any) -> None:
    alice.time_zone = "America/Los_Angeles"  # UTC-7 in March (daylight time from 8 March)
    alice.save()
    # 05:00 UTC on the 10th is still the 9th in Los Angeles.
    early = dt.datetime(2026, 3, 10, 5, 0, tzinfo=dt.UTC)
    assert services.allowance_claim(user=alice, now=early).key.endswith(":2026-03-09")
    with pytest.raises(services.AlreadyClaimed) as refused:
        services.allowance_claim(user=alice, now=early + dt.timedelta(hours=1))
    # The next claim opens at midnight in Los Angeles: 07:00 UTC.
    assert refused.value.next_at == dt.datetime(2026, 3, 10, 7, 0, tzinfo=dt.UTC)
    assert services.allowance_claim(user=alice, now=early + dt.timedelta(hours=2)).key.endswith(
        ":2026-03-10"
    )


@pytest.mark.django_db
def test_changing_time_zone_does_not_claim_a_day_twice(alice: Any) -> None:
    alice.time_zone = "Pacific/Kiritimati"  # UTC+14
    alice.save()
    services.allowance_claim(user=alice, now=NOON)  # already the 11th there
    alice.time_zone = "UTC"
    alice.save()
    with pytest.raises(services.AlreadyClaimed):
        services.allowance_claim(user=alice, now=NOON)  # the 10th: before the last day claimed
    assert Posting.objects.filter(reason=Reason.ALLOWANCE, user=alice).count() == 1


@pytest.mark.django_db
def test_no_allowance_when_set_to_nothing(alice: Any, settings: Any) -> None:
    settings.LEDGER_ALLOWANCE_DOLLARS = 0
    settings.LEDGER_ALLOWANCE_BOOKS = 0
    with pytest.raises(services.LedgerError, match="no daily allowance"):
        services.allowance_claim(user=alice, now=NOON)
    assert not Posting.objects.filter(reason=Reason.ALLOWANCE).exists()


@pytest.mark.django_db
def test_the_locker_page_claims_and_shows_the_wait(client: Client, alice: Any) -> None:
    client.force_login(alice)
    page = client.get(reverse("ledger:locker")).content.decode()
    assert "Claim" in page and "no cash value" in page
    response = client.post(reverse("ledger:claim"), follow=True)
    html = response.content.decode()
    assert "Claimed today&#x27;s allowance" in html or "Claimed today's allowance" in html
    assert "Claimed for today." in html and "Next claim in" in html
    response = client.post(reverse("ledger:claim"), follow=True)
    assert "already claimed" in response.content.decode()
    assert Posting.objects.filter(reason=Reason.ALLOWANCE, user=alice).count() == 1
    assert client.get(reverse("ledger:claim")).status_code == 405


@pytest.mark.django_db(transaction=True)
def test_two_claims_at_once_pay_once(make_user: Any) -> None:
    alice = make_user("Alice")
    before = dollars(alice)
    barrier = threading.Barrier(4)
    outcomes: list[str] = []

    def claim() -> None:
        try:
            barrier.wait(timeout=30)
            services.allowance_claim(user=alice, now=NOON)
            outcomes.append("paid")
        except services.AlreadyClaimed:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=claim) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(outcomes) == ["paid", "refused", "refused", "refused"]
    assert Posting.objects.filter(reason=Reason.ALLOWANCE, user=alice).count() == 1
    assert dollars(alice) == before + django_settings.LEDGER_ALLOWANCE_DOLLARS
    assert_books_balance()


@pytest.mark.django_db
def test_the_locker_and_store_speak_spanish(client: Client, alice: Any) -> None:
    client.cookies[django_settings.LANGUAGE_COOKIE_NAME] = "es"
    client.force_login(alice)
    locker = client.get(reverse("ledger:locker")).content.decode()
    assert "Tu casillero" in locker and "no tienen valor en efectivo" in locker
    assert "Regalo de bienvenida por registrarte" in locker and "dólares" in locker
    store = client.get(reverse("ledger:commissary")).content.decode()
    assert "El Economato" in store and "Sopa" in store and "libros cada uno" in store
