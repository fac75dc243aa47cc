"""Club services: the only code that writes clubs and memberships.

Each function is one short transaction and changes everything or nothing. Every change to a
club's members first locks the club's row (`select_for_update`; on SQLite every write
transaction is immediate, which serialises them the same way), so two leaders answering the
same request, a leader leaving while another is removed, or the last two leaders leaving at once
are decided one after the other, each on what the other left. Answers are also compare-and-sets
on the membership's row (`requested` → `active`), so a second approval finds nothing to approve
and says so. Founding locks the founder's own row, so one player founding twice at once counts
both clubs against the limit.

Decided (the club page says it for players):
- The founder is the club's first leader. A player may found MAX_CLUBS_FOUNDED clubs in all
  (clubs are never deleted, and their names stay taken: founding many would hoard names).
- Leaders are equals: any leader answers requests, appoints leaders, removes members (other
  leaders too) and edits the club. No one removes themself: they leave.
- The last leader cannot leave while other members remain: they appoint another leader first.
- When the last member leaves, the club remains, empty, under its name; whatever requests were
  waiting are dropped (nobody is left to answer them). The first player to join an empty club
  becomes its leader at once, whatever its policy: there is nobody to approve them.
- Turning a club open leaves its waiting requests to the leaders (approve or decline); a player
  whose request waits may then join at once.
- Closing an account ends its memberships (`memberships_end`): a club whose only leader it was
  gets the longest-standing member as its leader, or is left without members.
"""

from __future__ import annotations

import unicodedata
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.services import refusal_reason
from clubs.models import DESCRIPTION_MAX, NAME_MAX, Club, Membership, Policy, Role, Status
from dominoes_site import limits
from social.notices import notify_users

#: How many clubs one player may found, in all.
MAX_CLUBS_FOUNDED = 3
#: The shortest club name (characters).
NAME_MIN = 3
#: How many requests to join one player may send an hour (to any clubs), and to one club a day
#: (refused ones count): each one tells every leader.
REQUESTS_PER_HOUR = 10
REQUESTS_TO_ONE_PER_DAY = 3


class ClubError(Exception):
    """A refused request: a stable `code`, words for the player and, for a form, the `field`
    they belong to. Nothing changed."""

    def __init__(self, code: str, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field


# --- checks --------------------------------------------------------------------------------------


def _ensure_may_play(user: Any) -> None:
    """Only accounts that may play (active adults, not suspended) found or join clubs."""
    reason = refusal_reason(user)
    if reason is not None:
        raise ClubError("may_not_play", reason)
    if user.is_house_player:
        raise ClubError("house_player", _("House players don't join clubs."))


def name_clean(name: str) -> str:
    """A club's name as stored: spaces trimmed and runs of them made one. Raises ClubError
    (field `name`) for a name too short or too long, without a letter or digit, or with
    characters that are not shown (control characters)."""
    name = " ".join(str(name or "").split())
    if len(name) < NAME_MIN or len(name) > NAME_MAX:
        raise ClubError(
            "bad_name",
            _("A club's name is %(min)d to %(max)d characters long.")
            % {"min": NAME_MIN, "max": NAME_MAX},
            field="name",
        )
    if any(unicodedata.category(c).startswith("C") for c in name):
        raise ClubError(
            "bad_name", _("A club's name can't hold invisible characters."), field="name"
        )
    if not any(c.isalnum() for c in name):
        raise ClubError(
            "bad_name", _("A club's name needs at least one letter or digit."), field="name"
        )
    return name


def _description_clean(description: str) -> str:
    description = str(description or "").strip()
    if len(description) > DESCRIPTION_MAX:
        raise ClubError(
            "bad_description",
            _("A club's description is at most %(max)d characters long.")
            % {"max": DESCRIPTION_MAX},
            field="description",
        )
    return description


def _policy_clean(policy: str) -> str:
    if policy not in Policy.values:
        raise ClubError("bad_policy", _("Choose who may join from the list."), field="policy")
    return str(policy)


def _name_taken(name: str) -> ClubError:
    return ClubError(
        "name_taken",
        _("There is already a club called %(name)s: choose another name.") % {"name": name},
        field="name",
    )


def _slug_free(name: str) -> str:
    """An address for a new club's page: its name in plain letters, numbered if taken."""
    base = slugify(name)[:NAME_MAX].strip("-") or "club"
    taken = set(Club.objects.filter(slug__startswith=base).values_list("slug", flat=True))
    if base not in taken:
        return base
    number = 2
    while f"{base}-{number}" in taken:
        number += 1
    return f"{base}-{number}"


def _locked(club_id: int) -> Club:
    """The club's row, locked until the transaction ends (see the module)."""
    club = Club.objects.select_for_update().filter(pk=club_id).first()
    if club is None:
        raise ClubError("no_club", _("There is no such club."))
    return club


def _membership(club: Club, user_id: int) -> Membership | None:
    return Membership.objects.filter(club=club, user_id=user_id).first()


def _ensure_leader(club: Club, user: Any) -> None:
    mine = _membership(club, user.pk)
    if mine is None or not mine.is_leader:
        raise ClubError("not_leader", _("Only the club's leaders can do that."))


def _member_name(user_id: int) -> str:
    user = User.objects.filter(pk=user_id).first()
    return user.shown_name if user is not None else _("That player")


def _active(club: Club) -> Any:
    return Membership.objects.filter(club=club, status=Status.ACTIVE)


def _card_url(club: Club, about: str) -> str:
    """The notice's card (clubs.views.notice_card), rendered for its reader when it comes."""
    return f"{reverse('clubs:notice_card', args=[club.slug])}?about={about}"


# --- founding and editing ------------------------------------------------------------------------


def club_found(
    *,
    user: User,
    name: str,
    description: str = "",
    policy: str = Policy.OPEN,
    now: datetime | None = None,
) -> Club:
    """Found a club: `user` becomes its first leader. Refused (ClubError) for an account that
    may not play, a name already taken (whatever its capitals) or not valid, and once the player
    has founded MAX_CLUBS_FOUNDED clubs."""
    _ensure_may_play(user)
    name = name_clean(name)
    description = _description_clean(description)
    policy = _policy_clean(policy)
    now = now or timezone.now()
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()
        if Club.objects.filter(founded_by=user).count() >= MAX_CLUBS_FOUNDED:
            raise ClubError(
                "too_many_clubs",
                _("You have founded %(n)d clubs: that is as many as one player may found.")
                % {"n": MAX_CLUBS_FOUNDED},
            )
        club = None
        for _attempt in range(3):
            if Club.objects.filter(name__iexact=name).exists():
                raise _name_taken(name)
            try:
                with transaction.atomic():
                    club = Club.objects.create(
                        name=name,
                        slug=_slug_free(name),
                        description=description,
                        policy=policy,
                        founded_by=user,
                        created_at=now,
                    )
                break
            except IntegrityError:  # the same name, or address, taken at the same moment
                continue
        if club is None:
            raise _name_taken(name)
        Membership.objects.create(
            club=club, user=user, role=Role.LEADER, status=Status.ACTIVE, joined_at=now
        )
    return club


def club_update(*, club_id: int, by: User, description: str, policy: str) -> Club:
    """A leader changes the club's description and who may join (not its name: its page's
    address and every link to it are made from the name)."""
    description = _description_clean(description)
    policy = _policy_clean(policy)
    with transaction.atomic():
        club = _locked(club_id)
        _ensure_leader(club, by)
        club.description = description
        club.policy = policy
        club.save(update_fields=["description", "policy"])
    return club


# --- joining, and the leaders' answers -----------------------------------------------------------


def _request_rate(user: User, club: Club) -> ClubError | None:
    if not limits.hit(f"club-request:{user.pk}", REQUESTS_PER_HOUR, 3600):
        return ClubError(
            "request_rate",
            _("You have asked to join many clubs lately: wait an hour and try again."),
        )
    if not limits.hit(f"club-request:{user.pk}:{club.pk}", REQUESTS_TO_ONE_PER_DAY, 86400):
        return ClubError(
            "request_rate",
            _("You have asked to join %(club)s often today: try again tomorrow.")
            % {"club": club.name},
        )
    return None


def club_join(*, club_id: int, user: User, now: datetime | None = None) -> Membership:
    """Join a club: an open one (or an empty one, which the player then leads) at once; one by
    request sends a request, and every leader is told (a `club_request` notice, whose card has
    the Approve and Decline buttons). A player whose request waits joins at once once the club
    is open."""
    _ensure_may_play(user)
    now = now or timezone.now()
    with transaction.atomic():
        club = _locked(club_id)
        mine = _membership(club, user.pk)
        if mine is not None and mine.status == Status.ACTIVE:
            raise ClubError(
                "already_member",
                _("You are already a member of %(club)s.") % {"club": club.name},
            )
        empty = not _active(club).exists()
        if mine is not None and not empty and club.policy == Policy.REQUEST:
            raise ClubError(
                "already_requested",
                _("You have already asked to join %(club)s: a leader will answer.")
                % {"club": club.name},
            )
        if empty or club.policy == Policy.OPEN:
            role = Role.LEADER if empty else Role.MEMBER
            if mine is None:
                mine = Membership(club=club, user=user, requested_at=None)
            mine.role, mine.status, mine.joined_at = role, Status.ACTIVE, now
            mine.save()
            return mine
        refusal = _request_rate(user, club)
        if refusal is not None:
            raise refusal
        mine = Membership.objects.create(
            club=club, user=user, role=Role.MEMBER, status=Status.REQUESTED, requested_at=now
        )
        leaders = _active(club).filter(role=Role.LEADER).values_list("user_id", flat=True)
        data = {
            "club": club.pk,
            "player": user.pk,
            "from": user.display_name,
            "card_url": _card_url(club, f"request&player={user.pk}"),
        }
        notify_users([(leader, "club_request", data) for leader in leaders])
    return mine


def _request_gone(club: Club, member_id: int) -> ClubError:
    """Why an answer found no request waiting (its compare-and-set matched nothing)."""
    mine = _membership(club, member_id)
    name = _member_name(member_id)
    if mine is not None and mine.status == Status.ACTIVE:
        return ClubError(
            "already_member",
            _("%(name)s is already a member: another leader let them in.") % {"name": name},
        )
    return ClubError(
        "no_request",
        _("%(name)s has no request waiting: it was answered or withdrawn.") % {"name": name},
    )


def membership_approve(
    *, club_id: int, member_id: int, by: User, now: datetime | None = None
) -> Membership:
    """A leader lets a player who asked in; the player is told (a `club_joined` notice). Only
    one of two approvals at once does it: the other is told the player is already in."""
    now = now or timezone.now()
    with transaction.atomic():
        club = _locked(club_id)
        _ensure_leader(club, by)
        player = User.objects.filter(pk=member_id).first()
        if player is not None and refusal_reason(player) is not None:
            raise ClubError(
                "unavailable",
                _("%(name)s can't join a club at the moment.") % {"name": player.shown_name},
            )
        claimed = Membership.objects.filter(
            club=club, user_id=member_id, status=Status.REQUESTED
        ).update(status=Status.ACTIVE, role=Role.MEMBER, joined_at=now)
        if not claimed:
            raise _request_gone(club, member_id)
        notify_users(
            [
                (
                    member_id,
                    "club_joined",
                    {
                        "club": club.pk,
                        "url": club.get_absolute_url(),
                        "card_url": _card_url(club, "joined"),
                    },
                )
            ]
        )
        return Membership.objects.select_related("club", "user").get(club=club, user_id=member_id)


def membership_decline(*, club_id: int, member_id: int, by: User) -> None:
    """A leader turns a request down: it is dropped (the player may ask again later, within the
    limit on requests). The player is not sent a notice; the club's page shows they are not in."""
    with transaction.atomic():
        club = _locked(club_id)
        _ensure_leader(club, by)
        deleted, _rows = Membership.objects.filter(
            club=club, user_id=member_id, status=Status.REQUESTED
        ).delete()
        if not deleted:
            raise _request_gone(club, member_id)


# --- leaders and members -------------------------------------------------------------------------


def _active_member(club: Club, member_id: int) -> Membership:
    mine = _membership(club, member_id)
    if mine is None or mine.status != Status.ACTIVE:
        raise ClubError(
            "not_member",
            _("%(name)s is not a member of this club.") % {"name": _member_name(member_id)},
        )
    return mine


def leader_appoint(*, club_id: int, member_id: int, by: User) -> Membership:
    """A leader makes a member a leader too (leaders are equals)."""
    with transaction.atomic():
        club = _locked(club_id)
        _ensure_leader(club, by)
        member = _active_member(club, member_id)
        if member.role == Role.LEADER:
            raise ClubError(
                "already_leader",
                _("%(name)s is already a leader.") % {"name": _member_name(member_id)},
            )
        member.role = Role.LEADER
        member.save(update_fields=["role"])
    return member


def member_remove(*, club_id: int, member_id: int, by: User) -> None:
    """A leader removes a member, or another leader, from the club. Never the last leader, and
    never oneself: a leader who wants out leaves (`club_leave`)."""
    with transaction.atomic():
        club = _locked(club_id)
        _ensure_leader(club, by)
        if member_id == by.pk:
            raise ClubError("remove_self", _("You can't remove yourself: to go, leave the club."))
        member = _active_member(club, member_id)
        leaders = _active(club).filter(role=Role.LEADER).count()
        if member.role == Role.LEADER and leaders <= 1:
            raise ClubError("last_leader", _("The club's last leader can't be removed."))
        member.delete()


def club_leave(*, club_id: int, user: User) -> bool:
    """The player leaves the club, or withdraws their request to join it. True when they were
    a member, False for a request withdrawn. The last leader may leave only as the last member
    (then the club remains, empty; its waiting requests are dropped)."""
    with transaction.atomic():
        club = _locked(club_id)
        mine = _membership(club, user.pk)
        if mine is None:
            raise ClubError(
                "not_member", _("You are not a member of %(club)s.") % {"club": club.name}
            )
        if mine.status == Status.REQUESTED:
            mine.delete()
            return False
        others = _active(club).exclude(user=user)
        if (
            mine.role == Role.LEADER
            and others.exists()
            and not others.filter(role=Role.LEADER).exists()
        ):
            raise ClubError(
                "last_leader",
                _("You are the club's only leader: make another member a leader before you leave."),
            )
        mine.delete()
        if not others.exists():
            Membership.objects.filter(club=club, status=Status.REQUESTED).delete()
    return True


def memberships_end(*, user: User) -> list[int]:
    """Every membership and request of `user` ends (their account is closing; privacy calls
    this). A club they alone led gets its longest-standing member (the earliest to join) as its
    leader; a club they were the last member of is left empty. Returns the clubs' ids."""
    ended = []
    club_ids = list(
        Membership.objects.filter(user=user).order_by("club_id").values_list("club_id", flat=True)
    )
    for club_id in club_ids:
        with transaction.atomic():
            club = _locked(club_id)
            mine = _membership(club, user.pk)
            if mine is None:
                continue
            others = _active(club).exclude(user=user)
            if mine.is_leader and not others.filter(role=Role.LEADER).exists():
                heir = others.order_by("joined_at", "pk").first()
                if heir is not None:
                    Membership.objects.filter(pk=heir.pk).update(role=Role.LEADER)
            mine.delete()
            if mine.status == Status.ACTIVE and not others.exists():
                Membership.objects.filter(club=club, status=Status.REQUESTED).delete()
        ended.append(club_id)
    return ended
