"""Small pieces every answer shares: a player as the API names them, a rating."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from ratings.pools import Pool
from ratings.selectors import PlayerRating


def player_ref(user: Any) -> dict[str, Any]:
    return {
        "id": user.pk,
        "name": user.shown_name,
        "bot": bool(getattr(user, "bot", False)),
        "house": bool(user.house_level),
        "url": reverse("accounts:profile", args=[user.pk]),
    }


def rating_ref(pool: str, rating: PlayerRating) -> dict[str, Any]:
    return {
        "pool": pool,
        "pool_name": str(Pool(pool).label),
        "rating": round(rating.rating),
        "deviation": round(rating.deviation),
        "provisional": rating.provisional,
        "games": rating.games,
    }


def ratings_of(user_id: int) -> list[dict[str, Any]]:
    """The player's rating in every pool they have played rated games in, in pool order."""
    from ratings.models import Rating
    from ratings.selectors import rating_now

    rows = {r.pool: r for r in Rating.objects.filter(user_id=user_id, games__gt=0)}
    return [rating_ref(p.value, rating_now(rows[p.value])) for p in Pool if p.value in rows]
