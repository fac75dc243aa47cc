"""A whole 4-player single-elimination event driven by the real beat and a real Celery worker.

The worker (`celery.contrib.testing.worker.start_worker`, solo pool) and the beat (Celery's own
embedded beat service, with the settings' schedule) run in threads of this process on the real
embedded broker, against the test database (committed: transaction=True). Nobody calls the
sweep: the beat sends `tournaments.tasks.sweep` every few seconds and the worker runs it. The
players are scripted: they register and check in through the pages, press Ready when their table
opens and play legal moves through the table service, as the table page's socket would.
"""

from __future__ import annotations

import datetime as dt
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from accounts.models import User
from engine import GameState
from tables import services as tables
from tables.models import Game, Seat, Table
from tests.conftest import broker_purge
from tests.tournaments.conftest import make_event
from tournaments.models import Match, Tournament

pytestmark = pytest.mark.django_db(transaction=True)

#: How long the event may show no progress at all before the test gives up on it.
STALL_SECONDS = 120


@pytest.fixture
def worker_and_beat(tmp_path: Path) -> Iterator[None]:
    from celery.beat import EmbeddedService
    from celery.contrib.testing.worker import start_worker

    from dominoes_site.celery import app

    assert settings.CELERY_BEAT_SCHEDULE["tournament-sweep"]["task"] == "tournaments.tasks.sweep"
    broker_purge()  # tasks queued by earlier tests, long gone
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        beat = EmbeddedService(
            app, thread=True, schedule_filename=str(tmp_path / "celerybeat-schedule")
        )
        beat.start()
        try:
            yield
        finally:
            beat.stop()


def scripted_turn(rng: random.Random) -> bool:
    """Every player whose table is open presses Ready; every player to act makes one legal move.
    Returns whether anyone did anything."""
    acted = False
    for match in Match.objects.filter(status__in=[Match.Status.WAITING, Match.Status.PLAYING]):
        table = Table.objects.get(pk=match.table_id)
        if table.status == Table.Status.OPEN:
            for seat in Seat.objects.filter(table=table, ready=False).select_related("user"):
                tables.seat_ready(table_id=table.pk, user=seat.user, ready=True)
                acted = True
            continue
        game = Game.objects.filter(table=table, status=Game.Status.PLAYING).first()
        if game is None:
            continue
        state = GameState.from_json(game.state)
        if state.to_act is None:
            continue
        user = User.objects.get(pk=game.players[state.to_act])
        action = rng.choice(state.legal_actions()).to_dict()
        action.pop("seat", None)
        try:
            tables.game_act(table_id=table.pk, user=user, version=game.version, action=action)
        except tables.TableError as exc:
            assert exc.code == "stale", exc.message  # the house moved first (a deal): again
        acted = True
    return acted


def test_a_four_player_event_run_by_the_beat_and_the_worker(
    worker_and_beat: None, organizer: Any, players: list[Any]
) -> None:
    rng = random.Random(2026)
    now = timezone.now()
    # Registration and check-in stay open for as long as the players take to get through them;
    # then the start is brought forward to now and the beat takes it from there.
    tournament = make_event(
        organizer,
        registration_opens=now - dt.timedelta(minutes=1),
        registration_closes=now + dt.timedelta(hours=1),
        starts_at=now + dt.timedelta(hours=1),
        checkin_minutes=120,
        round_minutes=0,
        noshow_minutes=1,
    )
    four = players[:4]
    for user in four:
        client = Client()
        client.force_login(user)
        response = client.post(f"/tournaments/{tournament.pk}/register/")
        assert response.status_code == 302
        response = client.post(f"/tournaments/{tournament.pk}/check-in/")
        assert response.status_code == 302
    assert tournament.entries.filter(player_checked_in_at__isnull=False).count() == 4
    now = timezone.now()
    Tournament.objects.filter(pk=tournament.pk).update(registration_closes=now, starts_at=now)

    # No limit on the whole event (a busy machine only slows it down), only on a stall: the
    # players, the beat or the worker doing nothing at all for a long while.
    seen: set[str] = set()
    last_seen: tuple[Any, ...] = ()
    progress_at = time.monotonic()
    while True:
        tournament.refresh_from_db()
        seen.add(tournament.status)
        if tournament.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
            break
        acted = scripted_turn(rng)
        picture = (
            tournament.status,
            *Match.objects.order_by("pk").values_list("status", "table_id", "winner_id"),
        )
        if acted or picture != last_seen:
            last_seen, progress_at = picture, time.monotonic()
        elif time.monotonic() - progress_at > STALL_SECONDS:
            pytest.fail(f"nothing happened for {STALL_SECONDS} s (tournament {tournament.status})")
        else:
            time.sleep(0.2)
    assert tournament.status == Tournament.Status.FINISHED, tournament.status
    assert Tournament.Status.RUNNING in seen
    matches = {m.key: m for m in tournament.matches.all()}
    assert set(matches) == {"W1-1", "W1-2", "W2-1"}
    for match in matches.values():
        assert match.status == Match.Status.DONE and match.outcome == Match.Outcome.PLAYED
        (game,) = match.games
        assert Game.objects.get(pk=game["game"]).status == Game.Status.FINISHED
    final = matches["W2-1"]
    assert {final.entry_a_id, final.entry_b_id} == {
        matches["W1-1"].winner_id,
        matches["W1-2"].winner_id,
    }
    losers = sorted(
        m.entry_a_id if m.winner_id == m.entry_b_id else m.entry_b_id
        for m in (matches["W1-1"], matches["W1-2"])
    )
    second = final.entry_a_id if final.winner_id == final.entry_b_id else final.entry_b_id
    assert tournament.placings == [[final.winner_id], [second], losers]
    assert Table.objects.count() == 3
