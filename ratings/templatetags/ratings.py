"""Ratings on pages: `{% load ratings %}`.

- `{% lobby_ratings open_tables playing_tables %}` reads the ratings of every person seated in
  the lobby's rows (one query per pool) and sets `seat.rating` (a PlayerRating) on each seat;
  then `{% rating_chip seat.rating %}` shows it ("1512", "1500?" while provisional).
- `{% rating_chip rating %}` shows any PlayerRating, explained in its title.
- `{% profile_ratings player %}`: the profile's card, a chart per pool.
- `{% game_ratings game %}`: the game page's card, each player's change.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext

from ratings import selectors
from ratings.pools import pool_for
from ratings.selectors import PlayerRating, player_ratings

register = template.Library()


@register.simple_tag
def lobby_ratings(*row_lists: Iterable[dict[str, Any]]) -> str:
    """Set `seat.rating` on every person's seat in the rows (dicts with "table" and "seats")."""
    wanted: dict[str, set[int]] = defaultdict(set)
    seats_by_pool: dict[str, list[Any]] = defaultdict(list)
    for rows in row_lists:
        for row in rows or []:
            pool = pool_for(row["table"].settings).value
            for seat in row["seats"]:
                user = seat.user
                if user is None or user.house_level:
                    continue
                wanted[pool].add(user.pk)
                seats_by_pool[pool].append(seat)
    for pool, ids in wanted.items():
        ratings = player_ratings(ids, pool)
        for seat in seats_by_pool[pool]:
            seat.rating = ratings[seat.user_id]
    return ""


@register.simple_tag
def rating_chip(rating: PlayerRating | None) -> SafeString:
    """A rating as a small chip; nothing for none (an empty seat, a house player)."""
    if rating is None or not isinstance(rating, PlayerRating):
        return SafeString("")
    if rating.provisional:
        title = gettext("Rating %(rating)s? (provisional: few or no recent rated games)") % {
            "rating": round(rating.rating)
        }
    else:
        title = gettext("Rating %(rating)s") % {"rating": round(rating.rating)}
    return format_html(
        '<span class="rating-chip" title="{}"><span aria-hidden="true">{}</span>'
        '<span class="visually-hidden">{}</span></span>',
        title,
        rating.shown,
        title,
    )


@register.inclusion_tag("ratings/_profile.html", takes_context=True)
def profile_ratings(context: template.Context, player: Any) -> dict[str, Any]:
    """The profile's Ratings card: each pool the player has rated games in, with its chart."""
    return {
        "player": player,
        "pools": selectors.profile_ratings(player.pk),
        "user": context.get("user"),
    }


@register.inclusion_tag("ratings/_game.html")
def game_ratings(game: Any) -> dict[str, Any]:
    """The game page's Ratings card: what the game did to its players' ratings."""
    return {"game": game, "ratings": selectors.game_ratings(game)}
