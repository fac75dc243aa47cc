"""An open socket follows its account: closing a user's sockets when the account changes.

Every socket joins its user's group (`user.<id>`) when it opens. A change that may end its right
to act (a log-out, a new password, `is_active`, the age status, the date of birth or the time
zone, the account deleted) calls `account_changed` once it is committed: the account gets a new
*generation* (a random token in the cache) and `account.changed` goes to the user's group. Each of
the user's sockets then checks its standing again from the database (`standing`: its session
still logs this user in, and the account may play) and closes with 4001 or 4003 when it does not.

The message can arrive after a frame the socket is already handling, or not at all (a lost
message), so every action a socket carries out first compares the account's generation in the
cache with the one it last checked: one cache read, made in the database hop the action makes
anyway. A different or missing generation means "check again first". A log-out also marks its
session ended in the cache before anything is sent, because Django empties the session only
after its `user_logged_out` signal: a socket checking in between must not find it still valid.

On the embedded default the cache is each process's own memory: a change made in the daphne
(a log-out, an admin edit) is seen by the next action at once; one made in another process (the
daily age job in the Celery worker) reaches the sockets through the channel layer's message.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY
from django.core.cache import cache
from django.db import transaction
from django.utils.crypto import constant_time_compare
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.services import refusal_reason, user_group_name
from dominoes_site.layer import group_send

CLOSE_NOT_LOGGED_IN = 4001
CLOSE_NOT_ALLOWED = 4003
#: How long a generation is kept; a socket that finds none checks again (and makes a new one).
GENERATION_SECONDS = 7 * 24 * 3600


@dataclass(frozen=True)
class Refusal:
    """Why a socket may no longer act: its close code and words for the player."""

    code: int
    message: str


def _generation_key(user_id: int) -> str:
    return f"account-generation:{user_id}"


def _ended_key(session_key: str) -> str:
    return "session-ended:" + hashlib.sha256(session_key.encode()).hexdigest()


def generation_seen(user_id: int) -> str | None:
    """The account's generation as the cache holds it now (None: none kept)."""
    value = cache.get(_generation_key(user_id))
    return value if isinstance(value, str) else None


def generation(user_id: int) -> str:
    """The account's generation, made when there is none. Read it before checking the account:
    a change committed after the check then shows as a new generation."""
    token = generation_seen(user_id)
    if token is None:
        cache.add(_generation_key(user_id), secrets.token_hex(8), GENERATION_SECONDS)
        token = generation_seen(user_id)
    return token or ""  # a cache that keeps nothing: every action checks again


def account_changed(user_id: int, *, ended_session: str | None = None) -> None:
    """The account changed (call it after commit): a new generation, and every socket of the
    user checks its standing again. `ended_session`: a session that just logged out."""
    if ended_session:
        cache.set(_ended_key(ended_session), True, settings.SESSION_COOKIE_AGE)
    cache.set(_generation_key(user_id), secrets.token_hex(8), GENERATION_SECONDS)
    group_send(user_group_name(user_id), {"type": "account.changed"})


def account_changed_on_commit(user_id: int) -> None:
    """`account_changed` once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: account_changed(user_id))


def _session_data(session_key: str) -> dict[str, Any]:
    store = import_module(settings.SESSION_ENGINE).SessionStore(session_key=session_key)
    data: dict[str, Any] = store.load()  # {} when it is gone or has expired
    return data


def _hash_matches(session_hash: object, user: User) -> bool:
    if not isinstance(session_hash, str) or not session_hash:
        return False
    if constant_time_compare(session_hash, user.get_session_auth_hash()):
        return True
    return any(
        constant_time_compare(session_hash, fallback)
        for fallback in user.get_session_auth_fallback_hash()
    )


def standing(
    user_id: int, session_key: str | None, session: dict[str, Any] | None = None
) -> tuple[User | None, Refusal | None]:
    """Whether a socket of `user_id` opened with `session_key` may still act, from the database:
    (the account as it is now, None), or (None, why not). `session`: the session's data when
    the caller has just read it (a socket opening); otherwise it is read again.

    Like Django's own check of a request: the session must still exist, name this user and
    carry the hash of the account's current password; then the house's rule (`refusal_reason`).
    """
    logged_out = Refusal(CLOSE_NOT_LOGGED_IN, _("Please log in first."))
    if not session_key or cache.get(_ended_key(session_key)):
        return None, logged_out
    data = session if session is not None else _session_data(session_key)
    if str(data.get(SESSION_KEY)) != str(user_id):
        return None, logged_out
    user = User.objects.filter(pk=user_id).first()
    if user is None or not _hash_matches(data.get(HASH_SESSION_KEY), user):
        return None, logged_out
    reason = refusal_reason(user)
    if reason is not None:
        return None, Refusal(CLOSE_NOT_ALLOWED, reason)
    return user, None
