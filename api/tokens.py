"""Making, finding and revoking personal access tokens (api.models.AccessToken)."""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection, transaction
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


#: Tokens this process found lately, by digest: who they speak for, the account's generation
#: (`User.socket_generation`) when they were read, and when this process last noted their use.
#: Least recently used first.
_FOUND: OrderedDict[str, tuple[Bearer, str, dt.datetime]] = OrderedDict()
#: The most tokens kept (past it, the least recently used is forgotten).
FOUND_MOST = 10_000
_FOUND_LOCK = threading.Lock()


@functools.cache
def _live_sql() -> str:
    """The one statement a token found before costs: is it still live, and the account's
    generation (every change to the account that matters to it makes a new one,
    dominoes_site.user_sockets.account_changed). Built once per process."""
    qn = connection.ops.quote_name
    user_model = get_user_model()
    token_table, user_table = qn(AccessToken._meta.db_table), qn(user_model._meta.db_table)
    generation = qn(user_model._meta.get_field("socket_generation").column)
    user_key = qn(user_model._meta.pk.column)  # type: ignore[union-attr]
    token_user = qn(AccessToken._meta.get_field("user").column)
    digest = qn(AccessToken._meta.get_field("digest").column)
    revoked = qn(AccessToken._meta.get_field("revoked_at").column)
    return (
        f"SELECT u.{generation} FROM {token_table} t JOIN {user_table} u "
        f"ON u.{user_key} = t.{token_user} WHERE t.{digest} = %s AND t.{revoked} IS NULL"
    )


def token_bearer(
    secret: str, *, now: dt.datetime | None = None, recent: bool = False
) -> Bearer | None:
    """The live personal token with this secret, if any (its last use noted, at most once a
    minute by each process).

    Every call reads the database: a revoked token is refused at once, on every server. With
    `recent` (a move, a stream: what needs of the account only who it is and whether it may
    play), a token this process found before costs one small statement (`_live_sql`): still
    live, and the account's generation unchanged, the account as it was read then is used;
    otherwise (a new token, or the account changed: a suspension, a password, its age) the
    token and the account are read again in full. Without it the token and the account are
    read afresh, in one statement (a read that shows the account's name or settings)."""
    if not secret.startswith(TOKEN_PREFIX) or len(secret) > 200:
        return None
    digest = digest_of(secret)
    now = now or timezone.now()
    found = None
    if recent:
        with _FOUND_LOCK:  # the event loop's thread and the sync views' thread both use it
            found = _FOUND.get(digest)
            if found is not None:
                _FOUND.move_to_end(digest)
    generation = ""
    if found is not None:
        with connection.cursor() as cursor:
            cursor.execute(_live_sql(), [digest])
            row = cursor.fetchone()
        if row is None:
            with _FOUND_LOCK:
                _FOUND.pop(digest, None)
            return None
        generation = str(row[0] or "")
    if found is not None and generation and found[1] == generation:
        bearer, noted = found[0], found[2]
    else:
        token = (
            AccessToken.objects.select_related("user")
            .filter(digest=digest, revoked_at=None)
            .first()
        )
        if token is None:
            return None
        bearer = Bearer(user=token.user, scopes=frozenset(token.scopes), token_id=token.pk)
        noted = token.last_used_at or now - LAST_USED_EVERY
        generation = token.user.socket_generation or ""
    if now - noted >= LAST_USED_EVERY:
        AccessToken.objects.filter(pk=bearer.token_id).update(last_used_at=now)
        noted = now
    if generation:
        with _FOUND_LOCK:
            _FOUND[digest] = (bearer, generation, noted)
            _FOUND.move_to_end(digest)
            while len(_FOUND) > FOUND_MOST:
                _FOUND.popitem(last=False)
    return bearer
