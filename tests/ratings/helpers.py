"""Finished games written straight to the database, for rating them by hand."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.utils import timezone

from engine import TableSettings
from ratings.models import Rating
from tables.models import Game, Table


def finished_game(
    players: list[Any],
    *,
    mode: str = "fives",
    winner: int = 0,
    scores: list[int] | None = None,
    forfeit: int | None = None,
    rated: bool = True,
    **options: Any,
) -> Game:
    """A table and a finished game at it: `players` by seat, `winner` a side."""
    if mode not in ("fives", "threes"):
        options.setdefault("players", len(players))
    settings = TableSettings.build(mode, **options)
    table = Table.objects.create(
        mode=mode,
        settings=settings.to_dict(),
        host=players[0],
        rated=rated,
        status=Table.Status.FINISHED,
    )
    sides = settings.sides
    return Game.objects.create(
        table=table,
        status=Game.Status.FINISHED,
        state={"scores": scores or [0] * sides},
        players=[p.pk for p in players],
        result={
            "winner": winner,
            "skunked": [],
            "forfeit": forfeit,
            "reason": "abandoned" if forfeit is not None else "target",
            "workouts": None,
        },
        finished_at=timezone.now(),
    )


def set_rating(
    user: Any,
    pool: str,
    rating: float,
    deviation: float,
    volatility: float = 0.06,
    *,
    games: int = 20,
    last_game_at: dt.datetime | None = None,
) -> Rating:
    row, _ = Rating.objects.update_or_create(
        user=user,
        pool=pool,
        defaults={
            "rating": rating,
            "deviation": deviation,
            "volatility": volatility,
            "games": games,
            "last_game_at": last_game_at or timezone.now(),
        },
    )
    return row
