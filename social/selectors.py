"""Reads for the social pages: who is online, friends, challenges as each side sees them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q
from django.utils import timezone

from accounts.models import AgeStatus, User
from social import presence
from social.models import Challenge, Follow
from social.services import challenges_expire, preference_refusals

#: The most players the online list shows (friends first); the page says how many more.
ONLINE_SHOWN = 200


@dataclass(frozen=True)
class OnlinePlayer:
    user: User
    friend: bool
    #: Why they would refuse the viewer's challenge (their preference), or "".
    refusal: str = ""
    #: Their rating in the pool they have played most rated games in (ratings.PlayerRating),
    #: and that pool's name; None for a player with no rated game.
    rating: object = None
    pool: str = ""
    #: Playing a game now; the table's page when the viewer may watch it, else "".
    playing: bool = False
    watch_url: str = ""


def following_ids(user: User) -> set[int]:
    return set(Follow.objects.filter(follower=user).values_list("followed_id", flat=True))


def online_players(viewer: User) -> tuple[list[OnlinePlayer], int]:
    """Players online now other than the viewer, the viewer's friends first, then by name; and
    how many more there are beyond ONLINE_SHOWN. House players are not people online."""
    ids = presence.online_user_ids() - {viewer.pk}
    users = list(
        User.objects.filter(pk__in=ids, is_active=True, house_level="")
        .exclude(age_status=AgeStatus.SUSPENDED)
        .order_by("display_name")
    )
    friends = following_ids(viewer)
    refusals = preference_refusals(viewer, users)
    ratings, playing = _ratings_and_tables([u.pk for u in users])
    rows = [
        OnlinePlayer(
            user=u,
            friend=u.pk in friends,
            refusal=refusals.get(u.pk, ""),
            rating=ratings.get(u.pk, (None, ""))[0],
            pool=ratings.get(u.pk, (None, ""))[1],
            playing=u.pk in playing,
            watch_url=playing.get(u.pk, ""),
        )
        for u in users
    ]
    rows.sort(key=lambda row: not row.friend)  # stable: by name within each group
    return rows[:ONLINE_SHOWN], max(0, len(rows) - ONLINE_SHOWN)


def _ratings_and_tables(
    ids: list[int],
) -> tuple[dict[int, tuple[object, str]], dict[int, str]]:
    """Each player's rating in their most played pool (with its name), and who is playing a
    game now: the table's page when it may be watched (social.watching), else ""."""
    from ratings.models import Rating
    from ratings.pools import Pool
    from ratings.selectors import rating_now
    from social.watching import watchable_tables
    from tables.models import Seat, Table

    best: dict[int, Rating] = {}
    for row in Rating.objects.filter(user_id__in=ids, games__gt=0):
        if row.user_id not in best or row.games > best[row.user_id].games:
            best[row.user_id] = row
    now = timezone.now()
    ratings = {u: (rating_now(row, now), Pool(row.pool).label) for u, row in best.items()}
    seats = list(
        Seat.objects.filter(user_id__in=ids, table__status=Table.Status.PLAYING).values_list(
            "user_id", "table_id"
        )
    )
    open_to_watch = set(
        watchable_tables().filter(pk__in=[t for _u, t in seats]).values_list("pk", flat=True)
    )
    playing: dict[int, str] = {}
    for user_id, table_id in seats:
        url = f"/tables/{table_id}/" if table_id in open_to_watch else ""
        if url or user_id not in playing:
            playing[user_id] = url
    return ratings, playing


def friends_of(user: User) -> list[tuple[User, bool, str]]:
    """The players `user` follows, by name, each with whether they are online now and why they
    would refuse `user`'s challenge ("" if they would not)."""
    online = presence.online_user_ids()
    follows = (
        Follow.objects.filter(follower=user)
        .select_related("followed")
        .order_by("followed__display_name")
    )
    players = [f.followed for f in follows]
    refusals = preference_refusals(user, players)
    return [(p, p.pk in online, refusals.get(p.pk, "")) for p in players]


def follower_count(user: User) -> int:
    return Follow.objects.filter(followed=user).count()


def is_pending(challenge: Challenge, now: datetime | None = None) -> bool:
    """Pending and not yet past its time (the rule; the row may still say pending)."""
    now = now or timezone.now()
    return challenge.status == Challenge.Status.PENDING and challenge.expires_at > now


def challenges_for(user: User) -> dict[str, list[Challenge]]:
    """The player's challenges: received and sent still waiting, and the last answered ones."""
    now = timezone.now()
    challenges_expire(now=now, users=[user.pk])
    rows = list(
        Challenge.objects.filter(Q(challenger=user) | Q(challenged=user))
        .select_related("challenger", "challenged", "table")
        .order_by("-created_at")[:40]
    )
    waiting = [c for c in rows if is_pending(c, now)]
    return {
        "received": [c for c in waiting if c.challenged_id == user.pk],
        "sent": [c for c in waiting if c.challenger_id == user.pk],
        "answered": [c for c in rows if not is_pending(c, now)][:20],
    }
