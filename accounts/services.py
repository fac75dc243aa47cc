"""Accounts services: the age rules, age-status changes and the daily age-gate sweep.

Every door of the house (pages, sockets, seating, registration) asks `user_may_play` or calls
`ensure_may_play`. Status changes go through `age_status_set`, which records who, when and why.
"""

from __future__ import annotations

import datetime as dt
import logging
import zoneinfo
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import AgeStatus, AgeStatusChange, User

log = logging.getLogger(__name__)

OLDEST_PLAUSIBLE_AGE = 120


class AccountNotAllowed(PermissionDenied):
    """The account may not play: not logged in, suspended, inactive or under age."""

    def __init__(self, message: str, code: str = "not_allowed") -> None:
        super().__init__(message)
        self.message = message
        self.code = code


def age_on(date_of_birth: dt.date, day: dt.date) -> int:
    """Whole years of age on `day`.

    A birthday is reached when the (month, day) of `day` is not before that of the birth, so
    someone born on 29 February turns a year older on 1 March in a common year.

    >>> age_on(dt.date(2008, 2, 29), dt.date(2026, 2, 28))
    17
    >>> age_on(dt.date(2008, 2, 29), dt.date(2026, 3, 1))
    18
    """
    before_birthday = (day.month, day.day) < (date_of_birth.month, date_of_birth.day)
    return day.year - date_of_birth.year - int(before_birthday)


def local_today(time_zone: str | None = None) -> dt.date:
    """Today's date in the given IANA time zone (UTC when missing or unknown)."""
    try:
        tz = zoneinfo.ZoneInfo(time_zone or "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        tz = zoneinfo.ZoneInfo("UTC")
    return timezone.now().astimezone(tz).date()


def is_adult(date_of_birth: dt.date | None, day: dt.date) -> bool:
    return date_of_birth is not None and age_on(date_of_birth, day) >= settings.MINIMUM_AGE


def user_group_name(user_id: int) -> str:
    """The channel-layer group holding every socket of one user."""
    return f"user.{user_id}"


def refusal_reason(user: Any) -> str | None:
    """Why this user may not play, in words for them; None when they may."""
    if user is None or not getattr(user, "is_authenticated", False):
        return _("Please log in first.")
    if not user.is_active:
        return _("This account is not active.")
    if user.age_status == AgeStatus.SUSPENDED:
        return _(
            "Your account is suspended while we check your age. Nothing you own has been "
            "removed. Please contact the house staff."
        )
    if not is_adult(user.date_of_birth, local_today(user.time_zone)):
        return _("Dominologist is for adults only (18+).")
    return None


def user_may_play(user: Any) -> bool:
    return refusal_reason(user) is None


def ensure_may_play(user: Any) -> None:
    """Raise `AccountNotAllowed` unless the user is an active adult account."""
    reason = refusal_reason(user)
    if reason is not None:
        raise AccountNotAllowed(reason)


@dataclass(frozen=True)
class AgeChangeResult:
    changed: bool
    change: AgeStatusChange | None


def age_status_set(
    *,
    user: User,
    status: str,
    reason: str,
    changed_by: User | None,
    expected_status: str | None = None,
) -> AgeChangeResult:
    """Move a user to `status`, recording who (None: the age-gate job), when and why.

    The update is a compare-and-set on the status the caller saw (`expected_status`, default
    the user's current status), so two staff members or two job runs never record the same
    change twice. Once the change is committed the user's sockets check again: a suspended
    account's close (dominoes_site/user_sockets.py).
    """
    if status not in AgeStatus.values:
        raise ValueError(f"Unknown age status {status!r}.")
    reason = (reason or "").strip()
    if not reason:
        raise ValueError("A reason is required to change an age status.")
    old = expected_status if expected_status is not None else user.age_status
    if old == status:
        return AgeChangeResult(False, None)
    now = timezone.now()
    with transaction.atomic():
        updated = User.objects.filter(pk=user.pk, age_status=old).update(
            age_status=status, age_status_changed_at=now, needs_age_review=False
        )
        if not updated:
            return AgeChangeResult(False, None)
        change = AgeStatusChange.objects.create(
            user=user, old_status=old, new_status=status, changed_by=changed_by, reason=reason
        )
        # Every socket of the account checks again once this is committed (a suspended one
        # closes with 4003).
        from dominoes_site.user_sockets import account_changed_on_commit

        account_changed_on_commit(user.pk)
    user.age_status = status
    user.age_status_changed_at = now
    user.needs_age_review = False
    log.info("age status of user %s: %s -> %s (%s)", user.pk, old, status, reason)
    return AgeChangeResult(True, change)


def report_underage(*, user: User, reported_by: User | None, reason: str) -> None:
    """Flag an account as reported underage and suspend it at once, as staff's Suspend does
    (the change is recorded with who and why, and every open socket of the account closes with
    4003 once it is committed); it waits in the age-review queue. The daily job would suspend a
    flagged account too, but a player reported underage must not play until then."""
    reason = (reason or "").strip() or "no reason given"
    with transaction.atomic():
        current = User.objects.select_for_update().get(pk=user.pk)
        User.objects.filter(pk=user.pk).update(reported_underage=True)
        if current.age_status != AgeStatus.SUSPENDED:
            age_status_set(
                user=user,
                status=AgeStatus.SUSPENDED,
                reason=f"Reported underage: {reason}",
                changed_by=reported_by,
                expected_status=current.age_status,
            )
        User.objects.filter(pk=user.pk).update(needs_age_review=True)
    user.reported_underage = True
    user.needs_age_review = True
    log.info("user %s reported underage by %s: %s", user.pk, reported_by, reason)


def age_gate_failure(user: User, today: dt.date | None = None) -> str | None:
    """The reason the age-gate job would suspend this account, or None."""
    day = today or local_today(user.time_zone)
    if not is_adult(user.date_of_birth, day):
        return "Under 18 by the date of birth on the account."
    if user.reported_underage:
        return "Reported underage; suspended until staff review it."
    within = settings.AGE_VERIFY_WITHIN_DAYS
    if (
        within is not None
        and user.age_status == AgeStatus.DECLARED
        and user.date_joined.date() + dt.timedelta(days=within) < day
    ):
        return f"Age not verified within {within} days of sign-up."
    return None


def age_gate_sweep(*, today: dt.date | None = None) -> list[int]:
    """Re-check every active, unsuspended account; suspend those that fail. Returns their ids.

    Idempotent and safe to run twice at once: each suspension is a compare-and-set on the
    status, so a second run (or a concurrent one) finds nothing left to do.
    """
    suspended: list[int] = []
    candidates = User.objects.filter(is_active=True).filter(~Q(age_status=AgeStatus.SUSPENDED))
    for user in candidates.iterator(chunk_size=500):
        reason = age_gate_failure(user, today)
        if reason is None:
            continue
        result = age_status_set(
            user=user,
            status=AgeStatus.SUSPENDED,
            reason=reason,
            changed_by=None,
            expected_status=user.age_status,
        )
        if result.changed:
            User.objects.filter(pk=user.pk).update(needs_age_review=True)
            suspended.append(user.pk)
    return suspended


# --- closed accounts' e-mails (docs/privacy.md) ------------------------------------------------


def email_digest(email: str) -> str:
    """A keyed hash of an e-mail address (case and surrounding spaces ignored): the house can
    tell the address again when someone signs up with it, but cannot read it back."""
    from django.utils.crypto import salted_hmac

    normal = (email or "").strip().lower()
    return salted_hmac("accounts.closed-email", normal, algorithm="sha256").hexdigest()


def email_wait() -> dt.timedelta:
    return dt.timedelta(days=settings.CLOSED_EMAIL_WAIT_DAYS)


def email_closed_remember(email: str, closed_at: dt.datetime) -> None:
    """Keep the keyed hash of a closed account's e-mail with the closing time."""
    from accounts.models import ClosedEmail

    ClosedEmail.objects.update_or_create(
        digest=email_digest(email), defaults={"closed_at": closed_at}
    )


def email_blocked_until(email: str, now: dt.datetime | None = None) -> dt.datetime | None:
    """When this e-mail may sign up again, if an account with it was closed less than
    `CLOSED_EMAIL_WAIT_DAYS` ago; None when it may now."""
    from accounts.models import ClosedEmail

    now = now or timezone.now()
    row = ClosedEmail.objects.filter(digest=email_digest(email)).first()
    if row is None:
        return None
    until = row.closed_at + email_wait()
    return until if until > now else None


def closed_emails_forget(now: dt.datetime | None = None) -> int:
    """Remove the hashes whose waiting time is over; returns how many."""
    from accounts.models import ClosedEmail

    now = now or timezone.now()
    deleted, _rows = ClosedEmail.objects.filter(closed_at__lte=now - email_wait()).delete()
    return deleted
