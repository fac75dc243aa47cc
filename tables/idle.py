"""Closing tables nobody is waiting at, so the lobby lists only tables someone will play.

A table waiting for players (open, its game not started) is closed once nobody has been there
for `IDLE_CLOSE_AFTER`: no socket open at it now, and nothing has happened at it since (its last
event: a seat taken or left, a player going offline, its creation). The host who made a table
and walked away leaves it in the lobby for a while, not for ever. A closed table is aborted like
a game called off before it started (no result, any stake back: none is held before the start);
its page says so. Tables a tournament runs are left to the tournament's own no-show rules.
Beat's `tables.tasks.idle_tables_close` runs `idle_tables_close` every minute.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from tables import services
from tables.models import Game, Presence, Table
from tables.presence import PRESENCE_STALE_SECONDS

log = logging.getLogger(__name__)

#: An open table with nobody there this long is closed.
IDLE_CLOSE_AFTER = timedelta(minutes=15)


def _idle(table_id: int, now: datetime) -> bool:
    """Nobody online at the table, and nothing has happened there for IDLE_CLOSE_AFTER."""
    fresh = now - timedelta(seconds=PRESENCE_STALE_SECONDS)
    if Presence.objects.filter(table_id=table_id, seen_at__gte=fresh).exists():
        return False
    table = (
        Table.objects.filter(pk=table_id)
        .annotate(last_event=Max("events__created_at"), last_seen=Max("presences__seen_at"))
        .values("created_at", "last_event", "last_seen")
        .first()
    )
    if table is None:
        return False
    last = max(t for t in table.values() if t is not None)
    return bool(last <= now - IDLE_CLOSE_AFTER)


def _run_by_another_app(table: Table) -> bool:
    """A table whose seats another app fixes (a tournament's match) is that app's to close."""
    return any(
        guard(table.pk, table.host_id, None, "close") is not None for guard in services.SEAT_GUARDS
    )


def idle_table_close(*, table_id: int, now: datetime | None = None) -> bool:
    """Close this open table if it is idle (see the module); returns whether it was closed."""
    now = now or timezone.now()
    with transaction.atomic():
        table = Table.objects.select_for_update().filter(pk=table_id).first()
        if table is None or table.status != Table.Status.OPEN or not _idle(table.pk, now):
            return False
        if _run_by_another_app(table):
            return False
        game = (
            Game.objects.select_for_update().filter(table=table, status=Game.Status.WAITING).first()
        )
        if game is None:
            return False
        services._abort(table, game)
        services._game_aborted(game)
        services._record(table, public=[{"type": "table_closed", "reason": "idle"}], game=game)
    log.info("table %s closed: nobody there for %s", table_id, IDLE_CLOSE_AFTER)
    return True


def idle_tables_close(*, now: datetime | None = None) -> int:
    """The beat job: close every open table that is idle; returns how many were closed."""
    now = now or timezone.now()
    candidates = Table.objects.filter(
        status=Table.Status.OPEN, created_at__lte=now - IDLE_CLOSE_AFTER
    ).values_list("pk", flat=True)
    closed = 0
    for table_id in list(candidates[:500]):
        try:
            closed += idle_table_close(table_id=table_id, now=now)
        except services.TableError as exc:  # the table changed at that moment: next run
            log.warning("table %s: not closed (%s)", table_id, exc.code)
    return closed
