"""Making, finding and revoking personal access tokens (api.models.AccessToken)."""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from api.models import AccessToken, Scope

#: Every token begins with this, so that one pasted where it should not be is easy to find.
TOKEN_PREFIX = "dom_"
#: Live (not revoked) tokens one account may hold.
MAX_TOKENS = 20
#: The last-used time is written at most this often per token (not on every request).
LAST_USED_EVERY = dt.timedelta(minutes=1)


class TokenError(Exception):
    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.field = code, message, field


def digest_of(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def token_create(*, user: Any, name: str, scopes: list[str]) -> tuple[AccessToken, str]:
    """A new token for `user`: the row, and the secret (shown once, never stored)."""
    name = name.strip()
    if not name:
        raise TokenError("bad_field", _("Give the token a name."), "name")
    if len(name) > 60:
        raise TokenError("bad_field", _("A name has at most 60 characters."), "name")
    known = set(Scope.values)
    chosen = [s for s in Scope.values if s in set(scopes)]
    if not scopes or set(scopes) - known:
        raise TokenError("bad_field", _("Choose at least one scope."), "scopes")
    with transaction.atomic():
        # The account's row is locked while counting, so two made at once cannot pass the cap.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        if AccessToken.objects.filter(user=user, revoked_at=None).count() >= MAX_TOKENS:
            raise TokenError(
                "too_many_tokens",
                _("You have %(n)d tokens: revoke one you no longer use first.") % {"n": MAX_TOKENS},
            )
        secret = TOKEN_PREFIX + secrets.token_urlsafe(30)
        token = AccessToken.objects.create(
            user=user,
            name=name,
            scopes=chosen,
            digest=digest_of(secret),
            prefix=secret[: len(TOKEN_PREFIX) + 6],
        )
    return token, secret


def token_revoke(*, user: Any, token_id: int) -> AccessToken:
    """Revoke one of `user`'s tokens (at once: the next request with it is refused)."""
    token = AccessToken.objects.filter(pk=token_id, user=user).first()
    if token is None:
        raise TokenError("no_such_token", _("You have no such token."))
    if token.revoked_at is None:
        AccessToken.objects.filter(pk=token.pk, revoked_at=None).update(revoked_at=timezone.now())
        token.refresh_from_db()
    return token


@dataclass(frozen=True)
class Bearer:
    """Who a request's token speaks for, and what it may do."""

    user: Any
    scopes: frozenset[str]
    token_id: int | None  # a personal token's id (None: an OAuth token)
    app: str = ""  # an OAuth application's name


def token_bearer(secret: str, *, now: dt.datetime | None = None) -> Bearer | None:
    """The live personal token with this secret, if any (its last use noted)."""
    if not secret.startswith(TOKEN_PREFIX) or len(secret) > 200:
        return None
    token = (
        AccessToken.objects.select_related("user")
        .filter(digest=digest_of(secret), revoked_at=None)
        .first()
    )
    if token is None:
        return None
    now = now or timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_EVERY:
        AccessToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return Bearer(user=token.user, scopes=frozenset(token.scopes), token_id=token.pk)
