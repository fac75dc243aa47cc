"""Closing an account, by its player or by staff on the player's request (docs/privacy.md).

Irreversible. In order:

1. One transaction, on the locked account row: refused while the player sits in a game in
   progress (a game involves other players: finish it, or staff void it first). Otherwise the
   account is made inactive with an unusable password and `closed_at`, its personal data erased
   (e-mail, date of birth, time zone, language; the display name becomes "Closed account #<id>"),
   its e-mail addresses, follows (both ways), challenge preference, chat lines, coach reviews
   and hints, and puzzle tries and puzzle rating deleted, the keyed hash of its e-mail kept
   with the closing time (it may sign up again after `CLOSED_EMAIL_WAIT_DAYS`), and, when
   staff closed it, a `StaffAction` recording who, when and why. Once committed, every socket
   of the account checks again and closes (`account_changed`: an inactive account is refused).
2. Then what it had open is withdrawn through each app's own services, as the player could have
   done: the quick-pairing wait, pending challenges (sent: withdrawn; received: declined), seats
   at tables whose game has not started, open tables it hosts (called off), tournament entries
   (before the start the fee comes back through the ledger; after it, the entry forfeits, as any
   withdrawal), club memberships and requests to join (a club it alone led gets its
   longest-standing member as leader, or is left without members). A withdrawal that fails is
   logged and left to the sweeps that withdraw accounts which may no longer play (club pages
   and leaderboards list active accounts only).

Kept, with the name replaced wherever it shows: games and their records, ledger accounts and
postings (nothing is moved: whatever play money the account holds stays on the books under the
closed account, and nobody can spend or receive it), ratings, workouts, tournament results,
reports (staff's moderation record) and age-check history.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import ProfileVisibility, User
from accounts.services import email_closed_remember
from dominoes_site.user_sockets import account_changed_on_commit

log = logging.getLogger(__name__)


class CloseRefused(Exception):
    """The account cannot be closed now: `message` says why, in words for the reader."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class Closing:
    """What a closing did, for the page, the admin message and the staff record."""

    user_id: int
    withdrawn: dict[str, list[Any]] = field(default_factory=dict)

    def add(self, what: str, item: Any) -> None:
        self.withdrawn.setdefault(what, []).append(item)


def tables_in_play(user: Any) -> list[int]:
    """Tables where the player sits in a game in progress."""
    from tables.models import Table

    return list(
        Table.objects.filter(status=Table.Status.PLAYING, seats__user=user)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def close_refusal(user: Any, *, by: Any = None) -> CloseRefused | None:
    """Why this account cannot be closed now, or None."""
    if user.closed_at is not None:
        return CloseRefused("closed", _("This account is already closed."))
    if user.house_level:
        return CloseRefused("house", _("A house player is not a person's account."))
    if user.is_staff or user.is_superuser:
        return CloseRefused(
            "staff",
            _("A staff account is closed only after its staff rights are removed in admin."),
        )
    playing = tables_in_play(user)
    if playing:
        tables = ", ".join(str(t) for t in playing)
        if by is not None and by.pk != user.pk:
            return CloseRefused(
                "in_game",
                _(
                    "The player is in a game in progress (table %(tables)s). Void the game "
                    "first, or wait until it is over."
                )
                % {"tables": tables},
            )
        return CloseRefused(
            "in_game",
            _(
                "You are in a game in progress (table %(tables)s). Finish it first: the other "
                "players are counting on you."
            )
            % {"tables": tables},
        )
    return None


def placeholder_email(pk: int) -> str:
    """A closed account's e-mail: unique, and no address anyone can receive at (RFC 2606)."""
    return f"closed-{pk}@closed.invalid"


def account_close(*, user: Any, by: Any, reason: str = "", now: Any = None) -> Closing:
    """Close `user`'s account (see the module). `by`: the player themself, or the staff member
    acting on their request (then `reason` is required and recorded). Raises CloseRefused."""
    staff_act = by is not None and by.pk != user.pk
    reason = (reason or "").strip()
    if staff_act and not reason:
        raise CloseRefused("no_reason", _("Say why, e.g. how the player asked for it."))
    if staff_act and not (by.is_active and by.is_staff):
        raise CloseRefused("not_staff", _("Only staff can close another player's account."))
    now = now or timezone.now()
    with transaction.atomic():
        locked = User.objects.select_for_update().filter(pk=user.pk).first()
        if locked is None:
            raise CloseRefused("no_account", _("There is no such account."))
        refusal = close_refusal(locked, by=by)
        if refusal is not None:
            raise refusal
        _erase(locked, now)
        if staff_act:
            from staff.models import StaffAction

            StaffAction.objects.create(
                kind=StaffAction.Kind.ACCOUNT_CLOSE,
                by=by,
                player=locked,
                reason=reason,
                detail={"closed_at": now.isoformat()},
            )
        account_changed_on_commit(locked.pk)
    log.info("account %s closed by %s", user.pk, "the player" if not staff_act else by.pk)
    closing = Closing(user_id=locked.pk)
    _withdraw_everything(locked, closing, now)
    if staff_act:
        from staff.models import StaffAction

        StaffAction.objects.filter(kind=StaffAction.Kind.ACCOUNT_CLOSE, player=locked).update(
            detail={"closed_at": now.isoformat(), "withdrawn": closing.withdrawn}
        )
    user.refresh_from_db()
    return closing


def _erase(user: User, now: Any) -> None:
    """Inside the closing's transaction: the account inactive, its personal data gone."""
    from allauth.account.models import EmailAddress

    from chat.models import ChatMessage
    from coach.models import Hint, Review
    from puzzles.models import Attempt, Solver
    from social.models import Follow, SocialSettings
    from tables.models import Presence

    email_closed_remember(user.email, now)
    for address in EmailAddress.objects.filter(user=user).values_list("email", flat=True):
        if address.lower() != user.email.lower():
            email_closed_remember(address, now)
    EmailAddress.objects.filter(user=user).delete()
    user.email = placeholder_email(user.pk)
    user.display_name = f"Closed account #{user.pk}"
    user.date_of_birth = None
    user.time_zone = "UTC"
    user.language = ""
    user.profile_visibility = ProfileVisibility.ONLY_ME
    user.needs_age_review = False
    user.is_active = False
    user.last_login = None
    user.closed_at = now
    user.set_unusable_password()
    user.save()
    Follow.objects.filter(follower=user).delete()
    Follow.objects.filter(followed=user).delete()
    SocialSettings.objects.filter(user=user).delete()
    ChatMessage.objects.filter(user=user).delete()
    Review.objects.filter(user=user).delete()
    Hint.objects.filter(user=user).delete()
    Attempt.objects.filter(user=user).delete()
    Solver.objects.filter(user=user).delete()
    Presence.objects.filter(user=user).delete()


def _withdraw_everything(user: User, closing: Closing, now: Any) -> None:
    """After the closing committed: withdraw what the account had open, each through its app's
    own service (each its own transaction, with its own refunds and broadcasts)."""
    steps = (_pool, _challenges, _seats, _hosted, _tournaments, _clubs)
    for step in steps:
        try:
            step(user, closing, now)
        except Exception:  # logged; the sweeps withdraw accounts that may not play
            log.exception("closing account %s: %s failed", user.pk, step.__name__)


def _pool(user: User, closing: Closing, now: Any) -> None:
    from pairing.services import pool_leave

    if pool_leave(user=user, now=now):
        closing.add("pool", True)


def _challenges(user: User, closing: Closing, now: Any) -> None:
    from social.models import Challenge
    from social.services import SocialError, challenge_decline, challenge_withdraw

    pending = Challenge.objects.filter(status=Challenge.Status.PENDING)
    for pk in pending.filter(challenger=user).values_list("pk", flat=True):
        try:
            challenge_withdraw(challenge_id=pk, user=user, now=now)
            closing.add("challenges", pk)
        except SocialError:
            pass  # answered or expired meanwhile
    for pk in pending.filter(challenged=user).values_list("pk", flat=True):
        try:
            challenge_decline(challenge_id=pk, user=user, now=now)
            closing.add("challenges", pk)
        except SocialError:
            pass


def _seats(user: User, closing: Closing, now: Any) -> None:
    from tables.models import Game, Seat
    from tables.services import TableError, seat_leave

    waiting = Seat.objects.filter(user=user, table__games__status=Game.Status.WAITING)
    for table_id in waiting.values_list("table_id", flat=True).distinct():
        try:
            seat_leave(table_id=table_id, user=user)
            closing.add("seats", table_id)
        except TableError:
            pass  # a tournament's seat: its entry is withdrawn below


def _hosted(user: User, closing: Closing, now: Any) -> None:
    from tables import services as tables
    from tables.models import Table

    for table in Table.objects.filter(host=user, status=Table.Status.OPEN):
        run_elsewhere = any(
            guard(table.pk, user.pk, None, "close") is not None for guard in tables.SEAT_GUARDS
        )
        if run_elsewhere:
            continue
        if tables.game_call_off(table_id=table.pk, reason="host_left", waiting_only=True):
            closing.add("tables", table.pk)


def _tournaments(user: User, closing: Closing, now: Any) -> None:
    from django.db.models import Q

    from tournaments.models import Entry, Tournament
    from tournaments.services import TournamentError, entry_withdraw

    live = [
        Tournament.Status.PUBLISHED,
        Tournament.Status.REGISTRATION,
        Tournament.Status.CHECKIN,
        Tournament.Status.RUNNING,
    ]
    entries = Entry.objects.filter(
        Q(player=user) | Q(partner=user),
        withdrawn_at__isnull=True,
        disqualified_at__isnull=True,
        tournament__status__in=live,
    )
    for tournament_id in entries.values_list("tournament_id", flat=True).distinct():
        try:
            entry_withdraw(tournament_id=tournament_id, user=user, now=now)
            closing.add("tournaments", tournament_id)
        except TournamentError:
            pass


def _clubs(user: User, closing: Closing, now: Any) -> None:
    from clubs.services import memberships_end

    for club_id in memberships_end(user=user):
        closing.add("clubs", club_id)
