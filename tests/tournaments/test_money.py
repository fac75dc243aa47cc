"""Entry fees and prizes through the ledger (tournaments/money.py).

These run once the ledger can hold tournament money (`money.unavailable()` says what it still
lacks); until then each is skipped with that reason, and test_services.py checks that events
with a fee are refused with a clear message.
"""

from __future__ import annotations

import datetime as dt
import importlib
import random
from typing import Any

import pytest

from tests.tournaments.conftest import (
    event_settings,
    live_matches,
    play_round,
    quick_user,
    register_and_check_in,
    start,
)
from tournaments import money, services
from tournaments.models import Entry, Tournament
from tournaments.services import TournamentError

WHY = money.unavailable()
pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(WHY is not None, reason=f"tournament money needs the ledger: {WHY}"),
]


def ledger() -> tuple[Any, Any]:
    return importlib.import_module("ledger.services"), importlib.import_module("ledger.models")


def give(user: Any, amount: int) -> None:
    """Dollars for a test player, the way staff add them: an adjustment against the house."""
    if not amount:
        return
    services_, _models = ledger()
    services_.adjustment_make(
        staff=staff(),
        user=user,
        currency="dollars",
        amount=amount,
        reason="Test funds for a tournament test.",
    )


def staff() -> Any:
    from accounts.models import User

    found = User.objects.filter(email="till@example.com").first()
    if found is None:
        found = quick_user("Till")
        User.objects.filter(pk=found.pk).update(is_staff=True)
        found.refresh_from_db()
    return found


def dollars(user: Any) -> int:
    services_, _models = ledger()
    return int(services_.player_account(user.pk, services_.DOLLARS).balance)


def pot() -> int:
    services_, models = ledger()
    return int(services_.system_account(models.Kind.TOURNAMENT, services_.DOLLARS).balance)


def paid_event(organizer: Any, **overrides: Any) -> Tournament:
    data = event_settings(fee_kind="dollars", fee_dollars=10, **overrides)
    tournament = services.tournament_create(organizer=organizer, **data)
    return services.tournament_publish(tournament_id=tournament.pk, by=organizer)


@pytest.fixture
def rich(players: list[Any]) -> list[Any]:
    for user in players:
        give(user, 100 - dollars(user))
    return players


def test_the_fee_is_held_on_registering(organizer: Any, rich: list[Any]) -> None:
    tournament = paid_event(organizer)
    entry = services.entry_register(tournament_id=tournament.pk, user=rich[0])
    assert dollars(rich[0]) == 90 and pot() == 10
    assert money.fee_state(tournament=tournament, entry=entry, user=rich[0]) == "held"
    assert money.pool(tournament=tournament) == {("dollars", None): 10}
    # Held once: the same entry and player never pay twice.
    assert money.fee_hold(tournament=tournament, entry=entry, user=rich[0])
    assert dollars(rich[0]) == 90


def test_registering_without_the_fee_is_refused(organizer: Any, players: list[Any]) -> None:
    tournament = paid_event(organizer)
    poor = players[0]
    give(poor, 5 - dollars(poor))
    with pytest.raises(TournamentError, match="The entry fee is 10 Dollars"):
        services.entry_register(tournament_id=tournament.pk, user=poor)
    assert not Entry.objects.exists() and dollars(poor) == 5


def test_withdrawal_before_the_start_refunds_once(organizer: Any, rich: list[Any]) -> None:
    tournament = paid_event(organizer)
    entry = services.entry_register(tournament_id=tournament.pk, user=rich[0])
    services.entry_withdraw(tournament_id=tournament.pk, user=rich[0])
    assert dollars(rich[0]) == 100 and pot() == 0
    assert money.fee_state(tournament=tournament, entry=entry, user=rich[0]) == "refunded"
    assert money.fee_refund(tournament=tournament, entry=entry, user=rich[0])  # again: same posting
    assert dollars(rich[0]) == 100
    # Registering again is a new entry, with a new fee.
    services.entry_register(tournament_id=tournament.pk, user=rich[0])
    assert dollars(rich[0]) == 90


def test_cancellation_refunds_everyone(organizer: Any, rich: list[Any]) -> None:
    tournament = paid_event(organizer)
    register_and_check_in(tournament, rich[:3])
    assert pot() == 30
    services.tournament_cancel(tournament_id=tournament.pk, by=organizer, reason="Rain")
    assert [dollars(u) for u in rich[:3]] == [100, 100, 100] and pot() == 0


def test_too_few_checked_in_cancels_and_refunds(organizer: Any, rich: list[Any]) -> None:
    tournament = paid_event(organizer)
    register_and_check_in(tournament, rich[:1])
    services.entry_register(tournament_id=tournament.pk, user=rich[1])
    tournament = start(tournament)
    assert tournament.status == Tournament.Status.CANCELLED
    assert dollars(rich[0]) == dollars(rich[1]) == 100 and pot() == 0


def test_prizes_are_paid_once(organizer: Any, rich: list[Any]) -> None:
    rng = random.Random(1)
    tournament = paid_event(organizer, prize_split=[50, 30, 20])
    register_and_check_in(tournament, rich[:4])
    services.entry_register(tournament_id=tournament.pk, user=rich[4])  # no check-in: refunded
    tournament = start(tournament)
    assert dollars(rich[4]) == 100 and pot() == 40
    now = tournament.starts_at
    while tournament.status == Tournament.Status.RUNNING:
        play_round(tournament, rng, now)
        tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    first, second, shared = tournament.placings
    entries = {e.pk: e for e in tournament.entries.all()}
    assert dollars(entries[first[0]].player) == 90 + 20
    assert dollars(entries[second[0]].player) == 90 + 12
    assert [dollars(entries[e].player) for e in shared] == [90 + 4, 90 + 4]
    assert pot() == 0
    assert tournament.prizes[str(first[0])] == {"dollars": 20}
    # The sweep again, and the payment again: paid once.
    services.tournament_sweep(now=now + dt.timedelta(hours=1))
    assert not money.prizes_pay(tournament=tournament, shares={}) and pot() == 0
    with pytest.raises(Exception):  # noqa: B017 - the pool is empty: nothing more can leave it
        money.prizes_pay(tournament=tournament, shares={rich[0].pk: {("dollars", None): 1}})
    assert sum(dollars(u) for u in rich[:5]) == 500
    # No fee can come back once the prizes are paid.
    with pytest.raises(money.MoneyError):
        money.fee_refund(
            tournament=tournament, entry=entries[first[0]], user=entries[first[0]].player
        )


def test_a_withdrawal_after_the_start_keeps_the_fee_in_the_pool(
    organizer: Any, rich: list[Any]
) -> None:
    tournament = paid_event(organizer)
    register_and_check_in(tournament, rich[:2])
    tournament = start(tournament)
    (match,) = live_matches(tournament)
    services.entry_withdraw(tournament_id=tournament.pk, user=match.entry_a.player)
    services.tournament_sweep(now=tournament.starts_at)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert dollars(match.entry_b.player) == 90 + 20
    assert dollars(match.entry_a.player) == 90


def test_partners_each_pay_and_share_the_prize(organizer: Any, rich: list[Any]) -> None:
    tournament = paid_event(
        organizer, mode="citizen", table_options={"players": 4, "partners": True}
    )
    register_and_check_in(tournament, rich[:4], partners=True)
    assert pot() == 40
    tournament = start(tournament)
    (match,) = live_matches(tournament)
    services.match_settle(
        match_id=match.pk, by=organizer, winner_entry_id=match.entry_a_id, reason="test"
    )
    services.tournament_sweep(now=tournament.starts_at)
    winners = (match.entry_a.player, match.entry_a.partner)
    assert [dollars(u) for u in winners] == [90 + 20, 90 + 20]


def test_a_suspended_entrant_is_refunded(organizer: Any, rich: list[Any]) -> None:
    from accounts.models import AgeStatus
    from accounts.services import age_status_set

    tournament = paid_event(organizer)
    services.entry_register(tournament_id=tournament.pk, user=rich[0])
    age_status_set(user=rich[0], status=AgeStatus.SUSPENDED, reason="check", changed_by=None)
    services.tournament_sweep(now=tournament.registration_opens)
    assert dollars(rich[0]) == 100


def test_the_event_page_shows_the_prizes(organizer: Any, rich: list[Any]) -> None:
    from django.test import Client

    tournament = paid_event(organizer, prize_split=[60, 40])
    register_and_check_in(tournament, rich[:3])
    client = Client()
    client.force_login(rich[5])
    html = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "10 Dollars" in html and "60%" in html and "40%" in html
    assert "30 Dollars" in html  # the pool now
    assert "18 Dollars" in html and "12 Dollars" in html  # what each place is worth now
