"""Organizer and player services: every refusal is explained and changes nothing."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import AgeStatus
from accounts.services import age_status_set
from tables import services as tables
from tables.models import Table
from tests.tournaments.conftest import (
    event_settings,
    live_matches,
    make_event,
    quick_user,
    register_and_check_in,
    start,
)
from tournaments import services
from tournaments.models import Entry, Match, Tournament
from tournaments.services import TournamentError

pytestmark = pytest.mark.django_db


def refused(field: str, organizer: Any, **overrides: Any) -> str:
    """Creating an event with `overrides` is refused on `field`; nothing is created."""
    before = Tournament.objects.count()
    with pytest.raises(TournamentError) as caught:
        services.tournament_create(organizer=organizer, **event_settings(**overrides))
    assert Tournament.objects.count() == before
    assert field in caught.value.errors, caught.value.errors
    return caught.value.errors[field][0]


# --- bad input for an event ----------------------------------------------------------------


def test_an_event_that_starts_in_the_past_is_refused(organizer: Any) -> None:
    now = timezone.now()
    message = refused(
        "starts_at",
        organizer,
        registration_opens=now - dt.timedelta(hours=3),
        registration_closes=now - dt.timedelta(hours=2),
        starts_at=now - dt.timedelta(hours=1),
    )
    assert message == "The start time is in the past: choose a time to come."


def test_registration_closing_before_it_opens_is_refused(organizer: Any) -> None:
    now = timezone.now()
    message = refused(
        "registration_closes",
        organizer,
        registration_opens=now + dt.timedelta(minutes=10),
        registration_closes=now + dt.timedelta(minutes=5),
    )
    assert message == "Registration must close after it opens."
    message = refused(
        "registration_closes",
        organizer,
        registration_closes=now + dt.timedelta(minutes=30),
        starts_at=now + dt.timedelta(minutes=20),
    )
    assert message == "Registration must close by the start time."


def test_a_fee_below_zero_is_refused(organizer: Any) -> None:
    message = refused("fee_dollars", organizer, fee_kind="dollars", fee_dollars=-5)
    assert message == "An entry fee can't be below zero."
    assert refused("fee_dollars", organizer, fee_kind="free", fee_dollars=-1) == message
    assert "whole number" in refused("fee_dollars", organizer, fee_kind="dollars", fee_dollars=2.5)


@pytest.mark.parametrize(
    ("split", "words"),
    [
        ([50, 30], "adds up to 80%; it must add up to 100%"),
        ([60, 30, 20], "adds up to 110%"),
        ([100, 0], "more than 0%"),
        ([30, 70], "never gets less"),
        ([], "whole percentages"),
        (None, "whole percentages"),
        ([50.5, 49.5], "whole percentages"),
    ],
)
def test_a_prize_split_not_summing_to_100_is_refused(
    organizer: Any, split: Any, words: str
) -> None:
    assert words in refused("prize_split", organizer, prize_split=split)


def test_other_bad_settings_are_explained(organizer: Any) -> None:
    assert "one on one or Partners" in refused(
        "table_options", organizer, mode="citizen", table_options={"players": 3}
    )
    assert "Fives is played by two players" in refused(
        "table_options", organizer, table_options={"players": 4}
    )
    assert "1, 3 or 5" in refused("best_of", organizer, best_of=2)
    assert "2 to 64" in refused("max_entrants", organizer, max_entrants=65)
    assert "2 to 64" in refused("max_entrants", organizer, max_entrants=1)
    assert "1 to 15 rounds" in refused("swiss_rounds", organizer, format="swiss", swiss_rounds=0)
    assert "Swiss" in refused("format", organizer, format="round_robin")
    assert "name" in refused("name", organizer, name="  ")
    assert "official rules" in refused("rules_text", organizer, rules_text="")
    assert "no-show" in refused("noshow_minutes", organizer, noshow_minutes=0)
    assert "check-in" in refused("checkin_minutes", organizer, checkin_minutes=0)
    assert "workout" in refused(
        "fee_kind", organizer, mode="citizen_gym", table_options={"players": 2}, fee_kind="dollars"
    )
    assert "Inmate events only" in refused("fee_kind", organizer, fee_kind="canteen")
    assert "More places" in refused(
        "prize_split", organizer, prize_split=[50, 30, 20], max_entrants=2
    )


def test_every_refused_value_is_reported_at_once(organizer: Any) -> None:
    with pytest.raises(TournamentError) as caught:
        services.tournament_create(
            organizer=organizer,
            **event_settings(name="", best_of=4, prize_split=[90], max_entrants=100),
        )
    assert set(caught.value.errors) == {"name", "best_of", "prize_split", "max_entrants"}


def test_only_organizers_create_and_manage(organizer: Any, players: list[Any]) -> None:
    with pytest.raises(TournamentError, match="Only tournament organizers"):
        services.tournament_create(organizer=players[0], **event_settings())
    tournament = make_event(organizer, publish=False)
    with pytest.raises(TournamentError, match="organizer"):
        services.tournament_publish(tournament_id=tournament.pk, by=players[0])
    with pytest.raises(TournamentError, match="organizer"):
        services.tournament_cancel(tournament_id=tournament.pk, by=players[0], reason="no")
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.DRAFT


def test_edits_only_before_registration_opens(organizer: Any, players: list[Any]) -> None:
    now = timezone.now()
    tournament = make_event(organizer, publish=False)
    data = event_settings(name="Renamed")
    tournament = services.tournament_update(tournament_id=tournament.pk, by=organizer, **data)
    assert tournament.name == "Renamed"
    services.tournament_publish(tournament_id=tournament.pk, by=organizer)
    with pytest.raises(TournamentError, match="before registration opens"):
        services.tournament_update(tournament_id=tournament.pk, by=organizer, **event_settings())
    later = make_event(
        organizer,
        registration_opens=now + dt.timedelta(minutes=5),
        registration_closes=now + dt.timedelta(minutes=10),
    )
    later = services.tournament_update(
        tournament_id=later.pk,
        by=organizer,
        **event_settings(
            name="Later still",
            registration_opens=now + dt.timedelta(minutes=5),
            registration_closes=now + dt.timedelta(minutes=10),
        ),
    )
    assert later.name == "Later still"


def test_a_stale_draft_cannot_be_published(organizer: Any) -> None:
    tournament = make_event(organizer, publish=False)
    with pytest.raises(TournamentError) as caught:
        services.tournament_publish(
            tournament_id=tournament.pk, by=organizer, now=tournament.starts_at
        )
    assert "starts_at" in caught.value.errors
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.DRAFT


def test_fees_wait_for_the_ledger(organizer: Any) -> None:
    from tournaments import money

    if money.unavailable() is None:
        pytest.skip("the ledger takes tournament fees: tests/tournaments/test_money.py")
    message = refused("fee_kind", organizer, fee_kind="dollars", fee_dollars=10)
    assert "books open" in message


# --- registering -------------------------------------------------------------------------------


def test_registering_twice_is_refused(organizer: Any, players: list[Any]) -> None:
    tournament = make_event(organizer)
    services.entry_register(tournament_id=tournament.pk, user=players[0])
    with pytest.raises(TournamentError, match="already registered"):
        services.entry_register(tournament_id=tournament.pk, user=players[0])
    assert tournament.entries.count() == 1


def test_registering_for_a_full_event_is_refused(organizer: Any, players: list[Any]) -> None:
    tournament = make_event(organizer, max_entrants=2, prize_split=[100])
    for user in players[:2]:
        services.entry_register(tournament_id=tournament.pk, user=user)
    with pytest.raises(TournamentError, match="full"):
        services.entry_register(tournament_id=tournament.pk, user=players[2])
    assert tournament.entries.count() == 2
    # A place freed by a withdrawal can be taken.
    services.entry_withdraw(tournament_id=tournament.pk, user=players[0])
    services.entry_register(tournament_id=tournament.pk, user=players[2])


def test_registering_for_a_started_event_is_refused(organizer: Any, players: list[Any]) -> None:
    tournament = make_event(organizer)
    register_and_check_in(tournament, players[:2])
    start(tournament)
    with pytest.raises(TournamentError, match="already started"):
        services.entry_register(tournament_id=tournament.pk, user=players[2])
    assert not Entry.objects.filter(player=players[2]).exists()


def test_registration_window(organizer: Any, players: list[Any]) -> None:
    now = timezone.now()
    tournament = make_event(
        organizer,
        registration_opens=now + dt.timedelta(minutes=5),
        registration_closes=now + dt.timedelta(minutes=10),
    )
    with pytest.raises(TournamentError, match="not open yet"):
        services.entry_register(tournament_id=tournament.pk, user=players[0])
    with pytest.raises(TournamentError, match="closed"):
        services.entry_register(
            tournament_id=tournament.pk, user=players[0], now=now + dt.timedelta(minutes=11)
        )
    draft = make_event(organizer, publish=False)
    with pytest.raises(TournamentError, match="no such event"):
        services.entry_register(tournament_id=draft.pk, user=players[0])
    assert not Entry.objects.exists()


def test_only_adults_with_active_accounts_register(organizer: Any, players: list[Any]) -> None:
    tournament = make_event(organizer)
    age_status_set(user=players[0], status=AgeStatus.SUSPENDED, reason="test", changed_by=None)
    with pytest.raises(TournamentError, match="suspended"):
        services.entry_register(tournament_id=tournament.pk, user=players[0])
    young = quick_user("Kid")
    young.date_of_birth = timezone.now().date().replace(year=timezone.now().year - 17)
    young.save()
    with pytest.raises(TournamentError, match="adults only"):
        services.entry_register(tournament_id=tournament.pk, user=young)
    assert not Entry.objects.exists()


def test_partners_register_together(organizer: Any, players: list[Any]) -> None:
    tournament = make_event(
        organizer, mode="citizen", table_options={"players": 4, "partners": True}
    )
    ana, ben, cruz = players[:3]
    with pytest.raises(TournamentError, match="name the partner"):
        services.entry_register(tournament_id=tournament.pk, user=ana)
    with pytest.raises(TournamentError, match="someone else"):
        services.entry_register(tournament_id=tournament.pk, user=ana, partner=ana)
    entry = services.entry_register(tournament_id=tournament.pk, user=ana, partner=ben)
    assert not entry.partner_confirmed
    # Ben is spoken for, even before he accepts; Cruz cannot answer Ben's invitation.
    with pytest.raises(TournamentError, match="Ben is already registered"):
        services.entry_register(tournament_id=tournament.pk, user=cruz, partner=ben)
    with pytest.raises(TournamentError, match="already registered"):
        services.entry_register(tournament_id=tournament.pk, user=ben, partner=cruz)
    with pytest.raises(TournamentError, match="no such invitation"):
        services.entry_partner_answer(entry_id=entry.pk, user=cruz, accept=True)
    # Checking in waits for the partner.
    checkin = tournament.starts_at - dt.timedelta(minutes=1)
    with pytest.raises(TournamentError, match="not accepted"):
        services.entry_check_in(tournament_id=tournament.pk, user=ana, now=checkin)
    services.entry_partner_answer(entry_id=entry.pk, user=ben, accept=True)
    entry.refresh_from_db()
    assert entry.partner_confirmed
    services.entry_check_in(tournament_id=tournament.pk, user=ana, now=checkin)
    entry.refresh_from_db()
    assert not entry.checked_in  # both partners check in
    services.entry_check_in(tournament_id=tournament.pk, user=ben, now=checkin)
    entry.refresh_from_db()
    assert entry.checked_in


def test_a_declined_invitation_withdraws_the_pair(organizer: Any, players: list[Any]) -> None:
    tournament = make_event(
        organizer, mode="citizen", table_options={"players": 4, "partners": True}
    )
    entry = services.entry_register(
        tournament_id=tournament.pk, user=players[0], partner=players[1]
    )
    services.entry_partner_answer(entry_id=entry.pk, user=players[1], accept=False)
    entry.refresh_from_db()
    assert entry.withdrawal == Entry.Withdrawal.DECLINED
    # Both may register again (with someone else).
    services.entry_register(tournament_id=tournament.pk, user=players[1], partner=players[2])


def test_a_one_on_one_event_takes_no_partner(organizer: Any, players: list[Any]) -> None:
    tournament = make_event(organizer)
    with pytest.raises(TournamentError, match="one on one"):
        services.entry_register(tournament_id=tournament.pk, user=players[0], partner=players[1])


def test_check_in_window(organizer: Any, players: list[Any]) -> None:
    tournament = make_event(organizer)
    services.entry_register(tournament_id=tournament.pk, user=players[0])
    early = tournament.starts_at - dt.timedelta(minutes=16)
    with pytest.raises(TournamentError, match="15 minutes before"):
        services.entry_check_in(tournament_id=tournament.pk, user=players[0], now=early)
    with pytest.raises(TournamentError, match="not registered"):
        services.entry_check_in(
            tournament_id=tournament.pk, user=players[1], now=tournament.starts_at
        )
    with pytest.raises(TournamentError, match="started"):
        services.entry_check_in(
            tournament_id=tournament.pk, user=players[0], now=tournament.starts_at
        )
    entry = services.entry_check_in(
        tournament_id=tournament.pk,
        user=players[0],
        now=tournament.starts_at - dt.timedelta(minutes=15),
    )
    assert entry.checked_in


# --- during the event --------------------------------------------------------------------------


def test_a_suspended_entrant_is_withdrawn_by_the_sweep(organizer: Any, players: list[Any]) -> None:
    tournament = make_event(organizer)
    register_and_check_in(tournament, players[:3])
    age_status_set(user=players[1], status=AgeStatus.SUSPENDED, reason="check", changed_by=None)
    services.tournament_sweep(now=tournament.starts_at - dt.timedelta(minutes=5))
    entry = Entry.objects.get(player=players[1])
    assert entry.withdrawal == Entry.Withdrawal.SUSPENDED and entry.withdrawn_at is not None
    tournament = start(tournament)
    assert tournament.entries.filter(seed__isnull=False).count() == 2


def test_a_suspended_player_forfeits_their_live_match(organizer: Any, players: list[Any]) -> None:
    tournament = make_event(organizer)
    register_and_check_in(tournament, players[:2])
    tournament = start(tournament)
    (match,) = live_matches(tournament)
    age_status_set(
        user=match.entry_a.player, status=AgeStatus.SUSPENDED, reason="check", changed_by=None
    )
    services.tournament_sweep(now=tournament.starts_at)
    match.refresh_from_db()
    assert (match.status, match.winner_id, match.outcome) == (
        Match.Status.DONE,
        match.entry_b_id,
        Match.Outcome.OUT,
    )
    assert Table.objects.get(pk=match.table_id).status == Table.Status.ABORTED
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.placings == [[match.entry_b_id]]


def test_withdrawing_during_the_event_forfeits(organizer: Any, players: list[Any]) -> None:
    tournament = make_event(organizer)
    register_and_check_in(tournament, players[:4])
    tournament = start(tournament)
    match = live_matches(tournament)[0]
    services.entry_withdraw(tournament_id=tournament.pk, user=match.entry_b.player)
    match.refresh_from_db()
    assert match.winner_id == match.entry_a_id and match.outcome == Match.Outcome.OUT


def test_disqualify_with_a_reason(organizer: Any, players: list[Any]) -> None:
    tournament = make_event(organizer)
    register_and_check_in(tournament, players[:4])
    tournament = start(tournament)
    match = live_matches(tournament)[0]
    with pytest.raises(TournamentError, match="Say why"):
        services.entry_disqualify(entry_id=match.entry_a_id, by=organizer, reason="  ")
    with pytest.raises(TournamentError, match="organizer"):
        services.entry_disqualify(entry_id=match.entry_a_id, by=players[5], reason="x")
    match.refresh_from_db()
    assert match.status == Match.Status.WAITING
    services.entry_disqualify(entry_id=match.entry_a_id, by=organizer, reason="Rude at the table")
    match.refresh_from_db()
    entry = Entry.objects.get(pk=match.entry_a_id)
    assert entry.disqualified_reason == "Rude at the table" and entry.disqualified_by == organizer
    assert match.winner_id == match.entry_b_id
    with pytest.raises(TournamentError, match="no longer in the event"):
        services.entry_disqualify(entry_id=entry.pk, by=organizer, reason="again")


def test_settle_a_disputed_match_by_hand(organizer: Any, players: list[Any]) -> None:
    tournament = make_event(organizer)
    register_and_check_in(tournament, players[:4])
    tournament = start(tournament)
    first, second = live_matches(tournament)
    # A result for the wrong players is refused, and nothing changes.
    for wrong in (second.entry_a_id, 999_999, "1", None):
        with pytest.raises(TournamentError, match="one of the two entrants"):
            services.match_settle(
                match_id=first.pk, by=organizer, winner_entry_id=wrong, reason="dispute"
            )
    with pytest.raises(TournamentError, match="Say why"):
        services.match_settle(
            match_id=first.pk, by=organizer, winner_entry_id=first.entry_a_id, reason=""
        )
    with pytest.raises(TournamentError, match="organizer"):
        services.match_settle(
            match_id=first.pk, by=players[0], winner_entry_id=first.entry_a_id, reason="x"
        )
    first.refresh_from_db()
    assert first.status == Match.Status.WAITING and first.settled_by is None
    services.match_settle(
        match_id=first.pk,
        by=organizer,
        winner_entry_id=first.entry_b_id,
        reason="A's connection died; both agreed",
    )
    first.refresh_from_db()
    assert (first.status, first.winner_id, first.outcome) == (
        Match.Status.DONE,
        first.entry_b_id,
        Match.Outcome.SETTLED,
    )
    assert first.settled_by == organizer and "both agreed" in first.settled_reason
    assert Table.objects.get(pk=first.table_id).status == Table.Status.ABORTED
    # Changed again while the round is still on: the final follows the new result.
    services.match_settle(
        match_id=first.pk, by=organizer, winner_entry_id=first.entry_a_id, reason="Replay showed A"
    )
    final = tournament.matches.get(key="W2-1")
    assert first.entry_a_id in (final.entry_a_id, final.entry_b_id)
    assert first.entry_b_id not in (final.entry_a_id, final.entry_b_id)


def test_cancel_an_event(organizer: Any, players: list[Any]) -> None:
    tournament = make_event(organizer)
    register_and_check_in(tournament, players[:4])
    tournament = start(tournament)
    with pytest.raises(TournamentError, match="Say why"):
        services.tournament_cancel(tournament_id=tournament.pk, by=organizer, reason="")
    services.tournament_cancel(tournament_id=tournament.pk, by=organizer, reason="Storm")
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED and tournament.cancel_reason == "Storm"
    assert not live_matches(tournament)
    assert Table.objects.filter(status=Table.Status.ABORTED).count() == 2
    with pytest.raises(TournamentError, match="already over"):
        services.tournament_cancel(tournament_id=tournament.pk, by=organizer, reason="again")
    assert services.tournament_sweep(now=tournament.starts_at) == 0


# --- the match table's seats belong to the tournament -----------------------------------------


def test_a_match_table_keeps_its_seats(organizer: Any, players: list[Any]) -> None:
    tournament = make_event(organizer)
    register_and_check_in(tournament, players[:2])
    tournament = start(tournament)
    (match,) = live_matches(tournament)
    host, guest = match.entry_a.player, match.entry_b.player
    with pytest.raises(tables.TableError, match="tournament table"):
        tables.seat_remove(table_id=match.table_id, host=host, number=1)
    with pytest.raises(tables.TableError, match="tournament table"):
        tables.seat_leave(table_id=match.table_id, user=guest)
    stranger = players[5]
    with pytest.raises(tables.TableError):
        tables.seat_take(table_id=match.table_id, user=stranger, number=1)
    seats = dict(Table.objects.get(pk=match.table_id).seats.values_list("number", "user_id"))
    assert seats == {0: host.pk, 1: guest.pk}
    # An ordinary table is not affected.
    other = tables.table_create(host=players[3], mode="fives")
    tables.seat_take(table_id=other.pk, user=players[4], number=1)
    tables.seat_leave(table_id=other.pk, user=players[4])


def test_a_player_cannot_abort_a_match_game(organizer: Any, players: list[Any]) -> None:
    from tests.tournaments.conftest import press_ready

    tournament = make_event(organizer)
    register_and_check_in(tournament, players[:2])
    tournament = start(tournament)
    (match,) = live_matches(tournament)
    press_ready(match)
    with pytest.raises(tables.TableError, match="tournament table"):
        tables.game_abort(table_id=match.table_id, user=match.entry_a.player)
