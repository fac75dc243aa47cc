"""A move through the API (POST /api/tables/{id}/move, the documented operation in
api/routes/tables.py) answered in front of Django's request handler.

A bot's moves are most of the API's traffic, and the smallest of its requests: a token, a table,
a version and an action. Through Django's handler each paid for the body spooled to a file, the
request signals (two hops to a worker thread each), the URL resolver, and ninja's operation
(auth, then pydantic, then the response's schema): bench/api_load.py measured them at a third of
an API move's server CPU beyond a socket's. Here a move that the operation would take as it is
(`plain_move`: a personal token, a body that is exactly the schema's) is answered by the same
checks in the same order, in one `db_hop` for the token and the move instead of two:

- the token (`AsyncTokenAuth("play").authenticate`: live, the account allowed, the scope, the
  rate limit counted);
- the move (`services.game_act`, the all-or-nothing transaction with the version compared and
  set), its refusals the operation's (`api.routes.tables.STATUS`);
- the answer rendered by the API itself (`api.create_response`, `api.site.problem`), through the
  API's own middleware (api/asgi.py `API_MIDDLEWARE`: host, security headers, language, rate
  limit headers, the request counted).

Anything else (a body the schema would coerce or refuse, an OAuth token, no token, a body past
`MOST_BODY`) goes to Django's handler as it came, body and all, and gets the operation's own
answer. tests/api/test_move_route.py plays whole games through both and compares every answer.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass
from typing import Any

from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponseBase

from api.access import ApiError, AsyncTokenAuth, unavailable
from api.schemas import MOST_ID, WHOLE
from api.tokens import TOKEN_PREFIX

MOVE_PATH = re.compile(r"/api/tables/([1-9][0-9]{0,9})/move")
#: A move's body is a few dozen bytes; a larger one goes to Django's handler.
MOST_BODY = 16 * 1024

_PLAY = AsyncTokenAuth("play")


@dataclass(frozen=True)
class PlainMove:
    """A move request as the operation would take it, its parts read."""

    table_id: int
    token: str
    version: int
    action: dict[str, Any]
    request_id: str | None


def is_move(scope: dict[str, Any]) -> bool:
    return scope.get("method") == "POST" and MOVE_PATH.fullmatch(scope.get("path", "")) is not None


def plain_move(scope: dict[str, Any], body: bytes) -> PlainMove | None:
    """The move, when the operation would take this request exactly as it is: one
    `Authorization: Bearer dom_…` header, and a JSON object whose `version` is an integer in
    range, `action` an object and `request_id` absent, null or a string of at most 64
    characters, in at most `MOST_BODY` bytes. None for anything else (pydantic would coerce
    it, or refuse it in its own words)."""
    found = MOVE_PATH.fullmatch(scope.get("path", ""))
    if scope.get("method") != "POST" or found is None or len(body) > MOST_BODY:
        return None
    table_id = int(found[1])
    if table_id > MOST_ID:  # the bounds are the operation's own (api.routes.tables)
        return None
    authorization = [v for k, v in scope.get("headers", ()) if k.lower() == b"authorization"]
    if len(authorization) != 1:
        return None
    parts = authorization[0].decode("latin-1").split(" ")
    token = " ".join(parts[1:]).strip()
    if parts[0].lower() != "bearer" or not token.startswith(TOKEN_PREFIX):
        return None
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if type(data) is not dict:
        return None
    version, action, request_id = data.get("version"), data.get("action"), data.get("request_id")
    if type(version) is not int or not 0 <= version <= WHOLE or type(action) is not dict:
        return None
    if request_id is not None and (type(request_id) is not str or len(request_id) > 64):
        return None
    return PlainMove(table_id, token, version, action, request_id)


def _act(request: HttpRequest, move: PlainMove, arrived: Any) -> int:
    """The token, then the move: the operation's two steps, in one hop."""
    from api.routes.tables import _do
    from tables import services

    who = _PLAY.authenticate(request, move.token)
    result = _do(
        services.game_act,
        table_id=move.table_id,
        user=who.user,
        version=move.version,
        action=move.action,
        arrived_at=arrived,
    )
    return int(result.version)


async def answer(request: HttpRequest) -> HttpResponseBase:
    """The innermost step of the API's chain for a plain move (`request.plain_move`)."""
    from api.site import _api_error, api
    from dominoes_site import db_hop

    move: PlainMove = request.plain_move  # type: ignore[attr-defined]
    try:
        version = await db_hop.run(_act, request, move, request.move_arrived)  # type: ignore[attr-defined]
    except db_hop.DatabaseUnavailable:
        return _api_error(request, unavailable())
    except ApiError as exc:
        return _api_error(request, exc)
    return api.create_response(
        request,
        {"type": "ack", "version": version, "request_id": move.request_id},
        status=200,
    )


async def read_body(receive: Any) -> tuple[bytes, bool, bool]:
    """The request's body, or its first part past `MOST_BODY`: (what was read, whether more of
    it is still to come, whether the client went away)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b"".join(chunks), False, True
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        more = bool(message.get("more_body", False))
        if size > MOST_BODY or not more:
            # All of it, or enough to know it is no plain move: Django's handler reads the rest.
            return b"".join(chunks), more, False


def replaying(first: bytes, more: bool, receive: Any) -> Any:
    """`receive` with the part of the body already read given back first."""
    given = False

    async def again() -> dict[str, Any]:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": first, "more_body": more}
        return await receive()  # type: ignore[no-any-return]

    return again


def request_for(scope: dict[str, Any], body: bytes, move: PlainMove, arrived: Any) -> ASGIRequest:
    request = ASGIRequest(scope, io.BytesIO(body))
    request.plain_move = move  # type: ignore[attr-defined]
    request.move_arrived = arrived  # type: ignore[attr-defined]
    return request
