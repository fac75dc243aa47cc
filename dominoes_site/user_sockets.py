"""An open socket follows its account: closing a user's sockets when the account changes.

Every socket joins its user's group (`user.<id>`) when it opens. A change that may end its right
to act (a log-out, a new password, `is_active`, the age status, the date of birth or the time
zone, the account deleted) calls `account_changed` once it is committed: the account gets a new
*generation* (a random token in the account's row, `User.socket_generation`) and
`account.changed` goes to the user's group. Each of the user's sockets then checks its standing
again from the database (`standing`: its session still logs this user in, and the account may
play) and closes with 4001 or 4003 when it does not.

The message can arrive after a frame the socket is already handling, or not at all (a lost
message), so every action a socket carries out first compares the account's generation in the
database with the one it last checked: one small read, made in the database hop the action
makes anyway. A different or missing generation means "check again first". A move made warm
(tables/warm.py) makes that comparison inside its own statement instead (`offered_guard`): the
statement changes nothing unless the generation is still the one checked, and the action then
checks as any other would (`settle`). A log-out also marks its session ended in the cache
before anything is sent, because Django empties the session only after its `user_logged_out`
signal: a socket checking in between must not find it still valid.

A password changed on the site keeps the session that changed it logged in (Django's
`update_session_auth_hash`, which gives the session a new key): its sockets, in every tab,
follow it to the new key (`session_followed`) and stay open; the account's other sessions are
logged out by the change, and their sockets close with 4001. While that request runs, the
changing session counts as logged in (`password_changing`, until `session_moved`).
"""

from __future__ import annotations

import functools
import hashlib
import secrets
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY
from django.core.cache import cache
from django.db import connection, transaction
from django.utils.crypto import constant_time_compare
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.services import refusal_reason, user_group_name
from dominoes_site.layer import group_send

CLOSE_NOT_LOGGED_IN = 4001
CLOSE_NOT_ALLOWED = 4003


@dataclass(frozen=True)
class Refusal:
    """Why a socket may no longer act: its close code and words for the player."""

    code: int
    message: str


def _ended_key(session_key: str) -> str:
    return "session-ended:" + hashlib.sha256(session_key.encode()).hexdigest()


def _moved_key(session_key: str) -> str:
    return "session-moved:" + hashlib.sha256(session_key.encode()).hexdigest()


def _changing_key(session_key: str) -> str:
    return "session-changing:" + hashlib.sha256(session_key.encode()).hexdigest()


#: How long a session may be in the middle of changing its password (one request).
CHANGING_SECONDS = 60


def password_changing(session_key: str) -> None:
    """This session is changing its account's password (before the new one is saved): until
    `session_moved`, its sockets keep standing while its key and hash are being replaced
    (Django's `update_session_auth_hash` gives it a new key, and the new password's hash)."""
    cache.set(_changing_key(session_key), True, CHANGING_SECONDS)


def session_moved(old_key: str, new_key: str | None) -> None:
    """The session that changed the password is saved under `new_key` (None: it was not kept,
    a log-out): its sockets follow it there."""
    if new_key and new_key != old_key:
        cache.set(_moved_key(old_key), new_key, settings.SESSION_COOKIE_AGE)
    cache.delete(_changing_key(old_key))


def session_followed(session_key: str | None) -> str | None:
    """The key a socket's session has now (it moves when that session changes the password)."""
    for _hop in range(8):
        if not session_key:
            return session_key
        moved = cache.get(_moved_key(session_key))
        if not moved:
            return session_key
        session_key = moved
    return session_key


@functools.cache
def _generation_sql() -> tuple[str, str]:
    """The read of an account's generation, and the count a statement compares it with: built
    once per process."""
    table = connection.ops.quote_name(User._meta.db_table)
    column = connection.ops.quote_name(User._meta.get_field("socket_generation").column)
    key = connection.ops.quote_name(User._meta.pk.column)  # type: ignore[union-attr]
    return (
        f"SELECT {column} FROM {table} WHERE {key} = %s",
        f"SELECT count(*) FROM {table} WHERE {key} = %s AND {column} = %s",
    )


def generation_seen(user_id: int) -> str | None:
    """The account's generation as the database holds it now (None: none yet, or no account)."""
    with connection.cursor() as cursor:  # one statement, not compiled through the ORM each time
        cursor.execute(_generation_sql()[0], [user_id])
        row = cursor.fetchone()
    return row[0] if row and row[0] else None


def generation(user_id: int) -> str:
    """The account's generation, made when there is none (an account gets one when it is
    created). Read it before checking the account: a change committed after the check then
    shows as a new generation."""
    token = generation_seen(user_id)
    if token is None:
        User.objects.filter(pk=user_id, socket_generation="").update(
            socket_generation=secrets.token_hex(8)
        )
        token = generation_seen(user_id)
    return token or ""  # no account: every action checks again (and is refused)


def account_changed(user_id: int, *, ended_session: str | None = None) -> None:
    """The account changed (call it after commit): a new generation, and every socket of the
    user checks its standing again. `ended_session`: a session that just logged out."""
    if ended_session:
        cache.set(_ended_key(ended_session), True, settings.SESSION_COOKIE_AGE)
    User.objects.filter(pk=user_id).update(socket_generation=secrets.token_hex(8))
    group_send(user_group_name(user_id), {"type": "account.changed"})


# --- the check made inside an action's own statement ------------------------------------------


@dataclass
class Guard:
    """A socket's check of its account, offered to an action that can make it inside its own
    statement (`sql`, `params`: a count that is 1 while the generation is the one checked)."""

    user_id: int
    generation: str
    check: Callable[[], None]
    settled: bool = False

    @property
    def sql(self) -> str:
        return _generation_sql()[1]

    @property
    def params(self) -> list[Any]:
        return [self.user_id, self.generation]


_offered = threading.local()


@contextmanager
def offer_guard(user_id: int, generation: str, check: Callable[[], None]) -> Iterator[Guard]:
    """While an action runs: its account check, not yet made (`check` makes it)."""
    guard = Guard(user_id, generation, check)
    _offered.guard = guard
    try:
        yield guard
    finally:
        _offered.guard = None
    if not guard.settled:  # it returned without comparing or checking: a bug, never a pass
        raise RuntimeError("an action offered the account check neither made nor settled it")


def offered_guard() -> Guard | None:
    """The account check offered to the running action, unless it is already settled."""
    guard: Guard | None = getattr(_offered, "guard", None)
    return guard if guard is not None and not guard.settled else None


def guard_held(guard: Guard) -> None:
    """The action's statement compared the generation, and it was still the one checked."""
    guard.settled = True


def settle() -> None:
    """Before an action does anything else: make the offered account check now, unless its own
    statement already made it (nothing outside a socket's action)."""
    guard = offered_guard()
    if guard is not None:
        guard.settled = True
        guard.check()


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
    if cache.get(_changing_key(session_key)):
        # This session is changing the password this moment: it stays logged in (its request
        # gives it a new key and hash, then `session_moved` is announced and checked again).
        user = User.objects.filter(pk=user_id).first()
        if user is None:
            return None, logged_out
    else:
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


def standing_followed(
    user_id: int, session_key: str | None, session: dict[str, Any] | None = None
) -> tuple[str | None, User | None, Refusal | None]:
    """`standing` of the session where it is now: (its key now, the account, why not). A session
    that moves while it is being checked (its password change ends between the follow and the
    check, and its old key is gone) is checked again at its new key. `session`: the data read
    with `session_key`, used only while the session has not moved."""
    key = session_followed(session_key)
    data = session if key == session_key else None
    for _again in range(4):
        user, refusal = standing(user_id, key, data)
        if refusal is None or refusal.code != CLOSE_NOT_LOGGED_IN:
            return key, user, refusal
        moved = session_followed(key)
        if moved == key:
            return key, user, refusal
        key, data = moved, None
    return key, user, refusal
