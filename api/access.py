"""Who is asking, what they may do, and how often: every /api/ operation names its scope.

A request carries `Authorization: Bearer <token>`: a personal access token (api.tokens) or an
OAuth 2 access token an app was given with the player's consent (django-oauth-toolkit). An
operation that needs a scope refuses a token without it (403 `missing_scope`); a public read
(a profile open to everyone, leaderboards, a public game) may also be made with no token at all.

Every request is counted against its bucket (the operation's scope, per account; anonymous
requests per address) with `dominoes_site.limits.take`, and every answer says where the bucket
stands: `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` (seconds until the
window turns), `X-RateLimit-Bucket`. Over the limit: 429 `rate_limited` with `Retry-After`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja.security import HttpBearer

from accounts.services import refusal_reason
from api.tokens import Bearer, token_bearer
from dominoes_site import limits

#: Requests a minute, per account and bucket (docs/api.md, "Limits").
LIMITS: dict[str, int] = {
    "read": 300,
    "play": 1200,
    "challenge": 30,
    "tournaments": 30,
    "anonymous": 60,
}
WINDOW_SECONDS = 60


class ApiError(Exception):
    """An answer in words: `{"code": ..., "message": ..., "field": ...}` with its status."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        field: str | None = None,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.field = status, code, message, field
        self.headers = headers or {}
        self.extra = extra

    def body_extra(self) -> dict[str, Any]:
        """What the answer carries besides its code and message."""
        extra = dict(self.extra)
        if self.field is not None:
            extra["field"] = self.field
        return extra


def unavailable() -> ApiError:
    """The answer while the database restarts (db_hop.DatabaseUnavailable): nothing was done."""
    return ApiError(503, "unavailable", _("The house is restarting: try again in a moment."))


@dataclass(frozen=True)
class Caller:
    """The request's caller: a player through a token, or nobody (a public read)."""

    user: Any  # None when anonymous
    scopes: frozenset[str]
    token_id: int | None = None
    app: str = ""

    @property
    def anonymous(self) -> bool:
        return self.user is None

    def __bool__(self) -> bool:  # ninja takes a falsy answer for "not this way"
        return True


def _address(request: HttpRequest) -> str:
    return str(request.META.get("REMOTE_ADDR") or "unknown")


def count(request: HttpRequest, bucket: str, who: str) -> None:
    """Count the request in its bucket; the answer's headers say where it stands (middleware).
    Over the limit: ApiError 429."""
    allowance = limits.take(f"api:{bucket}:{who}", LIMITS[bucket], WINDOW_SECONDS)
    headers = {
        "X-RateLimit-Limit": str(allowance.limit),
        "X-RateLimit-Remaining": str(allowance.remaining),
        "X-RateLimit-Reset": str(allowance.reset),
        "X-RateLimit-Bucket": bucket,
    }
    request.api_limit_headers = headers  # type: ignore[attr-defined]
    if not allowance.allowed:
        raise ApiError(
            429,
            "rate_limited",
            _("Too many requests: wait %(seconds)d s and try again.")
            % {"seconds": allowance.retry_after},
            headers={**headers, "Retry-After": str(allowance.retry_after)},
            retry_after=allowance.retry_after,
        )


def _bearer(token: str, *, recent: bool = False) -> Bearer | None:
    from api.tokens import TOKEN_PREFIX

    if token.startswith(TOKEN_PREFIX):
        return token_bearer(token, recent=recent)
    from api.oauth import oauth_bearer

    return oauth_bearer(token)


class TokenAuth(HttpBearer):
    """A token with `scope` (None: any valid token)."""

    def __init__(self, scope: str | None) -> None:
        super().__init__()
        self.scope = scope

    #: Whether the account read for this token a moment ago will do (api.tokens.token_bearer).
    recent = False

    def authenticate(self, request: HttpRequest, token: str) -> Caller:
        bearer = _bearer(token.strip(), recent=self.recent)
        if bearer is None:
            raise ApiError(
                401,
                "bad_token",
                _("That token is not valid: it was revoked, or mistyped."),
                headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
            )
        user = bearer.user
        reason = refusal_reason(user)
        if reason is not None:
            raise ApiError(403, "account_refused", reason)
        if self.scope is not None and self.scope not in bearer.scopes:
            raise ApiError(
                403,
                "missing_scope",
                _("This token does not have the %(scope)s scope.") % {"scope": self.scope},
                scope=self.scope,
            )
        count(request, self.scope or "read", str(user.pk))
        return Caller(user=user, scopes=bearer.scopes, token_id=bearer.token_id, app=bearer.app)


class AsyncTokenAuth(TokenAuth):
    """TokenAuth for the async operations (the streams, a move): the token is read on the
    server's event loop through `db_hop.run`, on its long-lived connection, as a socket's
    actions are. (A synchronous check would run in the request's own thread, which opens a
    database connection of its own, and a stream's thread keeps it for the stream's life: 400
    streams held 400 connections, bench/api_load.py.)"""

    is_async = True
    recent = True

    async def __call__(self, request: HttpRequest) -> Caller | None:  # type: ignore[override]
        from dominoes_site import db_hop

        value = request.headers.get(self.header)
        if not value:
            return None
        parts = value.split(" ")
        if parts[0].lower() != self.openapi_scheme:
            return None
        token = " ".join(parts[1:])
        try:
            return await db_hop.run(self.authenticate, request, token)
        except db_hop.DatabaseUnavailable as exc:
            raise unavailable() from exc


class Anyone:
    """No token at all: a public read, counted per address. (A token that is sent is checked
    by TokenAuth first, and a bad one is refused, never taken for nobody.)"""

    def __call__(self, request: HttpRequest) -> Caller | None:
        if request.headers.get("Authorization"):
            return None
        count(request, "anonymous", _address(request))
        return Caller(user=None, scopes=frozenset())


def needs(scope: str) -> list[Any]:
    return [TokenAuth(scope)]


def needs_async(scope: str) -> list[Any]:
    """`needs` for an async operation."""
    return [AsyncTokenAuth(scope)]


def public(scope: str = "read") -> list[Any]:
    """With a token (counted in `scope`), or without one (counted per address)."""
    return [TokenAuth(scope), Anyone()]


#: The OpenAPI of an operation that `public()` guards: a token, or none at all.
PUBLIC_DOC: dict[str, Any] = {"security": [{"TokenAuth": []}, {}]}


def caller(request: HttpRequest) -> Caller:
    found = getattr(request, "auth", None)
    assert isinstance(found, Caller)
    return found
