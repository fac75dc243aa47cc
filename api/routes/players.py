"""Players' profiles (as each profile's privacy allows), ratings, and the leaderboards."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q
from django.http import HttpRequest, StreamingHttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from ninja import Path, Query, Router

from accounts.models import User
from api.access import PUBLIC_DOC, ApiError, caller, needs, public
from api.refs import player_ref, rating_ref, ratings_of
from api.routes.games import STREAM_DOC, GameFilters, games_of
from api.schemas import Leaderboard, Problem, Profile, Rating
from ratings.pools import Pool

router = Router(tags=["Players"])
boards = Router(tags=["Players"])
REFUSALS: dict[int | str, Any] = {401: Problem, 403: Problem, 404: Problem, 429: Problem}


def visible_player(request: HttpRequest, player_id: int) -> Any:
    """The player, if the caller may see their profile; a 404 otherwise (a profile kept from
    the caller says nothing, not even that it exists)."""
    player = User.objects.filter(pk=player_id, is_active=True).first()
    viewer = caller(request).user
    if player is None or not player.profile_visible_to(viewer):
        raise ApiError(
            404, "no_such_player", _("There is no such player, or their profile is private.")
        )
    return player


@router.get(
    "/{player_id}",
    response={200: Profile, **REFUSALS},
    auth=public("read"),
    openapi_extra=PUBLIC_DOC,
    summary=gettext_noop("A player's profile"),
    description=gettext_noop(
        "As the player's privacy allows: profiles open to everyone need no token; profiles open "
        "to players need one."
    ),
)
def profile(request: HttpRequest, player_id: int = Path(..., ge=1, le=2**31 - 1)) -> dict[str, Any]:
    from history.models import PlayerGame

    player = visible_player(request, player_id)
    records = PlayerGame.objects.filter(user=player)
    totals = records.aggregate(games=Count("pk"), wins=Count("pk", filter=Q(won=True)))
    modes = list(
        records.values("mode")
        .annotate(games=Count("pk"), wins=Count("pk", filter=Q(won=True)))
        .order_by("mode")
    )
    return {
        "player": player_ref(player),
        "joined": player.date_joined,
        "games": totals["games"],
        "wins": totals["wins"],
        "modes": modes,
        "ratings": ratings_of(player.pk),
    }


@router.get(
    "/{player_id}/ratings",
    response={200: list[Rating], **REFUSALS},
    auth=public("read"),
    openapi_extra=PUBLIC_DOC,
    summary=gettext_noop("A player's ratings"),
    description=gettext_noop("The player's rating in every pool they have played rated games in."),
)
def player_ratings(
    request: HttpRequest, player_id: int = Path(..., ge=1, le=2**31 - 1)
) -> list[dict[str, Any]]:
    return ratings_of(visible_player(request, player_id).pk)


@boards.get(
    "/{pool}",
    response={200: Leaderboard, **REFUSALS},
    auth=public("read"),
    openapi_extra=PUBLIC_DOC,
    summary=gettext_noop("A leaderboard"),
    description=gettext_noop(
        "The pool's top 50 players, as the leaderboards page lists them: at least the "
        "leaderboard's minimum of rated games, and one lately."
    ),
)
def leaderboard(request: HttpRequest, pool: Pool) -> dict[str, Any]:
    from ratings.selectors import leaderboard as top

    rows = []
    for row in top(pool.value):
        user = row["user"]
        rating = rating_ref(pool.value, row["rating"])
        rows.append(
            {
                "rank": row["rank"],
                "player": player_ref(user),
                "rating": rating["rating"],
                "deviation": rating["deviation"],
                "games": rating["games"],
            }
        )
    return {"pool": pool.value, "pool_name": str(pool.label), "rows": rows}


@router.get(
    "/{player_id}/games",
    response={200: None, **REFUSALS, 400: Problem},
    auth=needs("read"),
    summary=gettext_noop("A player's finished games"),
    description=gettext_noop(
        "A stream (NDJSON), newest first: the player's finished games the caller may open (a "
        "private table's games only to its players). Filters: mode, rated, since, until, max."
    ),
    openapi_extra=STREAM_DOC,
)
def player_games(
    request: HttpRequest,
    filters: Query[GameFilters],
    player_id: int = Path(..., ge=1, le=2**31 - 1),
) -> StreamingHttpResponse:
    return games_of(request, visible_player(request, player_id), filters)
