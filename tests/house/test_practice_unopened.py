"""A practice game whose player never comes to the table is called off by a beat sweep after
PRACTICE_UNOPENED_MINUTES; one they played in, or are at, is left alone."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone

from house import services as house
from tables import services
from tables.lobby import player_tables
from tables.models import Game, Presence, Table

pytestmark = pytest.mark.django_db


def started_ago(table: Table, minutes: int) -> None:
    Table.objects.filter(pk=table.pk).update(
        created_at=timezone.now() - dt.timedelta(minutes=minutes)
    )


def test_a_practice_game_nobody_came_to_is_called_off(
    alice: Any, bob: Any, settings: Any, eager: None
) -> None:
    settings.PRACTICE_UNOPENED_MINUTES = 30
    never = house.practice_start(user=alice, mode="fives", level="rookie", players=2)
    fresh = house.practice_start(user=bob, mode="fives", level="rookie", players=2)
    started_ago(never, 31)
    started_ago(fresh, 10)
    assert house.practice_unopened_sweep() == 1
    never.refresh_from_db()
    assert never.status == Table.Status.ABORTED
    assert Game.objects.get(table=never).status == Game.Status.ABORTED
    assert player_tables(alice) == []  # no longer among her games in progress
    fresh.refresh_from_db()
    assert fresh.status == Table.Status.PLAYING
    assert house.practice_unopened_sweep() == 0  # nothing twice


def test_a_practice_game_being_played_or_watched_is_left_alone(
    alice: Any, bob: Any, make_user: Any, settings: Any, eager: None
) -> None:
    settings.PRACTICE_UNOPENED_MINUTES = 30
    at_table = house.practice_start(user=alice, mode="fives", level="rookie", players=2)
    Presence.objects.create(
        table=at_table, user=alice, channel_name="test-channel", seen_at=timezone.now()
    )
    people = services.table_create(host=bob, mode="fives", private=True)  # not practice
    carol = make_user("Carol")
    services.seat_take(table_id=people.pk, user=carol, number=1)
    for user in (bob, carol):
        services.seat_ready(table_id=people.pk, user=user, ready=True)
    for table in (at_table, people):
        started_ago(table, 60)
    assert house.practice_unopened_sweep() == 0
