"""Reading ratings: the public API other apps use (quick pairing, lobby, tables, profiles).

A rating as read here has its deviation grown for the time since the player's last rated game
(Glicko-2 step 6 over the rating periods that went by, docs/ratings.md), so a player who stayed
away comes back provisional. A player with no rating in a pool reads as a new player: 1500, 350,
0.06, no games, provisional.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from ratings import glicko2
from ratings.models import RatedGame, Rating, RatingChange
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


# --- pages: profiles, games, leaderboards -------------------------------------------------------

#: The leaderboard lists players with at least this many rated games in the pool...
LEADERBOARD_MIN_GAMES = 10
#: ...who played a rated game in it within this many days.
LEADERBOARD_ACTIVE_DAYS = 30
#: Climbers: the rating gained over this many days.
CLIMBERS_DAYS = 7
#: The chart shows at most this many of a player's latest rated games.
CHART_GAMES = 100


@dataclass(frozen=True)
class ChartPoint:
    x: float
    y: float
    rating: int
    at: dt.datetime | None
    game_id: int | None


def rating_chart(points: list[tuple[float, dt.datetime | None, int | None]]) -> dict[str, Any]:
    """An SVG line of ratings (rating, when, game id), the first being where the player stood
    before their first charted game: coordinates in a 400 x 180 box, with grid lines."""
    # A 400-wide box: readable labels both at 300 px (a phone's card) and at full width.
    width, height = 400, 180
    left, right, top, bottom = 44, width - 8, 10, height - 10
    values = [p[0] for p in points]
    low, high = min(values), max(values)
    step = 50 if high - low <= 300 else 100
    low_line = math.floor((low - 10) / step) * step
    high_line = math.ceil((high + 10) / step) * step
    span = max(high_line - low_line, 1)
    count = max(len(points) - 1, 1)

    def y_of(value: float) -> float:
        return round(bottom - (value - low_line) / span * (bottom - top), 1)

    chart_points = [
        ChartPoint(
            x=round(left + i / count * (right - left), 1),
            y=y_of(value),
            rating=round(value),
            at=at,
            game_id=game_id,
        )
        for i, (value, at, game_id) in enumerate(points)
    ]
    grid = [{"y": y_of(v), "label": v} for v in range(int(low_line), int(high_line) + 1, step)]
    return {
        "width": width,
        "height": height,
        "left": left,
        "right": right,
        "bottom": bottom,
        "points": chart_points,
        "path": " ".join(f"{p.x},{p.y}" for p in chart_points),
        "grid": grid,
        "games": len(points) - 1,
        "lowest": round(low),
        "highest": round(high),
    }


def profile_ratings(user_id: int) -> list[dict[str, Any]]:
    """The player's rating in every pool they have played rated games in, each with the chart
    of its last CHART_GAMES games, in the order of the pools."""
    from ratings.pools import Pool

    now = timezone.now()
    rows = {r.pool: r for r in Rating.objects.filter(user_id=user_id, games__gt=0)}
    out = []
    for pool in Pool:
        row = rows.get(pool.value)
        if row is None:
            continue
        changes = list(
            RatingChange.objects.filter(user_id=user_id, pool=pool.value)
            .select_related("rated_game")
            .order_by("-at", "-pk")[:CHART_GAMES]
        )
        changes.reverse()
        points: list[tuple[float, dt.datetime | None, int | None]] = []
        if changes:
            points.append((changes[0].rating_before, None, None))
            points += [(c.rating_after, c.at, c.rated_game.game_id) for c in changes]
        out.append(
            {
                "pool": pool,
                "rating": rating_now(row, now),
                "chart": rating_chart(points) if len(points) > 1 else None,
                "last": changes[-1] if changes else None,
            }
        )
    return out


def game_ratings(game: Any) -> dict[str, Any] | None:
    """What a finished game did to its players' ratings, for its history page: None when the
    ratings never considered it; else rated or why not, and each rated player's change."""
    rated = RatedGame.objects.filter(game_id=game.pk).first()
    if rated is None:
        return None
    changes = list(rated.changes.select_related("user").order_by("seat"))
    return {"rated_game": rated, "changes": changes}


def _eligible(pool: str, now: dt.datetime) -> Any:
    return Rating.objects.filter(
        pool=pool,
        games__gte=LEADERBOARD_MIN_GAMES,
        last_game_at__gte=now - dt.timedelta(days=LEADERBOARD_ACTIVE_DAYS),
        user__is_active=True,
    )


def leaderboard(
    pool: str, *, top: int = 50, now: dt.datetime | None = None
) -> list[dict[str, Any]]:
    """The pool's top players: at least LEADERBOARD_MIN_GAMES rated games and one within
    LEADERBOARD_ACTIVE_DAYS days, best rating first (ties: more games, then who got there
    first). Each with their rank, PlayerRating and user."""
    now = now or timezone.now()
    rows = list(
        _eligible(pool, now)
        .select_related("user")
        .order_by("-rating", "-games", "last_game_at")[:top]
    )
    return [
        {"rank": i, "user": r.user, "rating": rating_now(r, now)} for i, r in enumerate(rows, 1)
    ]


def climbers(pool: str, *, top: int = 10, now: dt.datetime | None = None) -> list[dict[str, Any]]:
    """The week's biggest climbers: rating gained over the last CLIMBERS_DAYS days (from before
    their first rated game of the week to after their last), most first; only gains."""
    from accounts.models import User

    now = now or timezone.now()
    first: dict[int, float] = {}
    last: dict[int, float] = {}
    games: dict[int, int] = {}
    changes = RatingChange.objects.filter(
        pool=pool, at__gte=now - dt.timedelta(days=CLIMBERS_DAYS)
    ).order_by("at", "pk")
    for user_id, before, after in changes.values_list("user_id", "rating_before", "rating_after"):
        first.setdefault(user_id, before)
        last[user_id] = after
        games[user_id] = games.get(user_id, 0) + 1
    gains = sorted(
        ((round(last[u]) - round(first[u]), u) for u in last),
        key=lambda item: (-item[0], item[1]),
    )
    gains = [(gain, u) for gain, u in gains if gain > 0][:top]
    users = User.objects.in_bulk([u for _, u in gains])
    return [
        {"user": users[u], "gain": gain, "games": games[u], "rating": round(last[u])}
        for gain, u in gains
        if u in users
    ]


def standing(user: Any, pool: str, *, now: dt.datetime | None = None) -> dict[str, Any] | None:
    """Where a player stands in the pool: their rating, and their rank among the listed players
    or why they are not listed (too few games, none lately). None for a visitor."""
    if not getattr(user, "is_authenticated", False):
        return None
    now = now or timezone.now()
    row = Rating.objects.filter(user_id=user.pk, pool=pool).first()
    mine = rating_now(row, now)
    out: dict[str, Any] = {"rating": mine, "games": mine.games, "rank": None, "why": None}
    if row is None or row.games < LEADERBOARD_MIN_GAMES:
        out["why"] = "few_games"
        out["missing"] = LEADERBOARD_MIN_GAMES - (row.games if row else 0)
    elif row.last_game_at is None or row.last_game_at < now - dt.timedelta(
        days=LEADERBOARD_ACTIVE_DAYS
    ):
        out["why"] = "inactive"
    else:
        out["rank"] = 1 + _eligible(pool, now).filter(rating__gt=row.rating).count()
        out["of"] = _eligible(pool, now).count()
    return out
