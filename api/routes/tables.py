"""A seat at a table through the API: its game stream (NDJSON: the state as the seat may see
it, then each change) and its actions (sit, stand, ready, wash, move, claim, abort, rematch,
the summary seen, berserk), each the same service call, in the same all-or-nothing transaction
with the game's version compared and set, as the table socket makes (docs/protocol.md)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, StreamingHttpResponse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from ninja import Path, Query, Router, Schema
from pydantic import Field

from api.access import ApiError, caller, needs, needs_async, unavailable
from api.schemas import MOST_ID, WHOLE, Problem
from api.streams import GameStream, ndjson_response, still_allowed
from tables import presence, services
from tables.models import Table

router = Router(tags=["Play"])
REFUSALS: dict[int | str, Any] = {
    400: Problem,
    401: Problem,
    403: Problem,
    404: Problem,
    409: Problem,
    429: Problem,
    503: Problem,
}
NDJSON = "application/x-ndjson"
TableId = Path(..., ge=1, le=MOST_ID, description="The table's id.")

#: TableError codes and the status they are answered with (anything else: 409, the game's
#: state refused it: not your turn, a stale version, an illegal move, ...).
STATUS = {
    "no_table": 404,
    "not_seated": 403,
    "not_your_seat": 403,
    "not_host": 403,
    "not_staff": 403,
    "not_allowed": 403,
    "bad_field": 400,
    "bad_wash": 400,
}


class Done(Schema):
    ok: bool = True
    request_id: str | None = Field(None, description="Yours, given back.")


class Acked(Schema):
    type: str = Field("ack", description="Always ack.")
    version: int = Field(description="The game's version after your move.")
    request_id: str | None = Field(None, description="Yours, given back.")


class Move(Schema):
    version: int = Field(ge=0, le=WHOLE, description="The game version the move is for.")
    action: dict[str, Any] = Field(
        description="The move, as on the socket: play, draw, pass, choose (docs/protocol.md)."
    )
    request_id: str | None = Field(None, max_length=64, description="Given back in the answer.")


class SeatChoice(Schema):
    seat: int = Field(ge=0, le=WHOLE)


class Ready(Schema):
    ready: bool = True


class Wash(Schema):
    hand: int = Field(ge=0, le=WHOLE, description="The hand the wash is for.")
    entropy: str = Field(
        pattern="^[0-9a-fA-F]{64}$", description="64 hex digits of your own randomness."
    )


class HandNumber(Schema):
    hand: int = Field(ge=0, le=WHOLE)


class Rematch(Schema):
    want: bool = True


class Since(Schema):
    since: int | None = Field(
        None, ge=0, le=WHOLE, description="The last seq you saw: resume from there."
    )


def _visible(table_id: int, user: Any) -> Table:
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        raise ApiError(404, "no_table", _("There is no such table."))
    if table.private and table.host_id != user.pk and not table.seats.filter(user=user).exists():
        raise ApiError(404, "no_table", _("There is no such table."))
    return table


def _do(call: Any, **kwargs: Any) -> Any:
    try:
        return call(**kwargs)
    except services.TableError as exc:
        raise ApiError(STATUS.get(exc.code, 409), exc.code, exc.message, **exc.extra) from exc


STREAM_LINES = {
    "responses": {
        200: {
            "description": (
                "One JSON object per line: first a snapshot (or a resume when `since` is "
                "given), then updates; an empty line every 15 s; a reconnect when the "
                "server restarts; an end when the stream may not go on. Shapes: "
                "docs/protocol.md (snapshot, resume, update) and docs/api.md (Streams)."
            ),
            "content": {
                NDJSON: {
                    "schema": {
                        "type": "object",
                        "properties": {
                            "type": {
                                "type": "string",
                                "enum": ["snapshot", "resume", "update", "reconnect", "end"],
                            },
                            "seq": {"type": "integer"},
                            "table": {"type": "object"},
                            "game": {"type": ["object", "null"]},
                            "events": {"type": "array", "items": {"type": "object"}},
                            "server_time": {"type": "integer"},
                            "since": {"type": "integer"},
                            "code": {"type": "string"},
                        },
                        "required": ["type"],
                    }
                }
            },
        }
    }
}


@router.get(
    "/{table_id}/stream",
    response={200: None, **REFUSALS},
    auth=needs_async("play"),
    summary=gettext_noop("A table's game stream"),
    description=gettext_noop(
        "The table as your seat sees it (your own hand, counts of the others', the yard's size), "
        "then each change, for as long as you stay connected. Not seated: what a watcher sees. "
        "Reconnect with `since` (the last seq you saw) to resume."
    ),
    openapi_extra=STREAM_LINES,
)
async def stream(
    request: HttpRequest, filters: Query[Since], table_id: int = TableId
) -> StreamingHttpResponse:
    from dominoes_site import db_hop

    who = caller(request)
    await db_hop.run(_visible, table_id, who.user)
    game_stream = GameStream(table_id, who.user, still_allowed(who.user.pk, who.token_id))
    return ndjson_response(game_stream.lines(filters.since))


@router.post(
    "/{table_id}/move",
    response={200: Acked, **REFUSALS},
    auth=needs_async("play"),
    summary=gettext_noop("Make a move"),
    description=gettext_noop(
        "Play a bone, draw, pass or choose, for the game version you saw. A move for an older "
        "version is refused (409 stale) and changes nothing: read the stream and try "
        "again. Judged by the clock when the request arrived."
    ),
)
async def move(request: HttpRequest, body: Move, table_id: int = TableId) -> dict[str, Any]:
    # On the server's event loop, through db_hop, as a socket's act: one short transaction on
    # the loop's own connection (no thread, no new connection per request).
    from dominoes_site import db_hop

    arrived = timezone.now()
    try:
        result = await db_hop.run(
            _do,
            services.game_act,
            table_id=table_id,
            user=caller(request).user,
            version=body.version,
            action=body.action,
            arrived_at=arrived,
        )
    except db_hop.DatabaseUnavailable as exc:
        raise unavailable() from exc
    return {"type": "ack", "version": result.version, "request_id": body.request_id}


def _simple(name: str, summary: str, description: str, body_type: Any, call: Any) -> None:
    """An action with a small body, answered {ok: true}."""
    if body_type is None:

        def view(request: HttpRequest, table_id: int = TableId) -> dict[str, Any]:
            _do(call, table_id=table_id, user=caller(request).user)
            return {"ok": True}

    else:

        def view(request: HttpRequest, body: Any, table_id: int = TableId) -> dict[str, Any]:
            _do(call, table_id=table_id, user=caller(request).user, **body.dict())
            return {"ok": True}

    # The body's shape is chosen here: named for ninja's schema as real types, not text.
    view.__annotations__ = {"request": HttpRequest, "table_id": int, "return": dict[str, Any]}
    if body_type is not None:
        view.__annotations__["body"] = body_type
    view.__name__ = name.replace("-", "_")
    router.post(
        f"/{{table_id}}/{name}",
        response={200: Done, **REFUSALS},
        auth=needs("play"),
        summary=summary,
        description=description,
    )(view)


def _sit(*, table_id: int, user: Any, seat: int) -> Any:
    return services.seat_take(table_id=table_id, user=user, number=seat)


_simple(
    "sit",
    gettext_noop("Sit down"),
    gettext_noop("Take an empty seat at a table that is waiting for players."),
    SeatChoice,
    _sit,
)
_simple(
    "stand",
    gettext_noop("Stand up"),
    gettext_noop("Leave your seat before the game starts."),
    None,
    services.seat_leave,
)
_simple(
    "ready",
    gettext_noop("Ready"),
    gettext_noop("Say you are ready (or not): the game starts when every seat is."),
    Ready,
    services.seat_ready,
)
_simple(
    "wash",
    gettext_noop("Wash the next hand"),
    gettext_noop(
        "Mix your own randomness into the next hand's shuffle (docs/fairness.md): once per hand, "
        "before its deal."
    ),
    Wash,
    services.hand_wash,
)
_simple(
    "summary-seen",
    gettext_noop("The hand's summary is read"),
    gettext_noop("At a Gym table, the next hand's clock waits for this (or 15 s)."),
    HandNumber,
    services.summary_seen,
)
_simple(
    "claim",
    gettext_noop("Claim the game"),
    gettext_noop("The other players left and did not come back in time: claim the win."),
    None,
    presence.game_claim,
)
_simple(
    "abort",
    gettext_noop("Abort the game"),
    gettext_noop("Before the first moves, end the game with no result (the rules say when)."),
    None,
    services.game_abort,
)
_simple(
    "rematch",
    gettext_noop("Rematch"),
    gettext_noop("Offer (or take back) a rematch after the game."),
    Rematch,
    services.rematch_offer,
)
_simple(
    "berserk",
    gettext_noop("Berserk"),
    gettext_noop("At an arena's Gym table, halve your own clock before your first move."),
    None,
    services.seat_clock_halve_asked,
)


class Practice(Schema):
    mode: str = Field(
        "fives", description="citizen, citizen_gym, inmate, inmate_gym, fives, threes."
    )
    level: str = Field("regular", description="The house players' level: rookie, regular, shark.")
    shape: str = Field(
        "one_on_one",
        description="one_on_one, cut_throat_3, cut_throat_4 or partners (house modes).",
    )
    clock: str = Field("", description="Gym modes: 20, 30, 60, off, or empty for the mode's own.")


class TableMade(Schema):
    table: int
    url: str = Field(description="The table's page.")
    stream: str = Field(description="The table's game stream, for your seat.")


@router.post(
    "/practice",
    response={200: TableMade, **REFUSALS},
    auth=needs("play"),
    summary=gettext_noop("A practice game against the house"),
    description=gettext_noop(
        "A private, unrated table with house players of the level you choose in the other seats, "
        "started at once: you are seat 0. Play it through its stream."
    ),
)
def practice(request: HttpRequest, body: Practice) -> dict[str, Any]:
    from accounts.services import AccountNotAllowed
    from engine import SettingsError
    from house.forms import PracticeForm
    from house.services import practice_start

    form = PracticeForm(data=body.dict())
    if not form.is_valid():
        field, errors = next(iter(form.errors.items()))
        raise ApiError(
            400, "bad_field", str(errors[0]), field=None if field == "__all__" else field
        )
    try:
        table = practice_start(
            user=caller(request).user,
            mode=form.cleaned_data["mode"],
            level=form.cleaned_data["level"],
            **form.shape_settings,
            **form.clock_settings,
        )
    except services.TableError as exc:
        raise ApiError(STATUS.get(exc.code, 409), exc.code, exc.message) from exc
    except SettingsError as exc:
        raise ApiError(400, "bad_settings", str(getattr(exc, "message", exc))) from exc
    except AccountNotAllowed as exc:
        raise ApiError(403, "account_refused", exc.message) from exc
    return {
        "table": table.pk,
        "url": table.get_absolute_url(),
        "stream": f"/api/tables/{table.pk}/stream",
    }
