"""Closing an account: the page, what is erased, what is kept under the new name, the books,
what is withdrawn, the e-mail's waiting time, and staff closing from admin."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from allauth.account.models import EmailAddress
from django.test import Client
from django.utils import timezone

from accounts.models import ClosedEmail, User
from accounts.services import closed_emails_forget, email_digest
from chat.models import ChatMessage, ChatReport
from history.models import PlayerGame
from ledger import services as ledger
from ledger.models import Account, Posting
from privacy import services
from puzzles.models import Attempt, Solver
from social.models import Challenge, Follow
from staff.models import StaffAction
from tables.models import Seat, Table
from tests.conftest import PASSWORD
from tests.ledger.helpers import assert_books_balance, dollars
from tests.privacy.conftest import World
from tournaments.models import Entry


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def close_by_page(user: Any, **data: Any) -> Any:
    client = logged_in(user)
    return client, client.post("/profile/close/", {"password": PASSWORD, "confirm": "on", **data})


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "es"])
def test_the_page_warns_and_asks_for_the_password(alice: Any, language: str) -> None:
    client = logged_in(alice)
    client.cookies["django_language"] = language
    response = client.get("/profile/close/")
    assert response.status_code == 200
    html = response.content.decode()
    words = {
        "en": ["cannot be undone", "Closed account #", "30 days", "stays on the books"],
        "es": ["no se puede deshacer", "Cuenta cerrada #", "30 días", "se queda en los libros"],
    }
    for word in words[language]:
        assert word in html
    assert 'type="password"' in html and 'name="confirm"' in html


@pytest.mark.django_db
def test_a_wrong_password_or_no_confirmation_closes_nothing(alice: Any) -> None:
    _client, response = close_by_page(alice, password="not-my-password")
    assert response.status_code == 400
    assert "That is not your password." in response.content.decode()
    _client, response = close_by_page(alice, confirm="")
    assert response.status_code == 400
    assert "Tick this box to confirm." in response.content.decode()
    alice.refresh_from_db()
    assert alice.is_active and alice.closed_at is None and alice.email == "alice@example.com"


@pytest.mark.django_db
def test_closing_erases_the_person_and_keeps_the_games_and_books(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob = world.alice, world.bob
    pk = alice.pk
    before = dollars(alice)
    client, response = close_by_page(alice)
    assert response.status_code == 200
    assert "Your account is closed" in response.content.decode()
    # Logged out, and no log-in ever again.
    assert not client.get("/").context["user"].is_authenticated
    assert not Client().login(email="alice@example.com", password=PASSWORD)
    alice = User.objects.get(pk=pk)
    # Personal data gone.
    assert not alice.is_active and alice.closed_at is not None
    assert alice.email == f"closed-{pk}@closed.invalid"
    assert alice.display_name == f"Closed account #{pk}"
    assert alice.date_of_birth is None and alice.time_zone == "UTC" and alice.language == ""
    assert not alice.has_usable_password()
    assert not EmailAddress.objects.filter(user=alice).exists()
    assert not ChatMessage.objects.filter(user=alice).exists()
    assert ChatMessage.objects.filter(user=bob).exists()  # Bob's lines are his
    assert not Follow.objects.filter(follower=alice).exists()
    assert not Follow.objects.filter(followed=alice).exists()
    assert not Attempt.objects.filter(user=alice).exists()
    assert not Solver.objects.filter(user=alice).exists()
    assert Attempt.objects.filter(user=bob).exists()  # Bob's tries are his
    # Kept: the game, the reports (staff's record), the ledger.
    assert PlayerGame.objects.filter(user=alice, game=world.game).exists()
    assert ChatReport.objects.filter(reported=alice).exists()
    assert Account.objects.filter(user=alice).exists()
    # Withdrawn: the seat at an open table, both challenges, the tournament entry (fee back).
    assert not Seat.objects.filter(table=world.open_table, user=alice).exists()
    assert not Challenge.objects.filter(status="pending").exists()
    statuses = set(Challenge.objects.values_list("status", flat=True))
    assert statuses == {"withdrawn", "declined"}
    entry = Entry.objects.get(tournament=world.tournament, player=alice)
    assert entry.withdrawn_at is not None
    assert Posting.objects.filter(reason="fee_refund").exists()
    assert dollars(alice) == before + 10  # the fee came back; the rest stays on the books
    # The books still balance: the nightly reconciliation finds nothing, nor does the check.
    assert ledger.reconcile_run().mismatch_count == 0
    assert_books_balance()
    # The name is replaced in the game's history, for the other player.
    page = logged_in(bob).get(f"/games/{world.game.pk}/").content.decode()
    assert f"Closed account #{pk}" in page and "Alice" not in page
    export = logged_in(bob).get(f"/games/{world.game.pk}/export.txt").content.decode()
    assert f"Seat 0: Closed account #{pk}" in export and "Alice" not in export
    # The profile is gone.
    assert logged_in(bob).get(f"/players/{pk}/").status_code == 404


@pytest.mark.django_db
def test_a_closed_account_leaves_the_leaderboards(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ratings import selectors

    monkeypatch.setattr(selectors, "LEADERBOARD_MIN_GAMES", 1)
    viewer = logged_in(world.bob)
    before = viewer.get("/leaderboards/").content.decode()
    assert "Alice" in before
    services.account_close(user=world.alice, by=world.alice)
    after = viewer.get("/leaderboards/").content.decode()
    assert "Alice" not in after and "Bob" in after


@pytest.mark.django_db
def test_a_player_in_a_game_in_progress_cannot_close(alice: Any, bob: Any) -> None:
    from tests.history.helpers import start_table

    table = start_table([alice, bob], "citizen")
    client = logged_in(alice)
    page = client.get("/profile/close/").content.decode()
    assert f"You are in a game in progress (table {table.pk})" in page
    assert 'id="close-account-form"' not in page
    _client, response = close_by_page(alice)
    assert response.status_code == 409
    alice.refresh_from_db()
    assert alice.is_active and alice.closed_at is None


@pytest.mark.django_db
def test_an_open_table_the_player_hosts_is_called_off(alice: Any, bob: Any) -> None:
    from tables import services as tables

    table = tables.table_create(host=alice, mode="citizen", players=2)
    tables.seat_take(table_id=table.pk, user=bob, number=1)
    closing = services.account_close(user=alice, by=alice)
    assert Table.objects.get(pk=table.pk).status == Table.Status.ABORTED
    assert closing.withdrawn["tables"] == [table.pk]


@pytest.mark.django_db
def test_the_e_mail_waits_thirty_days_to_sign_up_again(
    alice: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    closed_at = timezone.now()
    services.account_close(user=alice, by=alice, now=closed_at)
    row = ClosedEmail.objects.get()
    assert row.digest == email_digest(" Alice@Example.COM ")  # the hash, not the address
    assert "alice" not in row.digest

    def sign_up(email: str) -> Any:
        return Client().post(
            "/accounts/signup/",
            {
                "email": email,
                "display_name": "Alice Again",
                "date_of_birth": "1990-05-17",
                "password1": "another-horse-battery-7",
                "password2": "another-horse-battery-7",
                "confirm_adult": "on",
            },
        )

    later = closed_at + dt.timedelta(days=29, hours=23)
    monkeypatch.setattr(timezone, "now", lambda: later)
    refused = sign_up("ALICE@example.com")
    assert refused.status_code == 200
    assert "was closed less than 30 days ago" in refused.content.decode()
    assert not User.objects.filter(display_name="Alice Again").exists()
    assert closed_emails_forget() == 0  # still within its time

    after = closed_at + dt.timedelta(days=30, minutes=1)
    monkeypatch.setattr(timezone, "now", lambda: after)
    welcomed = sign_up("alice@example.com")
    assert welcomed.status_code == 302
    assert User.objects.get(email="alice@example.com").display_name == "Alice Again"
    assert closed_emails_forget() == 1 and not ClosedEmail.objects.exists()


@pytest.mark.django_db
def test_staff_close_an_account_from_admin_with_who_and_when(world: World, warden: Any) -> None:
    alice = world.alice
    admin = logged_in(warden)
    changelist = "/admin/accounts/user/"
    asked = admin.post(changelist, {"action": "close_accounts", "_selected_action": [alice.pk]})
    assert asked.status_code == 200
    assert "cannot be undone" in asked.content.decode()
    without_reason = admin.post(
        changelist,
        {"action": "close_accounts", "_selected_action": [alice.pk], "apply": "1", "reason": ""},
    )
    assert without_reason.status_code == 400
    assert User.objects.get(pk=alice.pk).is_active
    started = timezone.now()
    done = admin.post(
        changelist,
        {
            "action": "close_accounts",
            "_selected_action": [alice.pk],
            "apply": "1",
            "reason": "She asked by e-mail, ticket 42.",
        },
        follow=True,
    )
    assert f"Account {alice.pk} closed." in done.content.decode()
    alice = User.objects.get(pk=alice.pk)
    assert alice.closed_at is not None and not alice.is_active
    action = StaffAction.objects.get(kind=StaffAction.Kind.ACCOUNT_CLOSE)
    assert action.by == warden and action.player == alice and action.table is None
    assert action.reason == "She asked by e-mail, ticket 42."
    assert action.created_at >= started
    assert action.detail["withdrawn"]["tournaments"] == [world.tournament.pk]
    # It shows in House office > Staff actions.
    listed = admin.get("/admin/staff/staffaction/").content.decode()
    assert "Closed an account" in listed and "ticket 42" in listed
    assert ledger.reconcile_run().mismatch_count == 0


@pytest.mark.django_db
def test_staff_cannot_close_an_account_in_a_game(alice: Any, bob: Any, warden: Any) -> None:
    from tests.history.helpers import start_table

    start_table([alice, bob], "citizen")
    with pytest.raises(services.CloseRefused) as refused:
        services.account_close(user=alice, by=warden, reason="asked")
    assert "Void the game first" in refused.value.message
    assert not StaffAction.objects.exists()


@pytest.mark.django_db
def test_a_closed_account_cannot_be_closed_twice_nor_a_staff_account(
    alice: Any, warden: Any
) -> None:
    services.account_close(user=alice, by=alice)
    with pytest.raises(services.CloseRefused):
        services.account_close(user=User.objects.get(pk=alice.pk), by=warden, reason="again")
    with pytest.raises(services.CloseRefused):
        services.account_close(user=warden, by=warden)


def test_the_e_mail_hashes_are_forgotten_every_day() -> None:
    from django.conf import settings

    from accounts import tasks

    job = settings.CELERY_BEAT_SCHEDULE["closed-emails-daily"]
    assert job["task"] == tasks.closed_emails_forget.name
