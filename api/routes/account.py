"""The token's own account: who it is, its ratings, its games in progress."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch
from django.http import HttpRequest, StreamingHttpResponse
from django.urls import reverse
from django.utils.translation import gettext_noop
from ninja import Query, Router

from api.access import caller, needs
from api.refs import player_ref, ratings_of
from api.routes.games import STREAM_DOC, GameFilters, games_of
from api.schemas import Account, LiveGame, Problem, Rating
from tables.models import Game, Seat, Table

router = Router(tags=["Account"])
REFUSALS: dict[int | str, Any] = {401: Problem, 403: Problem, 429: Problem}


@router.get(
    "",
    response={200: Account, **REFUSALS},
    auth=needs("read"),
    summary=gettext_noop("Your account"),
    description=gettext_noop("Who the token acts for, what it may do, and your ratings."),
)
def me(request: HttpRequest) -> dict[str, Any]:
    who = caller(request)
    user = who.user
    return {
        "id": user.pk,
        "name": user.shown_name,
        "bot": user.bot,
        "url": reverse("accounts:profile", args=[user.pk]),
        "language": user.language or "en",
        "time_zone": user.time_zone,
        "joined": user.date_joined,
        "scopes": sorted(who.scopes),
        "ratings": ratings_of(user.pk),
    }


@router.get(
    "/ratings",
    response={200: list[Rating], **REFUSALS},
    auth=needs("read"),
    summary=gettext_noop("Your ratings"),
    description=gettext_noop("Your rating in every pool you have played rated games in."),
)
def my_ratings(request: HttpRequest) -> list[dict[str, Any]]:
    return ratings_of(caller(request).user.pk)


def live_games(user: Any) -> list[dict[str, Any]]:
    """The tables `user` sits at that are waiting or being played, newest first."""
    seats = list(
        Seat.objects.filter(user=user, table__status__in=(Table.Status.OPEN, Table.Status.PLAYING))
        .select_related("table")
        .prefetch_related(
            Prefetch(
                "table__seats", queryset=Seat.objects.select_related("user").order_by("number")
            )
        )
        .order_by("-table__created_at", "-table_id")
    )
    games = {
        g.table_id: g
        for g in Game.objects.filter(
            table_id__in=[s.table_id for s in seats], status=Game.Status.PLAYING
        ).only("pk", "table_id", "version", "state")
    }
    rows = []
    for seat in seats:
        table = seat.table
        game = games.get(table.pk)
        rows.append(
            {
                "table": table.pk,
                "game": game.pk if game else None,
                "mode": table.mode,
                "status": table.status,
                "seat": seat.number,
                "my_turn": bool(game and game.state.get("to_act") == seat.number),
                "version": game.version if game else None,
                "rated": table.rated,
                "players": [player_ref(s.user) if s.user else None for s in table.seats.all()],
                "url": reverse("tables:table", args=[table.pk]),
            }
        )
    return rows


@router.get(
    "/playing",
    response={200: list[LiveGame], **REFUSALS},
    auth=needs("read"),
    summary=gettext_noop("Your games in progress"),
    description=gettext_noop(
        "The tables you sit at that are waiting for players or being played, newest first."
    ),
)
def playing(request: HttpRequest) -> list[dict[str, Any]]:
    return live_games(caller(request).user)


@router.get(
    "/games",
    response={200: None, 400: Problem, **REFUSALS},
    auth=needs("read"),
    summary=gettext_noop("Your finished games"),
    description=gettext_noop(
        "A stream (NDJSON), newest first. Filters: mode, rated, since, until, max."
    ),
    openapi_extra=STREAM_DOC,
)
def my_games(request: HttpRequest, filters: Query[GameFilters]) -> StreamingHttpResponse:
    return games_of(request, caller(request).user, filters)
