"""A game left to house players alone does not stay "playing" for ever: once the person's grace
has run out the house claims it and the table closes (issue 15)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from django.utils import timezone

from house import services as house
from tables import presence, services
from tables.models import Abandonment, Game, Presence, Seat, Table

pytestmark = pytest.mark.django_db


def live(table: Table) -> Game:
    return Game.objects.filter(table=table).order_by("-number").first()  # type: ignore[return-value]


def leaves(table: Table, user: Any, channel: str) -> None:
    """`user` had the table open in one socket and closed it."""
    presence.presence_join(table_id=table.pk, user=user, channel_name=channel)
    presence.presence_leave(channel_name=channel, on_purpose=True)


def after_grace() -> Any:
    return timezone.now() + timedelta(seconds=3600)


def test_one_on_one_against_the_house_is_claimed_after_the_grace(alice: Any) -> None:
    table = house.practice_start(user=alice, mode="citizen", level="rookie")
    leaves(table, alice, "alice-1")
    held = Seat.objects.get(table=table, number=0)
    assert held.grace_until is not None
    # Within the grace nothing happens: she may come back.
    assert presence.grace_expire(table_id=table.pk, seat=0, game_id=None) == "not_due"
    assert live(table).status == Game.Status.PLAYING
    assert presence.grace_sweep() == 0
    # After it, the house claims the game and the table closes.
    assert presence.grace_sweep(now=after_grace()) == 1
    game = live(table)
    assert game.status == Game.Status.FINISHED
    assert game.result["reason"] == "abandoned" and game.result["forfeit"] == 0
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    assert not Seat.objects.filter(table=table, away_since__isnull=False).exists()
    # Leaving a game to the house costs her no waiting time.
    assert not Abandonment.objects.filter(user=alice).exists()
    # Once over, nothing more to do.
    assert presence.grace_sweep(now=after_grace()) == 0


def test_its_grace_timer_is_queued(alice: Any, django_capture_on_commit_callbacks: Any) -> None:
    table = house.practice_start(user=alice, mode="citizen", level="rookie")
    presence.presence_join(table_id=table.pk, user=alice, channel_name="alice-1")
    with (
        mock.patch("tables.tasks.grace_expire.apply_async") as queued,
        django_capture_on_commit_callbacks(execute=True),
    ):
        presence.presence_leave(channel_name="alice-1", on_purpose=False)
    held = Seat.objects.get(table=table, number=0)
    queued.assert_called_once_with((table.pk, 0, live(table).pk), eta=held.grace_until)
    # When the timer fires after the grace, the house claims it.
    assert (
        presence.grace_expire(table_id=table.pk, seat=0, game_id=live(table).pk, now=after_grace())
        == "claimed_by_house"
    )
    assert live(table).status == Game.Status.FINISHED


def test_cut_throat_against_the_house_waits_for_nobody(alice: Any) -> None:
    table = house.practice_start(user=alice, mode="citizen", level="regular", players=3)
    assert table.on_leave == Table.OnLeave.WAIT
    leaves(table, alice, "alice-1")
    assert presence.grace_sweep(now=after_grace()) == 1
    assert live(table).status == Game.Status.FINISHED


def test_partners_wait_while_a_person_is_still_there(alice: Any, bob: Any) -> None:
    table = services.table_create(host=alice, mode="citizen", players=4, partners=True)
    services.seat_take(table_id=table.pk, user=bob, number=1)
    for number in (2, 3):
        house.house_seat_add(table_id=table.pk, host=alice, number=number, level="rookie")
    for person in (alice, bob):
        services.seat_ready(table_id=table.pk, user=person, ready=True)
    assert live(table).status == Game.Status.PLAYING
    presence.presence_join(table_id=table.pk, user=bob, channel_name="bob-1")
    leaves(table, alice, "alice-1")
    # Bob is still there: the table's rule (wait) stands. (Past her grace, before his socket
    # would count as gone.)
    soon = Seat.objects.get(table=table, number=0).grace_until + timedelta(seconds=5)
    assert presence.grace_sweep(now=soon) == 0
    assert live(table).status == Game.Status.PLAYING
    # Bob leaves too: once his grace has run out as well, the house claims it from Alice, who
    # left first.
    presence.presence_leave(channel_name="bob-1", on_purpose=True)
    assert presence.grace_expire(table_id=table.pk, seat=1, game_id=None) == "not_due"
    assert presence.grace_sweep(now=after_grace()) == 1
    game = live(table)
    assert game.status == Game.Status.FINISHED and game.result["forfeit"] == 0


def test_people_alone_keep_their_rules(alice: Any, bob: Any) -> None:
    """One on one between two people: the other player claims (or not); the house never does."""
    table = services.table_create(host=alice, mode="citizen", players=2)
    services.seat_take(table_id=table.pk, user=bob, number=1)
    for person in (alice, bob):
        services.seat_ready(table_id=table.pk, user=person, ready=True)
    presence.presence_join(table_id=table.pk, user=bob, channel_name="bob-1")
    leaves(table, alice, "alice-1")
    # Bob's page is still open all that time (its pings keep his socket fresh).
    Presence.objects.filter(channel_name="bob-1").update(seen_at=after_grace())
    assert presence.grace_sweep(now=after_grace()) == 0
    assert (
        presence.grace_expire(table_id=table.pk, seat=0, game_id=None, now=after_grace())
        == "claimable"
    )
    assert live(table).status == Game.Status.PLAYING
