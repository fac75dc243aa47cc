"""Reading the pools: a player's place in one (the status the waiting page polls) and the grid."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Count
from django.utils import timezone

from pairing import services
from pairing.cells import (
    MODES,
    SHAPE_NAMES,
    SHAPE_SHORT,
    SHAPES,
    STAKES,
    Cell,
    CellError,
    cell_parse,
    shapes_of,
)
from pairing.models import Match, PoolEntry
from pairing.services import RANGE_MOST, RANGE_PER_SECOND, RANGE_START, rating_range
from tables.models import MODE_CHOICES

Status = PoolEntry.Status


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def pool_sizes() -> dict[str, int]:
    """Players waiting in each pool, by cell key (one query)."""
    rows = (
        PoolEntry.objects.filter(status=Status.WAITING)
        .values("cell")
        .annotate(n=Count("pk"))
        .values_list("cell", "n")
    )
    return dict(rows)


def pool_status(user: Any, now: datetime | None = None) -> dict[str, Any]:
    """Where `user` stands: `waiting` in a pool (its size, their wait, their rating range),
    `seated` at a table the pool made that waits for them to be ready, `dropped` (not ready in
    time) or `idle`. What the waiting panel shows and polls: asking also tells the pool that the
    player's page is open (`services.pool_seen`)."""
    now = now or timezone.now()
    status: dict[str, Any] = {"state": "idle", "server_time": _ms(now)}
    match = (
        Match.objects.filter(status=Match.Status.CONFIRMING, table__seats__user=user)
        .select_related("table")
        .first()
    )
    if match is not None:
        ready = match.table.seats.filter(user=user, ready=True).exists()
        status.update(
            state="seated",
            table=match.table_id,
            url=match.table.get_absolute_url(),
            confirm_by=_ms(match.confirm_by),
            ready=ready,
        )
        return status
    entry = PoolEntry.objects.filter(user=user).order_by("-joined_at", "-pk").first()
    if entry is None:
        return status
    try:
        cell = cell_parse(entry.cell)
    except CellError:
        return status
    if entry.status == Status.WAITING:
        services.pool_seen(entry_pk=entry.pk, now=now)
        waited = (now - entry.joined_at).total_seconds()
        status.update(
            state="waiting",
            cell=entry.cell,
            label=cell.describe(),
            joined_at=_ms(entry.joined_at),
            pool_size=PoolEntry.objects.filter(cell=entry.cell, status=Status.WAITING).count(),
            rating=entry.rating,
            range=rating_range(waited),
            house_fill=entry.house_fill,
        )
    elif (
        entry.status == Status.DROPPED
        and entry.ended_at
        and ((now - entry.ended_at).total_seconds() < 600)
    ):
        status.update(state="dropped", cell=entry.cell, label=cell.describe())
    return status


def grid(stake: int = 0) -> dict[str, Any]:
    """The "Play now" grid: a row per mode, a cell per shape it can take."""
    names = dict(MODE_CHOICES)
    rows = []
    for mode in MODES:
        cells = []
        for shape in SHAPES:
            if shape not in shapes_of(mode):
                cells.append(None)
                continue
            cell = Cell(mode, shape, stake if mode in ("citizen", "fives", "threes") else 0)
            cells.append(
                {
                    "mode": mode,
                    "shape": shape,
                    "short": SHAPE_SHORT[shape],
                    "name": SHAPE_NAMES[shape],
                    "key": cell.key,
                }
            )
        rows.append({"mode": mode, "name": names[mode], "cells": cells})
    return {
        "rows": rows,
        "shapes": [{"shape": s, "short": SHAPE_SHORT[s], "name": SHAPE_NAMES[s]} for s in SHAPES],
        "stakes": STAKES,
        "stake": stake,
        "range_start": RANGE_START,
        "range_per_second": RANGE_PER_SECOND,
        "range_most": RANGE_MOST,
    }
