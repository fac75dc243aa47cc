"""The public API (docs/api.md): one django-ninja NinjaAPI under /api/, its schema at
/api/schema (OpenAPI 3.1), its routes in api/routes/. Every refusal is a `Problem`."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, ValidationError

from api.access import ApiError

api = NinjaAPI(
    title="Dominologist API",
    version="1",
    description=(
        "Play dominoes, read games and ratings, and run bots on Dominologist. "
        "Guide: /developers/. Tokens: your account's API page."
    ),
    urls_namespace="api",
    openapi_url="/schema",
    docs_url=None,  # the docs page is the site's own (/developers/), not a CDN's
)


def problem(
    request: HttpRequest,
    status: int,
    code: str,
    message: str,
    *,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> HttpResponse:
    response = api.create_response(
        request, {"code": code, "message": message, **extra}, status=status
    )
    for name, value in (headers or {}).items():
        response[name] = value
    return response


@api.exception_handler(ApiError)
def _api_error(request: HttpRequest, exc: ApiError) -> HttpResponse:
    return problem(
        request, exc.status, exc.code, exc.message, headers=exc.headers, **exc.body_extra()
    )


@api.exception_handler(AuthenticationError)
def _no_token(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    return problem(
        request,
        401,
        "no_token",
        _("Send a token: Authorization: Bearer <token> (make one on your account's API page)."),
        headers={"WWW-Authenticate": "Bearer"},
    )


@api.exception_handler(ValidationError)
def _bad_input(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    first = exc.errors[0] if exc.errors else {}
    where = [str(p) for p in first.get("loc", ()) if p not in ("body", "query", "path", "payload")]
    field = ".".join(where) or None
    message = str(first.get("msg") or _("The request is not valid."))
    return problem(
        request,
        400,
        "bad_field",
        _("%(field)s: %(problem)s") % {"field": field, "problem": message} if field else message,
        field=field,
    )


@api.exception_handler(HttpError)
def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    return problem(request, exc.status_code, "refused", str(exc))


# The routes (each module's `router`); they use `api`'s handlers above.
from api.routes import (  # noqa: E402
    account,
    bots,
    challenges,
    events,
    games,
    players,
    tables,
    tournaments,
)

api.add_router("/account", account.router)
api.add_router("/players", players.router)
api.add_router("/games", games.router)
api.add_router("/leaderboards", players.boards)
api.add_router("/stream", events.router)  # the account's event stream
api.add_router("/tables", tables.router)  # a seat's game stream and its moves
api.add_router("/challenges", challenges.router)  # challenges and Play now
api.add_router("/tournaments", tournaments.router)
api.add_router("/bot", bots.router)  # becoming a bot
