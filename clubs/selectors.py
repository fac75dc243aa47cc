"""Reading clubs: what other apps may ask (`is_member`, `is_leader`: the tournaments app asks
them for club-only events), and the pages' read models: the list of clubs, a club's page, its
leaderboard (the members by their rating in one pool, read through `ratings.selectors`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Q

from clubs.models import Club, Membership, Role, Status
from ratings.models import Rating
from ratings.pools import Pool
from ratings.selectors import PlayerRating, player_ratings

#: The most clubs the list shows at once; the page says how many more match.
CLUBS_SHOWN = 100


def is_member(club_id: int, user: Any) -> bool:
    """Whether `user` is in the club now (a leader or a member; not someone asking to join).
    False for a visitor."""
    if not getattr(user, "is_authenticated", False):
        return False
    return Membership.objects.filter(
        club_id=club_id, user_id=user.pk, status=Status.ACTIVE
    ).exists()


def is_leader(club_id: int, user: Any) -> bool:
    """Whether `user` is one of the club's leaders now. False for a visitor."""
    if not getattr(user, "is_authenticated", False):
        return False
    return Membership.objects.filter(
        club_id=club_id, user_id=user.pk, status=Status.ACTIVE, role=Role.LEADER
    ).exists()


def club_ids_of(user: Any) -> set[int]:
    """The clubs `user` is in now (for an app that checks many clubs at once)."""
    if not getattr(user, "is_authenticated", False):
        return set()
    return set(
        Membership.objects.filter(user_id=user.pk, status=Status.ACTIVE).values_list(
            "club_id", flat=True
        )
    )


def _with_counts(clubs: Any) -> Any:
    return clubs.annotate(
        members=Count(
            "memberships",
            filter=Q(memberships__status=Status.ACTIVE, memberships__user__is_active=True),
        )
    )


@dataclass(frozen=True)
class ClubRow:
    club: Club
    #: Its members now (leaders included; not those asking to join).
    members: int
    #: The viewer's place in it: "leader", "member", "requested", or "".
    mine: str


def _place(membership: Membership | None) -> str:
    if membership is None:
        return ""
    if membership.status == Status.REQUESTED:
        return "requested"
    return str(membership.role)


def club_rows(viewer: Any, *, query: str = "") -> tuple[list[ClubRow], int]:
    """Clubs whose name holds `query` (whatever its capitals; every club without one), most
    members first, then by name; at most CLUBS_SHOWN, and how many more match."""
    clubs = _with_counts(Club.objects.all())
    if query:
        clubs = clubs.filter(name__icontains=query)
    clubs = clubs.order_by("-members", "name")
    total = clubs.count()
    shown = list(clubs[:CLUBS_SHOWN])
    mine = {
        m.club_id: m
        for m in Membership.objects.filter(user_id=viewer.pk, club__in=[c.pk for c in shown])
    }
    rows = [ClubRow(club=c, members=c.members, mine=_place(mine.get(c.pk))) for c in shown]
    return rows, max(0, total - CLUBS_SHOWN)


def clubs_of(user: Any) -> list[ClubRow]:
    """The clubs `user` is in or has asked to join, by name."""
    memberships = list(
        Membership.objects.filter(user_id=user.pk).select_related("club").order_by("club__name")
    )
    counts = dict(
        _with_counts(Club.objects.filter(pk__in=[m.club_id for m in memberships])).values_list(
            "pk", "members"
        )
    )
    return [
        ClubRow(club=m.club, members=counts.get(m.club_id, 0), mine=_place(m)) for m in memberships
    ]


def club_page(club: Club, viewer: Any) -> dict[str, Any]:
    """A club's page as `viewer` sees it: its leaders (longest-standing first) and members (by
    name), the viewer's own membership, and for its leaders the requests waiting (oldest first)."""
    rows = list(Membership.objects.filter(club=club, user__is_active=True).select_related("user"))
    active = [m for m in rows if m.status == Status.ACTIVE]
    leaders = sorted(
        (m for m in active if m.role == Role.LEADER), key=lambda m: (m.joined_at, m.pk)
    )
    members = sorted(
        (m for m in active if m.role == Role.MEMBER), key=lambda m: m.user.display_name.lower()
    )
    mine = next((m for m in rows if m.user_id == viewer.pk), None)
    leading = mine is not None and mine.is_leader
    requests = sorted(
        (m for m in rows if m.status == Status.REQUESTED), key=lambda m: (m.requested_at, m.pk)
    )
    return {
        "club": club,
        "leaders": leaders,
        "members": members,
        "member_count": len(active),
        "mine": mine,
        "place": _place(mine),
        "leading": leading,
        # Only leaders see who asked; everyone else at most how many.
        "requests": requests if leading else [],
        "request_count": len(requests),
        # The last leader may leave only as the last member (clubs.services.club_leave).
        "must_appoint": leading and len(leaders) == 1 and len(active) > 1,
    }


# --- the club's leaderboard ----------------------------------------------------------------------


@dataclass(frozen=True)
class BoardRow:
    rank: int
    user: Any
    rating: PlayerRating


def pool_default(club: Club) -> Pool:
    """The pool the club's leaderboard shows first: the one most of its members have rated
    games in (ties: the pools' own order); All Fives one on one when none has any."""
    ids = Membership.objects.filter(club=club, status=Status.ACTIVE).values("user_id")
    counts = dict(
        Rating.objects.filter(user_id__in=ids, games__gt=0)
        .values("pool")
        .annotate(n=Count("id"))
        .values_list("pool", "n")
    )
    if not counts:
        return Pool.ALLFIVES_1V1
    return max(Pool, key=lambda pool: (counts.get(pool.value, 0), -list(Pool).index(pool)))


def club_leaderboard(club: Club, pool: str) -> dict[str, Any]:
    """The club's members who have played rated games in `pool` (a ratings.pools.Pool value),
    best rating first (ties: more games, then by name), each with their rank and rating as of
    now; and how many members have no rated game in the pool yet."""
    members = list(
        Membership.objects.filter(club=club, status=Status.ACTIVE, user__is_active=True)
        .select_related("user")
        .order_by("pk")
    )
    ratings = player_ratings([m.user_id for m in members], pool)
    rated = [(m.user, ratings[m.user_id]) for m in members if ratings[m.user_id].games > 0]
    rated.sort(key=lambda item: (-item[1].rating, -item[1].games, item[0].display_name.lower()))
    rows = [BoardRow(rank=i, user=user, rating=r) for i, (user, r) in enumerate(rated, 1)]
    return {"pool": Pool(pool), "rows": rows, "unrated": len(members) - len(rows)}
