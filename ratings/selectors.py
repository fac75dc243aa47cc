"""Reading ratings: the public API other apps use (quick pairing, lobby, tables, profiles).

A rating as read here has its deviation grown for the time since the player's last rated game
(Glicko-2 step 6 over the rating periods that went by, docs/ratings.md), so a player who stayed
away comes back provisional. A player with no rating in a pool reads as a new player: 1500, 350,
0.06, no games, provisional.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from django.utils import timezone

from ratings import glicko2
from ratings.models import Rating

#: Above this deviation a rating is provisional and shown with a "?" (lichess's line).
PROVISIONAL_DEVIATION = 110.0


@dataclass(frozen=True)
class PlayerRating:
    """A player's rating in a pool as of now."""

    rating: float
    deviation: float
    volatility: float
    games: int
    provisional: bool

    @property
    def shown(self) -> str:
        """As players see it: whole points, with "?" while provisional ("1500?")."""
        return f"{round(self.rating)}{'?' if self.provisional else ''}"


NEW_PLAYER = PlayerRating(
    rating=glicko2.DEFAULT_RATING,
    deviation=glicko2.DEFAULT_DEVIATION,
    volatility=glicko2.DEFAULT_VOLATILITY,
    games=0,
    provisional=True,
)


def rating_now(row: Rating | None, now: dt.datetime | None = None) -> PlayerRating:
    """A stored rating row as of `now` (its deviation grown for the time since its last game)."""
    if row is None:
        return NEW_PLAYER
    now = now or timezone.now()
    deviation = row.deviation
    if row.last_game_at is not None:
        days = (now - row.last_game_at).total_seconds() / 86400
        deviation = glicko2.deviation_after(
            glicko2.Glicko(row.rating, row.deviation, row.volatility),
            glicko2.periods_between(days),
        )
    return PlayerRating(
        rating=row.rating,
        deviation=deviation,
        volatility=row.volatility,
        games=row.games,
        provisional=deviation > PROVISIONAL_DEVIATION,
    )


def player_rating(user_id: int, pool: str) -> PlayerRating:
    """The player's rating in `pool` (a ratings.pools.Pool value) as of now."""
    return rating_now(Rating.objects.filter(user_id=user_id, pool=pool).first())


def player_ratings(user_ids: Iterable[int], pool: str) -> dict[int, PlayerRating]:
    """Every named player's rating in `pool`, in one query; a player with none reads as new."""
    ids = {int(u) for u in user_ids}
    now = timezone.now()
    rows = {r.user_id: r for r in Rating.objects.filter(user_id__in=ids, pool=pool)}
    return {u: rating_now(rows.get(u), now) for u in ids}
