"""When an account changes in a way that may end its sockets' right to act, they check again.

A log-out ends that session's sockets; a new password, `is_active`, the age status, the date of
birth or the time zone ("today" for the 18+ rule is the player's own date), or the account
deleted: every socket of the account checks again once the change is committed
(dominoes_site/user_sockets.py). Changes made with `QuerySet.update()` send no signal: such code
calls `account_changed_on_commit` itself (as `age_status_set` does).
"""

from __future__ import annotations

from typing import Any

from allauth.account.signals import password_changed, password_set
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.signals import user_logged_out
from django.db.models.signals import post_delete, post_init, post_save
from django.dispatch import receiver
from django.http import HttpRequest

from accounts.models import User
from dominoes_site.user_sockets import account_changed, account_changed_on_commit, session_moved

#: The fields whose change may end an account's right to act.
STANDING_FIELDS = ("password", "is_active", "age_status", "date_of_birth", "time_zone")


def _standing_of(user: User) -> tuple[Any, ...]:
    # From __dict__: a field left out of the query (.only()) is not fetched for this.
    return tuple(user.__dict__.get(name) for name in STANDING_FIELDS)


@receiver(post_init, sender=User, dispatch_uid="accounts.standing_remember")
def standing_remember(sender: type[User], instance: User, **kwargs: Any) -> None:
    instance._standing_saved = _standing_of(instance)  # type: ignore[attr-defined]


@receiver(post_save, sender=User, dispatch_uid="accounts.standing_changed")
def standing_changed(
    sender: type[User], instance: User, created: bool, raw: bool, **kwargs: Any
) -> None:
    now = _standing_of(instance)
    before = getattr(instance, "_standing_saved", None)
    instance._standing_saved = now  # type: ignore[attr-defined]
    if not created and not raw and now != before:
        account_changed_on_commit(instance.pk)


@receiver(post_delete, sender=User, dispatch_uid="accounts.account_deleted")
def account_deleted(sender: type[User], instance: User, **kwargs: Any) -> None:
    account_changed_on_commit(instance.pk)


@receiver(user_logged_out, dispatch_uid="accounts.logged_out")
def logged_out(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    """Sent before Django empties the session: the session is marked ended first, so that a
    socket checking in between does not find it still logged in."""
    if user is None or not getattr(user, "pk", None):
        return
    session = getattr(request, "session", None)
    account_changed(user.pk, ended_session=getattr(session, "session_key", None))


@receiver(password_changed, dispatch_uid="accounts.password_changed")
@receiver(password_set, dispatch_uid="accounts.password_set")
def password_changed_here(sender: Any, request: HttpRequest, user: Any, **kwargs: Any) -> None:
    """After a password changed on the site: the session that changed it has its new key and
    hash (Django's `update_session_auth_hash`). It is saved now, not at the response, its
    sockets are told where it went, and every socket of the account checks again: this
    session's stay open, the other sessions' close (4001)."""
    old_key = getattr(request, "_session_before_password", None)
    if not old_key:
        return
    session = request.session
    kept = session.get(SESSION_KEY) == str(user.pk)
    if kept:
        session.save()
    session_moved(old_key, session.session_key if kept else None)
    account_changed_on_commit(user.pk)
