"""Social services: the only code that writes follows, challenges and the challenge preference.

Each function is one short transaction. Answers to a challenge are compare-and-sets on its
status (and, for an accept, on its deadline), so a double accept seats the players once and an
accept racing a decline or a withdrawal has one winner.

Expiry is decided where a challenge is read, not by a beat task: nothing has to happen at the
moment a challenge runs out (no seat or money is held for it), so "pending and not yet past
`expires_at`" is the whole rule, checked inside the accept's compare-and-set. Rows still marked
pending past their time are marked expired when a list of challenges is read
(`challenges_expire`), so the history reads right; the pages count down from `expires_at`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.services import AccountNotAllowed, ensure_may_play, refusal_reason
from dominoes_site import limits
from engine import SettingsError
from ledger.services import LedgerError, StakeSpec
from social.models import Challenge, ChallengesFrom, Follow, SocialSettings
from social.notices import notify_users
from tables import services as tables
from tables.models import Table

#: How long a challenge waits for its answer.
CHALLENGE_SECONDS = 120
#: How many challenges one player may have waiting for an answer at once.
MAX_PENDING_SENT = 5
#: The challenged player's seat (seat 0 is the challenger's, the host's).
CHALLENGED_SEAT = 1
#: How many challenges one player may send (counting refused ones) a minute, and to one player
#: in ten minutes.
SENDS_PER_MINUTE = 10
SENDS_TO_ONE_PER_10_MINUTES = 5


class SocialError(Exception):
    """A refused request: a stable `code` and words for the player. Nothing changed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# --- follows (friends) ---------------------------------------------------------------------------


def follow(*, follower: User, followed: User) -> bool:
    """`follower` follows `followed` (their friend from now on); False if they already did."""
    if follower.pk == followed.pk:
        raise SocialError("follow_self", _("You can't follow yourself."))
    if followed.is_house_player:
        raise SocialError("house_player", _("House players can't be followed."))
    try:
        with transaction.atomic():
            _follow, created = Follow.objects.get_or_create(follower=follower, followed=followed)
    except IntegrityError:  # the same follow made at the same moment
        return False
    return created


def unfollow(*, follower: User, followed: User) -> bool:
    """Stop following; False if `follower` did not follow `followed`."""
    deleted, _rows = Follow.objects.filter(follower=follower, followed=followed).delete()
    return bool(deleted)


def is_following(follower_id: int, followed_id: int) -> bool:
    return Follow.objects.filter(follower_id=follower_id, followed_id=followed_id).exists()


# --- the challenge preference --------------------------------------------------------------------


def challenges_from(user: User) -> str:
    row = SocialSettings.objects.filter(user=user).values_list("challenges_from", flat=True)
    return row.first() or ChallengesFrom.EVERYONE


def challenges_from_set(*, user: User, value: str) -> None:
    if value not in ChallengesFrom.values:
        raise SocialError("bad_choice", _("Choose who may challenge you from the list."))
    SocialSettings.objects.update_or_create(user=user, defaults={"challenges_from": value})


def games_watchable(user: User) -> bool:
    row = SocialSettings.objects.filter(user=user).values_list("games_watchable", flat=True)
    value = row.first()
    return True if value is None else value


def games_watchable_set(*, user: User, value: bool) -> None:
    SocialSettings.objects.update_or_create(user=user, defaults={"games_watchable": bool(value)})


def bots_rated(user: User) -> bool:
    """Whether `user` agrees to rated games with bot accounts (off unless they turn it on)."""
    row = SocialSettings.objects.filter(user=user).values_list("bots_rated", flat=True)
    return bool(row.first())


def bots_rated_set(*, user: User, value: bool) -> None:
    SocialSettings.objects.update_or_create(user=user, defaults={"bots_rated": bool(value)})


def rated_bot_refusal(asker: User, challenger: User, challenged: User) -> SocialError | None:
    """Why a rated challenge between these two may not be (sent, or accepted by `asker`), or
    None. A bot account plays rated games against bots, and against people who let bots
    challenge them to rated games (`bots_rated`), whoever of the two challenges: the person's
    setting is their consent to rated games with bots. A casual challenge is never refused for
    it. (docs/api.md, "Bot accounts".)"""
    if bool(challenger.bot) == bool(challenged.bot):
        return None
    person = challenged if challenger.bot else challenger
    if bots_rated(person):
        return None
    if asker.pk == person.pk:
        return SocialError(
            "bot_unrated",
            _(
                "Rated games against bot accounts are off in your challenge settings: turn on "
                "“Let bots challenge me to rated games”, or make the challenge casual."
            ),
        )
    return SocialError(
        "bot_unrated",
        _(
            "%(name)s doesn't play rated games against bot accounts: challenge them to a "
            "casual game."
        )
        % {"name": person.display_name},
    )


# --- challenges ----------------------------------------------------------------------------------


class _DryRun(Exception):
    """Raised to roll back a table opened only to see whether it could be."""


def challenge_refusal(challenger: User, challenged: User) -> SocialError | None:
    """Why `challenger` may not challenge `challenged` at all (before any settings), or None."""
    if challenger.pk == challenged.pk:
        return SocialError("challenge_self", _("You can't challenge yourself."))
    if challenged.is_house_player:
        return SocialError(
            "house_player",
            _("House players don't take challenges: start a Practice table to play them."),
        )
    name = challenged.display_name
    if refusal_reason(challenged) is not None:  # never say why: that is theirs
        return SocialError("unavailable", _("%(name)s can't play at the moment.") % {"name": name})
    return _preference_refusal(
        name, challenges_from(challenged), lambda: is_following(challenged.pk, challenger.pk)
    )


def _preference_refusal(
    name: str, preference: str, follows_challenger: Callable[[], bool]
) -> SocialError | None:
    if preference == ChallengesFrom.NOBODY:
        return SocialError("refuses_all", _("%(name)s doesn't take challenges.") % {"name": name})
    if preference == ChallengesFrom.FRIENDS and not follows_challenger():
        return SocialError(
            "refuses_strangers",
            _("%(name)s takes challenges only from players they follow.") % {"name": name},
        )
    return None


def preference_refusals(challenger: User, players: list[User]) -> dict[int, str]:
    """For a list of players (online now): the words of each one's refusal of challenges from
    `challenger` by their preference, in two queries; players who would take one are absent.
    (The rest of `challenge_refusal` is for the form: a list shows only people who may play.)"""
    ids = [p.pk for p in players]
    preferences = dict(
        SocialSettings.objects.filter(user_id__in=ids).values_list("user_id", "challenges_from")
    )
    fans = set(
        Follow.objects.filter(follower_id__in=ids, followed=challenger).values_list(
            "follower_id", flat=True
        )
    )
    refusals = {}
    for player in players:
        refusal = _preference_refusal(
            player.display_name,
            preferences.get(player.pk, ChallengesFrom.EVERYONE),
            lambda player=player: player.pk in fans,
        )
        if refusal is not None:
            refusals[player.pk] = refusal.message
    return refusals


def _stake_of(challenge: Challenge) -> StakeSpec | None:
    if challenge.stake_dollars:
        return StakeSpec(dollars=challenge.stake_dollars)
    if challenge.stake_bundle:
        return StakeSpec(bundle=tuple((int(g), int(q)) for g, q in challenge.stake_bundle))
    return None


def _table_open(challenge: Challenge, *, seat_challenged: bool = True) -> Table:
    """The challenge's table: the challenger hosts it in seat 0, the challenged sits in seat 1
    (unless `seat_challenged` is false: a trial of the challenger's side alone).

    The challenger's own refusals (settings, stake, account) pass through as the tables and
    ledger raise them; the challenged player's become a `SocialError` (`cannot_cover`,
    `cannot_sit`): it is shown to the challenged player, the challenger is told no more than
    that the challenge failed (not their balance, nor why they can't sit)."""
    table = tables.table_create(
        host=challenge.challenger,
        mode=challenge.mode,
        private=challenge.private,
        on_leave=challenge.on_leave,
        stake=_stake_of(challenge),
        rated=challenge.rated,
        **challenge.options,
    )
    if not seat_challenged:
        return table
    try:
        tables.seat_take(table_id=table.pk, user=challenge.challenged, number=CHALLENGED_SEAT)
    except tables.TableError as exc:
        if exc.code == "cannot_cover":
            raise SocialError("cannot_cover", exc.message) from exc
        raise SocialError("cannot_sit", exc.message) from exc
    return table


def _sending_refusal(challenger: User, challenged: User) -> SocialError | None:
    """Too many challenges sent lately (every send counts, refused or not): by this player, or
    by this player to this one."""
    if not limits.hit(f"challenge:{challenger.pk}", SENDS_PER_MINUTE, 60):
        return SocialError(
            "challenge_rate",
            _("You are sending challenges too fast: wait a minute and try again."),
        )
    if not limits.hit(
        f"challenge:{challenger.pk}:{challenged.pk}", SENDS_TO_ONE_PER_10_MINUTES, 600
    ):
        return SocialError(
            "challenge_rate",
            _("You have challenged %(name)s often lately: wait a few minutes and try again.")
            % {"name": challenged.display_name},
        )
    return None


def challenge_send(
    *,
    challenger: User,
    challenged: User,
    mode: str,
    options: dict[str, Any],
    on_leave: str = "wait",
    private: bool = True,
    rated: bool = True,
    stake: StakeSpec | None = None,
    now: datetime | None = None,
) -> Challenge:
    """Challenge a player to a table with these settings (the create form's cleaned options).

    Refused, with words for the challenger, when they sent too many challenges lately
    (`challenge_rate`), when the challenged player refuses challenges from them, when the
    challenger could not open such a table now (it is opened and rolled back to see: the
    tables' and ledger's own rules), or when the challenger already has this player, or
    `MAX_PENDING_SENT` players, waiting. Whether the challenged player can cover the stake or
    sit is not asked here: an answer would tell the challenger about their balance (halving the
    stake finds it). The accept asks, and a challenge they can't take ends `failed`. Raises
    SocialError, or the tables' and ledger's errors about the challenger's own settings
    (SettingsError, LedgerError, AccountNotAllowed)."""
    ensure_may_play(challenger)
    refusal = _sending_refusal(challenger, challenged) or challenge_refusal(challenger, challenged)
    if refusal is None and rated:
        refusal = rated_bot_refusal(challenger, challenger, challenged)
    if refusal is not None:
        raise refusal
    now = now or timezone.now()
    spec = stake if stake is not None and not stake.empty else None
    challenge = Challenge(
        challenger=challenger,
        challenged=challenged,
        mode=mode,
        options=options,
        on_leave=on_leave,
        private=private,
        rated=rated,
        stake_dollars=spec.dollars if spec else 0,
        stake_bundle=[list(item) for item in spec.bundle] if spec else [],
        created_at=now,
        expires_at=now + timedelta(seconds=CHALLENGE_SECONDS),
    )
    with transaction.atomic():
        challenges_expire(now=now, users=[challenger.pk])
        waiting = Challenge.objects.filter(challenger=challenger, status=Challenge.Status.PENDING)
        if waiting.filter(challenged=challenged).exists():
            raise SocialError(
                "already_pending",
                _("You already challenged %(name)s: wait for the answer, or withdraw it.")
                % {"name": challenged.display_name},
            )
        if waiting.count() >= MAX_PENDING_SENT:
            raise SocialError(
                "too_many",
                _("You have %(n)d challenges waiting for an answer: withdraw one first.")
                % {"n": MAX_PENDING_SENT},
            )
        try:
            with transaction.atomic():
                _table_open(challenge, seat_challenged=False)
                raise _DryRun
        except _DryRun:
            pass
        try:
            with transaction.atomic():
                challenge.save()
        except IntegrityError as exc:  # the same challenge sent twice at once
            raise SocialError(
                "already_pending",
                _("You already challenged %(name)s: wait for the answer, or withdraw it.")
                % {"name": challenged.display_name},
            ) from exc
        notify_users(
            [
                (
                    challenged.pk,
                    "challenge",
                    {
                        "challenge": challenge.pk,
                        "from": challenger.display_name,
                        "expires_at": _millis(challenge.expires_at),
                        "card_url": reverse("social:challenge_card", args=[challenge.pk]),
                    },
                )
            ]
        )
    return challenge


def _millis(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def challenges_expire(*, now: datetime | None = None, users: list[int] | None = None) -> int:
    """Mark expired every challenge still pending past its time (of `users`, sent or received,
    when given). Reading code never needs this to be right: see the module's docstring."""
    now = now or timezone.now()
    rows = Challenge.objects.filter(status=Challenge.Status.PENDING, expires_at__lte=now)
    if users is not None:
        rows = rows.filter(Q(challenger_id__in=users) | Q(challenged_id__in=users))
    return rows.update(status=Challenge.Status.EXPIRED)


def _answered_refusal(challenge_id: int, user: User, role: str, now: datetime) -> SocialError:
    """Why an answer found the challenge not pending (the compare-and-set matched nothing)."""
    challenge = Challenge.objects.filter(pk=challenge_id).first()
    if challenge is None or user.pk not in (challenge.challenger_id, challenge.challenged_id):
        return SocialError("no_challenge", _("There is no such challenge."))
    status = challenge.status
    if status == Challenge.Status.PENDING and challenge.expires_at <= now:
        status = Challenge.Status.EXPIRED
    messages = {
        Challenge.Status.PENDING: _("Only the challenged player can answer this challenge.")
        if role == "challenged"
        else _("Only the player who sent this challenge can withdraw it."),
        Challenge.Status.ACCEPTED: _("This challenge was already accepted."),
        Challenge.Status.DECLINED: _("This challenge was declined."),
        Challenge.Status.WITHDRAWN: _("This challenge was withdrawn."),
        Challenge.Status.EXPIRED: _("This challenge has expired: nobody answered in time."),
        Challenge.Status.FAILED: _("This challenge could not be seated."),
    }
    return SocialError(f"challenge_{status}", str(messages[Challenge.Status(status)]))


def _answer(challenge_id: int, user: User, role: str, status: str, now: datetime) -> Challenge:
    """Compare-and-set: a pending, unexpired challenge in which `user` has `role` takes
    `status`. Raises the SocialError that explains why not."""
    claimed = Challenge.objects.filter(
        pk=challenge_id, status=Challenge.Status.PENDING, expires_at__gt=now, **{role: user}
    ).update(status=status, answered_at=now)
    if not claimed:
        raise _answered_refusal(challenge_id, user, role, now)
    return Challenge.objects.select_related("challenger", "challenged").get(pk=challenge_id)


def challenge_accept(*, challenge_id: int, user: User, now: datetime | None = None) -> Table:
    """Accept: both are seated at a new table (the challenger hosts it) and both pages are sent
    there (a notice to each). Only one accept wins; the others are told it was accepted. If the
    table cannot be opened any more (a stake no longer covered), the challenge ends `failed`, both
    are told why, and SocialError is raised."""
    now = now or timezone.now()
    failure: SocialError | None = None
    with transaction.atomic():
        challenge = _answer(challenge_id, user, "challenged", Challenge.Status.ACCEPTED, now)
        if challenge.rated:  # the person's consent may have changed since the challenge came
            refusal = rated_bot_refusal(user, challenge.challenger, challenge.challenged)
            if refusal is not None:
                raise refusal  # rolls the accept back: the challenge still waits
        try:
            with transaction.atomic():
                table = _table_open(challenge)
        except SocialError as exc:
            failure = exc
        except (SettingsError, LedgerError, AccountNotAllowed, tables.TableError) as exc:
            # the challenger's side: their stake, their account; the challenged is told no more
            failure = SocialError(
                "challenger_cannot_sit",
                _("%(name)s can't open this table at the moment.")
                % {"name": challenge.challenger.display_name},
            )
            failure.__cause__ = exc
        if failure is not None:
            Challenge.objects.filter(pk=challenge.pk).update(
                status=Challenge.Status.FAILED, failure=failure.code
            )
            card = reverse("social:challenge_card", args=[challenge.pk])
            notify_users(
                [
                    (
                        challenge.challenger_id,
                        "challenge_failed",
                        {"challenge": challenge.pk, "card_url": card},
                    ),
                    (challenge.challenged_id, "challenge_closed", {"challenge": challenge.pk}),
                ]
            )
        else:
            Challenge.objects.filter(pk=challenge.pk).update(table=table)
            data = {
                "challenge": challenge.pk,
                "url": table.get_absolute_url(),
                "card_url": reverse("social:challenge_card", args=[challenge.pk]),
            }
            notify_users(
                [
                    (challenge.challenger_id, "challenge_accepted", data),
                    (challenge.challenged_id, "challenge_accepted", data),
                ]
            )
    if failure is not None:
        raise failure
    return table


def challenge_decline(*, challenge_id: int, user: User, now: datetime | None = None) -> Challenge:
    """The challenged player says no; the challenger is told."""
    now = now or timezone.now()
    with transaction.atomic():
        challenge = _answer(challenge_id, user, "challenged", Challenge.Status.DECLINED, now)
        card = reverse("social:challenge_card", args=[challenge.pk])
        notify_users(
            [
                (
                    challenge.challenger_id,
                    "challenge_declined",
                    {"challenge": challenge.pk, "card_url": card},
                ),
                (challenge.challenged_id, "challenge_closed", {"challenge": challenge.pk}),
            ]
        )
    return challenge


def challenge_withdraw(*, challenge_id: int, user: User, now: datetime | None = None) -> Challenge:
    """The challenger takes it back; the challenged player's notice closes."""
    now = now or timezone.now()
    with transaction.atomic():
        challenge = _answer(challenge_id, user, "challenger", Challenge.Status.WITHDRAWN, now)
        notify_users([(challenge.challenged_id, "challenge_closed", {"challenge": challenge.pk})])
    return challenge
