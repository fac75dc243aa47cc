"""Read models for getting to a game: a player's own tables (the home page) and the lobby's rows.

Selectors only: nothing here writes. A player's tables are those where they hold a seat and the
table is waiting for players or being played, public, private or practice alike, so that a
player who closed the tab always finds the way back.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch

from tables.models import Game, Seat, Table

LIVE = (Table.Status.OPEN, Table.Status.PLAYING)


def player_tables(user: Any) -> list[dict[str, Any]]:
    """The tables `user` sits at that are waiting or being played, newest first: each with the
    other players, whether it is a practice table (house players only besides them), private,
    and whether it is their turn now."""
    if not getattr(user, "is_authenticated", False):
        return []
    seats = list(
        Seat.objects.filter(user=user, table__status__in=LIVE)
        .select_related("table")
        .prefetch_related(
            Prefetch(
                "table__seats",
                queryset=Seat.objects.select_related("user").order_by("number"),
            )
        )
        .order_by("-table__created_at")
    )
    playing = [s.table_id for s in seats if s.table.status == Table.Status.PLAYING]
    to_act = dict(
        Game.objects.filter(table_id__in=playing, status=Game.Status.PLAYING).values_list(
            "table_id", "state__to_act"
        )
    )
    rows = []
    for seat in seats:
        table = seat.table
        others = [s.user for s in table.seats.all() if s.user_id and s.user_id != user.pk]
        practice = table.private and bool(others) and all(o.house_level for o in others)
        rows.append(
            {
                "table": table,
                "seat": seat.number,
                "others": others,
                "free": sum(1 for s in table.seats.all() if s.user_id is None),
                "practice": practice,
                "private": table.private and not practice,
                "playing": table.status == Table.Status.PLAYING,
                "my_turn": to_act.get(table.pk) == seat.number,
            }
        )
    return rows
