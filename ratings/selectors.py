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
from typing import Any

from django.utils import timezone

from ratings import glicko2
from ratings.models import RatedGame, Rating
from ratings.pools import pool_for

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


def table_picture_part(table: Any, game: Any, picture: dict[str, Any]) -> None:
    """The ratings' part of a table's picture (tables.selectors.PICTURE_PARTS,
    docs/protocol.md): the table's pool and whether it is rated; on each seat's player (not a
    house player) their `rating` in that pool; once the game is over, `rating_changes`."""
    pool = pool_for(table.settings)
    picture["rating"] = {"pool": pool.value, "rated": table.rated}
    people = [s["player"] for s in picture["seats"] if s["player"] and not s["player"].get("house")]
    ratings = player_ratings([p["id"] for p in people], pool) if people else {}
    for player in people:
        r = ratings[player["id"]]
        player["rating"] = {"rating": round(r.rating), "provisional": r.provisional}
    picture["rating_changes"] = game_rating_changes(game)


def game_rating_changes(game: Any) -> dict[str, Any] | None:
    """What a finished game did to its players' ratings: None before the game is over (or for
    a game the ratings never considered); else whether it was rated, why not, and per seat the
    rating before and after and the change as players see it (None for a seat not rated)."""
    if game is None or game.status != "finished":
        return None
    rated = RatedGame.objects.filter(game_id=game.pk).first()
    if rated is None:
        return None
    seats: list[dict[str, Any] | None] = [None] * len(game.players)
    for c in rated.changes.all():
        seats[c.seat] = {
            "before": round(c.rating_before),
            "after": round(c.rating_after),
            "delta": c.delta,
            "provisional": c.deviation_after > PROVISIONAL_DEVIATION,
        }
    return {"pool": rated.pool, "rated": rated.rated, "why_not": rated.why_not, "seats": seats}
