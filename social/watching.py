"""The Watch page: live games anyone may watch, top-rated first (like a TV guide), and the rule
for which private tables are open to watchers.

A game in play is listed when its table is public, or private but made by the house for its
players (Play now, a challenge, a tournament match: no invite code was ever meant to keep it
to them), and every person at it lets others watch their games (SocialSettings, on by
default). A practice table (its host and house players) and a host's own private table are
never listed. A player who said no is never listed, and their Play now, challenge and
tournament tables refuse watchers as any private table does; a public table they sit at stays
public (it is listed in the lobby).
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.db.models import Exists, OuterRef, Q, QuerySet

from social.models import Challenge, SocialSettings
from tables.models import Seat, Table

#: How many games the Watch page shows.
WATCH_LIMIT = 30


def _made_for_players() -> Q:
    """Private tables the house made for their players: Play now, a challenge, a tournament."""
    made = Q(pairing_match__isnull=False) | Exists(Challenge.objects.filter(table=OuterRef("pk")))
    try:
        match = apps.get_model("tournaments", "Match")
    except LookupError:
        return made
    return made | Exists(match.objects.filter(table=OuterRef("pk")))


def _someone_said_no() -> Exists:
    return Exists(
        Seat.objects.filter(
            table=OuterRef("pk"),
            user__in=SocialSettings.objects.filter(games_watchable=False).values("user"),
        )
    )


def watchable_tables() -> QuerySet[Table]:
    """Tables being played that anyone may watch and that are listed."""
    return (
        Table.objects.filter(status=Table.Status.PLAYING)
        .filter(Q(private=False) | Q(private=True) & _made_for_players())
        .exclude(_someone_said_no())
    )


def private_watchable(table: Table) -> bool:
    """The table socket's and page's question (tables.watching.PRIVATE_WATCHABLE)."""
    if not table.private:
        return False
    return (
        Table.objects.filter(pk=table.pk)
        .filter(_made_for_players())
        .exclude(_someone_said_no())
        .exists()
    )


def watch_rows(viewer: Any) -> list[dict[str, Any]]:
    """The Watch page's games: each table with its seats (each person's rating in the table's
    pool), the best rating at it, and how many watch it; top-rated first, then newest."""
    from ratings.pools import pool_for
    from ratings.selectors import player_ratings
    from tables.views import _watchers

    tables = list(
        watchable_tables()
        .select_related("host")
        .prefetch_related("seats__user")
        .order_by("-created_at")[:200]
    )
    by_pool: dict[str, set[int]] = {}
    for table in tables:
        people = {s.user_id for s in table.seats.all() if s.user and not s.user.house_level}
        by_pool.setdefault(pool_for(table.settings).value, set()).update(people)
    ratings = {pool: player_ratings(ids, pool) for pool, ids in by_pool.items()}
    watching = _watchers(tables)
    rows = []
    for table in tables:
        pool = ratings.get(pool_for(table.settings).value, {})
        seats = list(table.seats.all())
        for seat in seats:
            seat.rating = pool.get(seat.user_id)
        best = max((round(s.rating.rating) for s in seats if s.rating is not None), default=0)
        rows.append(
            {
                "table": table,
                "seats": seats,
                "best": best,
                "watchers": watching.get(table.pk, 0),
                "mine": any(s.user_id == viewer.pk for s in seats),
            }
        )
    rows.sort(key=lambda r: (-r["best"], -r["table"].created_at.timestamp()))
    return rows[:WATCH_LIMIT]
