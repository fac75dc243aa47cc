"""Open tables nobody is at leave the lobby after 15 minutes (tables/idle.py), others stay."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tables import idle, services
from tables.models import Game, Presence, Table, TableEvent

pytestmark = pytest.mark.django_db
LATER = idle.IDLE_CLOSE_AFTER + dt.timedelta(minutes=1)


def status(table: Table) -> str:
    table.refresh_from_db()
    return table.status


def test_a_table_whose_host_left_is_closed_after_a_while(client: Client, alice: Any) -> None:
    table = services.table_create(host=alice, mode="citizen", players=2)
    seq = Table.objects.get(pk=table.pk).seq
    soon = timezone.now() + idle.IDLE_CLOSE_AFTER - dt.timedelta(minutes=1)
    assert idle.idle_tables_close(now=soon) == 0 and status(table) == Table.Status.OPEN
    assert idle.idle_tables_close(now=timezone.now() + LATER) == 1
    assert status(table) == Table.Status.ABORTED
    assert Game.objects.get(table=table).status == Game.Status.ABORTED
    closed = TableEvent.objects.get(table=table, seq=seq + 1)
    assert closed.public == [{"type": "table_closed", "reason": "idle"}]
    client.force_login(alice)
    assert f'data-table="{table.pk}"' not in client.get(reverse("tables:lobby")).content.decode()
    assert idle.idle_tables_close(now=timezone.now() + LATER) == 0  # once


def test_someone_online_there_keeps_it_open(alice: Any, bob: Any) -> None:
    table = services.table_create(host=alice, mode="citizen", players=2)
    later = timezone.now() + LATER
    Presence.objects.create(table=table, user=bob, channel_name="watcher", seen_at=later)
    assert idle.idle_tables_close(now=later) == 0
    assert status(table) == Table.Status.OPEN


def test_something_happening_there_keeps_it_open(alice: Any, bob: Any) -> None:
    table = services.table_create(host=alice, mode="citizen", players=2)
    later = timezone.now() + LATER
    services.seat_take(table_id=table.pk, user=bob, number=1)
    last = Table.objects.get(pk=table.pk).seq
    TableEvent.objects.filter(table=table, seq=last).update(
        created_at=later - dt.timedelta(minutes=5)  # bob sat down 5 minutes before
    )
    assert idle.idle_tables_close(now=later) == 0
    assert status(table) == Table.Status.OPEN
    # a player who left 20 minutes ago (a stale row the sweep missed) does not keep it open
    Presence.objects.create(
        table=table, user=bob, channel_name="gone", seen_at=later - dt.timedelta(minutes=20)
    )
    assert idle.idle_tables_close(now=later + dt.timedelta(minutes=11)) == 1


def test_games_in_play_and_tournament_tables_are_left_alone(
    alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    playing = services.table_create(host=alice, mode="citizen", players=2)
    services.seat_take(table_id=playing.pk, user=bob, number=1)
    for user in (alice, bob):
        services.seat_ready(table_id=playing.pk, user=user, ready=True)
    match_table = services.table_create(host=alice, mode="fives", private=True)

    def tournament_guard(table_id: int, user_id: int, number: int | None, change: str) -> Any:
        return "a tournament's table" if table_id == match_table.pk else None

    monkeypatch.setattr(services, "SEAT_GUARDS", [tournament_guard])
    assert idle.idle_tables_close(now=timezone.now() + LATER) == 0
    assert status(playing) == Table.Status.PLAYING
    assert status(match_table) == Table.Status.OPEN


def test_beat_runs_it_every_minute(alice: Any) -> None:
    from tables.tasks import idle_tables_close

    entry = settings.CELERY_BEAT_SCHEDULE["idle-tables-close"]
    assert entry["task"] == "tables.tasks.idle_tables_close" and entry["schedule"] == 60.0
    table = services.table_create(host=alice, mode="citizen", players=2)
    Table.objects.filter(pk=table.pk).update(created_at=timezone.now() - LATER)
    TableEvent.objects.filter(table=table).update(created_at=timezone.now() - LATER)
    assert idle_tables_close() == 1
    assert status(table) == Table.Status.ABORTED
