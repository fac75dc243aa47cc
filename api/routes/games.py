"""Games: one game's export (JSON, and the game page's text), and a player's finished games as
a stream (NDJSON, newest first)."""

from __future__ import annotations

import datetime as dt
import enum
import json
from collections.abc import Iterator
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import Exists, OuterRef
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from ninja import Path, Router, Schema
from pydantic import Field

from api.access import ApiError, caller, needs
from api.export import game_json
from api.refs import player_ref
from api.schemas import GameExport, GameLine, Problem
from tables.models import MODE_CHOICES, Game

router = Router(tags=["Games"])
REFUSALS: dict[int | str, Any] = {401: Problem, 403: Problem, 404: Problem, 429: Problem}
MAX_GAMES = 1000
NDJSON = "application/x-ndjson"


def visible_game(request: HttpRequest, game_id: int) -> Game:
    from history.selectors import may_view_game

    game = Game.objects.select_related("table").filter(pk=game_id).first()
    if game is None or not may_view_game(caller(request).user, game):
        raise ApiError(404, "no_such_game", _("There is no such game, or it is not yours to see."))
    return game


@router.get(
    "/{game_id}",
    response={200: GameExport, **REFUSALS},
    auth=needs("read"),
    summary=gettext_noop("A game"),
    description=gettext_noop(
        "Seats, result and every hand that is over: its seed, washes, deal, plays and scores. "
        "Of a hand in play, only its commitment. Private tables' games only to their players."
    ),
)
def game(request: HttpRequest, game_id: int = Path(..., ge=1, le=2**31 - 1)) -> dict[str, Any]:
    return game_json(visible_game(request, game_id))


@router.get(
    "/{game_id}/text",
    response={200: str, **REFUSALS},
    auth=needs("read"),
    summary=gettext_noop("A game as text"),
    description=gettext_noop("The game page's plain-text export, in the request's language."),
    openapi_extra={"responses": {200: {"content": {"text/plain": {"schema": {"type": "string"}}}}}},
)
def game_text(request: HttpRequest, game_id: int = Path(..., ge=1, le=2**31 - 1)) -> HttpResponse:
    from history.selectors import game_export

    game = visible_game(request, game_id)
    text = game_export(game, request.build_absolute_uri(reverse("history:game", args=[game.pk])))
    return HttpResponse(text, content_type="text/plain; charset=utf-8")


#: The modes, as the schema names them.
Mode = enum.StrEnum("Mode", {code: code for code, _label in MODE_CHOICES})  # type: ignore[misc]


class GameFilters(Schema):
    mode: Mode | None = Field(None, description="Only games of this mode.")
    rated: bool | None = Field(
        None, description="Only games that counted for ratings (true), or only others (false)."
    )
    since: dt.datetime | None = Field(None, description="Finished at or after (ISO 8601).")
    until: dt.datetime | None = Field(None, description="Finished before (ISO 8601).")
    max: int = Field(100, ge=1, le=MAX_GAMES, description="At most this many games.")


def game_lines(player: Any, viewer: Any, filters: GameFilters) -> Iterator[bytes]:
    """The player's finished games the viewer may open, newest first, one JSON line each."""
    from history.models import PlayerGame
    from history.selectors import _visible_records
    from ratings.models import RatedGame

    records = _visible_records(player, viewer).annotate(
        was_rated=Exists(RatedGame.objects.filter(game_id=OuterRef("game_id"), rated=True))
    )
    if filters.mode:
        records = records.filter(mode=str(filters.mode.value))
    if filters.rated is not None:
        records = records.filter(was_rated=filters.rated)
    if filters.since:
        records = records.filter(finished_at__gte=filters.since)
    if filters.until:
        records = records.filter(finished_at__lt=filters.until)
    records = records.order_by("-finished_at", "-game_id")[: filters.max]
    batch: list[Any] = []

    def lines(rows: list[Any]) -> Iterator[bytes]:
        others: dict[int, list[Any]] = {}
        for other in (
            PlayerGame.objects.filter(game_id__in=[r.game_id for r in rows])
            .select_related("user")
            .order_by("game_id", "seat")
        ):
            others.setdefault(other.game_id, []).append(other)
        for r in rows:
            line = {
                "id": r.game_id,
                "mode": r.mode,
                "rated": r.was_rated,
                "private": r.private,
                "finished_at": r.finished_at,
                "seat": r.seat,
                "won": r.won,
                "score": r.score,
                "hands": r.hands,
                "points": r.points,
                "players": [player_ref(o.user) for o in others.get(r.game_id, [])],
                "url": reverse("history:game", args=[r.game_id]),
            }
            yield json.dumps(line, cls=DjangoJSONEncoder).encode() + b"\n"

    for record in records.iterator(chunk_size=100):
        batch.append(record)
        if len(batch) == 100:
            yield from lines(batch)
            batch = []
    if batch:
        yield from lines(batch)


def games_of(request: HttpRequest, player: Any, filters: GameFilters) -> StreamingHttpResponse:
    """The stream (an empty window, since at or after until, is an empty stream)."""
    return StreamingHttpResponse(
        game_lines(player, caller(request).user, filters), content_type=NDJSON
    )


def ndjson_doc(schema: type[Schema], what: str) -> dict[str, Any]:
    """The OpenAPI of a stream: one `schema` per line. (Refs point into the schema's
    components, where every nested shape already is.)"""
    line = schema.model_json_schema(ref_template="#/components/schemas/{model}")
    line.pop("$defs", None)
    return {"responses": {200: {"description": what, "content": {NDJSON: {"schema": line}}}}}


STREAM_DOC = ndjson_doc(GameLine, "One finished game per line (NDJSON), newest first.")
