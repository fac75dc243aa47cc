"""Everything the house holds about one player, as one machine-readable JSON document.

Only the player's own data: their account, their games (each game's record is the game page's
own plain-text export, which shows other players' bones only once the hand is over, as the game
page does), their postings' lines on their own ledger accounts, their ratings, chat lines,
reports they made, follows, challenges, workouts, tournament entries, clubs (memberships,
requests to join, clubs founded), pool waits, reviews.
Other players appear by display name only: never an e-mail address, never who follows the
player (following someone tells them nothing: social/models.py), never what a report about
them says or who made it (a moderation record), never a staff member's name.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

FORMAT = "dominologist-personal-data"
VERSION = 1


def when(value: dt.datetime | dt.date | None) -> str | None:
    return value.isoformat() if value is not None else None


def name_of(user: Any) -> str | None:
    """Another player as pages show them: their display name (or a closed account's
    placeholder), nothing else."""
    return None if user is None else str(user.shown_name)


def data_export(user: Any, *, game_url: Callable[[int], str]) -> dict[str, Any]:
    """The document. `game_url(game_id)`: the absolute address of a game's page."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": when(timezone.now()),
        "about": (
            "Everything Dominologist holds about you. Play money only: nothing here has cash "
            "value. Times are ISO 8601 in UTC; amounts are whole units."
        ),
        "account": _account(user),
        "social": _social(user),
        "games": _games(user, game_url),
        "tables": _tables(user),
        "ledger": _ledger(user),
        "ratings": _ratings(user),
        "chat": _chat(user),
        "workouts_owed": _workouts(user),
        "tournaments": _tournaments(user),
        "clubs": _clubs(user),
        "quick_pairing": _pairing(user),
        "coach": _coach(user),
        "puzzles": _puzzles(user),
        "sessions": {
            "note": (
                "The house keeps no list of your log-ins or devices: a session is a random "
                "key in your browser's cookie, forgotten when it expires or you log out."
            )
        },
    }


def _account(user: Any) -> dict[str, Any]:
    from allauth.account.models import EmailAddress

    from accounts.models import AgeStatusChange

    return {
        "id": user.pk,
        "email": user.email,
        "email_addresses": [
            {"email": e.email, "verified": e.verified, "primary": e.primary}
            for e in EmailAddress.objects.filter(user=user).order_by("pk")
        ],
        "display_name": user.display_name,
        "date_of_birth": when(user.date_of_birth),
        "age_status": user.age_status,
        "age_status_changed_at": when(user.age_status_changed_at),
        "reported_underage": user.reported_underage,
        "time_zone": user.time_zone,
        "language": user.language,
        "profile_visibility": user.profile_visibility,
        "date_joined": when(user.date_joined),
        "last_login": when(user.last_login),
        "age_status_history": [
            {
                "at": when(c.created_at),
                "from": c.old_status,
                "to": c.new_status,
                "by": "age-gate job" if c.changed_by_id is None else "staff",
                "reason": c.reason,
            }
            for c in AgeStatusChange.objects.filter(user=user).order_by("created_at", "pk")
        ],
    }


def _social(user: Any) -> dict[str, Any]:
    from social.models import Challenge, Follow
    from social.services import challenges_from

    follows = Follow.objects.filter(follower=user).select_related("followed").order_by("pk")
    challenges = (
        Challenge.objects.filter(Q(challenger=user) | Q(challenged=user))
        .select_related("challenger", "challenged")
        .order_by("created_at", "pk")
    )
    return {
        "challenges_from": challenges_from(user),
        "following": [
            {"player": name_of(f.followed), "since": when(f.created_at)} for f in follows
        ],
        "challenges": [
            {
                "id": c.pk,
                "role": "sent" if c.challenger_id == user.pk else "received",
                "other_player": name_of(
                    c.challenged if c.challenger_id == user.pk else c.challenger
                ),
                "mode": c.mode,
                "options": c.options,
                "private": c.private,
                "rated": c.rated,
                "stake_dollars": c.stake_dollars,
                "stake_bundle": c.stake_bundle,
                "status": c.status,
                "created_at": when(c.created_at),
                "expires_at": when(c.expires_at),
                "answered_at": when(c.answered_at),
                "table": c.table_id,
            }
            for c in challenges
        ],
    }


def _games(user: Any, game_url: Callable[[int], str]) -> list[dict[str, Any]]:
    """Each finished game the player played: their line of it and the game's own export."""
    from history.models import PlayerGame
    from history.selectors import game_export, may_view_game

    out = []
    records = PlayerGame.objects.filter(user=user).select_related("game__table")
    for record in records.order_by("finished_at", "game_id"):
        game = record.game
        url = game_url(game.pk)
        out.append(
            {
                "game": game.pk,
                "table": game.table_id,
                "url": url,
                "mode": record.mode,
                "private": record.private,
                "seat": record.seat,
                "side": record.side,
                "won": record.won,
                "score": record.score,
                "hands": record.hands,
                "points": record.points,
                "dominoes": record.dominoes,
                "skunks_given": record.skunks_given,
                "skunked": record.skunked,
                "dumbbells": record.dumbbells,
                "started_at": when(game.started_at),
                "finished_at": when(record.finished_at),
                # The game page's own export: other players' bones only once a hand is over.
                "record": game_export(game, url) if may_view_game(user, game) else None,
            }
        )
    return out


def _tables(user: Any) -> dict[str, Any]:
    from tables.models import Abandonment, Seat, Table

    return {
        "hosted": [
            {
                "table": t.pk,
                "mode": t.mode,
                "private": t.private,
                "status": t.status,
                "created_at": when(t.created_at),
            }
            for t in Table.objects.filter(host=user).order_by("created_at", "pk")
        ],
        "seats_now": [
            {
                "table": s.table_id,
                "seat": s.number,
                "ready": s.ready,
                "joined_at": when(s.joined_at),
            }
            for s in Seat.objects.filter(user=user).order_by("table_id")
        ],
        "games_left_unfinished": [
            {"game": a.game_id, "at": when(a.created_at)}
            for a in Abandonment.objects.filter(user=user).order_by("created_at")
        ],
    }


def _ledger(user: Any) -> dict[str, Any]:
    from ledger.models import Account, Adjustment, Entry, Posting, StoreOrder

    accounts = list(Account.objects.filter(user=user).select_related("good").order_by("pk"))
    own = {a.pk: a for a in accounts}
    postings = (
        Posting.objects.filter(Q(user=user) | Q(parties__user=user))
        .distinct()
        .order_by("created_at", "pk")
    )
    lines: dict[int, list[dict[str, Any]]] = {}
    for entry in Entry.objects.filter(account__in=accounts).order_by("posting_id", "pk"):
        lines.setdefault(entry.posting_id, []).append(
            {"account": own[entry.account_id].code, "amount": entry.amount}
        )
    return {
        "note": (
            "Play money only. Each posting lists its lines on your own accounts; the other "
            "side of each is the house, a table's pot or a tournament's."
        ),
        "accounts": [
            {
                "code": a.code,
                "currency": a.currency,
                "good": a.good.name if a.good else None,
                "balance": a.balance,
            }
            for a in accounts
        ],
        "postings": [
            {
                "key": p.key,
                "reason": p.reason,
                "at": when(p.created_at),
                "game": p.game_id,
                "lines": lines.get(p.pk, []),
            }
            for p in postings
        ],
        "store_orders": [
            {
                "id": o.pk,
                "good": o.good.name,
                "quantity": o.quantity,
                "unit_price": o.unit_price,
                "total": o.total,
                "at": when(o.created_at),
            }
            for o in StoreOrder.objects.filter(user=user).select_related("good").order_by("pk")
        ],
        "staff_adjustments": [
            {
                "currency": a.currency,
                "good": a.good.name if a.good else None,
                "amount": a.amount,
                "reason": a.reason,
                "at": when(a.created_at),
            }
            for a in Adjustment.objects.filter(user=user).select_related("good").order_by("pk")
        ],
    }


def _ratings(user: Any) -> dict[str, Any]:
    from ratings.models import Rating, RatingChange

    return {
        "current": [
            {
                "pool": r.pool,
                "rating": r.rating,
                "deviation": r.deviation,
                "volatility": r.volatility,
                "games": r.games,
                "last_game_at": when(r.last_game_at),
            }
            for r in Rating.objects.filter(user=user).order_by("pool")
        ],
        "changes": [
            {
                "game": c.rated_game.game_id,
                "pool": c.pool,
                "rating_before": c.rating_before,
                "rating_after": c.rating_after,
                "deviation_after": c.deviation_after,
                "at": when(c.at),
            }
            for c in RatingChange.objects.filter(user=user).select_related("rated_game")
        ],
    }


def _chat(user: Any) -> dict[str, Any]:
    from chat.models import ChatMessage, ChatReport, ChatTimeout

    return {
        "messages": [
            {
                "table": m.table_id,
                "audience": m.audience,
                "kind": m.kind,
                "text": m.text,
                "at": when(m.created_at),
            }
            for m in ChatMessage.objects.filter(user=user).order_by("created_at", "pk")
        ],
        # What you reported and why; the copy of the other player's lines stays with staff.
        "reports_made": [
            {
                "table": r.table_id,
                "reported_player": name_of(r.reported),
                "reason": r.reason,
                "at": when(r.created_at),
                "handled": r.handled,
            }
            for r in ChatReport.objects.filter(reporter=user).select_related("reported")
        ],
        "timeouts": [
            {
                "table": t.table_id,
                "until": when(t.until),
                "reason": t.reason,
                "at": when(t.created_at),
            }
            for t in ChatTimeout.objects.filter(user=user).order_by("created_at")
        ],
    }


def _workouts(user: Any) -> list[dict[str, Any]]:
    from gym.models import WorkoutOwed

    return [
        {
            "game": w.game_id,
            "kind": w.kind,
            "amount": w.amount,
            "base_amount": w.base_amount,
            "dumbbells": w.dumbbells,
            "skunked": w.skunked,
            "owed_since": when(w.created_at),
            "done_at": when(w.done_at),
        }
        for w in WorkoutOwed.objects.filter(user=user).order_by("created_at")
    ]


def _tournaments(user: Any) -> dict[str, Any]:
    from tournaments.models import Entry, Tournament

    entries = (
        Entry.objects.filter(Q(player=user) | Q(partner=user))
        .select_related("tournament", "player", "partner")
        .order_by("registered_at", "pk")
    )
    return {
        "entries": [
            {
                "tournament": e.tournament_id,
                "name": e.tournament.name,
                "status": e.tournament.status,
                "partner": name_of(e.partner if e.player_id == user.pk else e.player)
                if e.partner_id
                else None,
                "registered_at": when(e.registered_at),
                "seed": e.seed,
                "checked_in_at": when(
                    e.player_checked_in_at if e.player_id == user.pk else e.partner_checked_in_at
                ),
                "withdrawn_at": when(e.withdrawn_at),
                "withdrawal": e.withdrawal,
                "disqualified_at": when(e.disqualified_at),
                "disqualified_reason": e.disqualified_reason,
            }
            for e in entries
        ],
        "organized": [
            {"tournament": t.pk, "name": t.name, "status": t.status, "starts_at": when(t.starts_at)}
            for t in Tournament.objects.filter(organizer=user).order_by("pk")
        ],
    }


def _clubs(user: Any) -> dict[str, Any]:
    from clubs.models import Club, Membership

    memberships = Membership.objects.filter(user=user).select_related("club").order_by("pk")
    return {
        "memberships": [
            {
                "club": m.club.name,
                "address": m.club.get_absolute_url(),
                "role": m.role,
                "status": m.status,
                "requested_at": when(m.requested_at),
                "joined_at": when(m.joined_at),
            }
            for m in memberships
        ],
        "founded": [
            {"club": c.name, "address": c.get_absolute_url(), "founded_at": when(c.created_at)}
            for c in Club.objects.filter(founded_by=user).order_by("created_at", "pk")
        ],
    }


def _pairing(user: Any) -> list[dict[str, Any]]:
    from pairing.models import PoolEntry

    return [
        {
            "pool": p.cell,
            "status": p.status,
            "rating": p.rating,
            "house_fill": p.house_fill,
            "joined_at": when(p.joined_at),
            "seated_at": when(p.seated_at),
            "ended_at": when(p.ended_at),
        }
        for p in PoolEntry.objects.filter(user=user).order_by("joined_at", "pk")
    ]


def _coach(user: Any) -> dict[str, Any]:
    from coach.models import Hint, Review

    return {
        "reviews": [
            {
                "game": r.game_id,
                "seat": r.seat,
                "status": r.status,
                "asked_at": when(r.created_at),
                "finished_at": when(r.finished_at),
            }
            for r in Review.objects.filter(user=user).order_by("created_at")
        ],
        "practice_hints": Hint.objects.filter(user=user).count(),
    }


def _puzzles(user: Any) -> dict[str, Any]:
    from puzzles.models import Attempt, Solver

    solver = Solver.objects.filter(user=user).first()
    return {
        "rating": None
        if solver is None
        else {
            "rating": round(solver.rating),
            "deviation": round(solver.deviation),
            "first_tries": solver.tries,
            "solved_first_try": solver.solves,
            "rated_at": when(solver.rated_at),
        },
        "tries": [
            {
                "puzzle": a.puzzle_id,
                "choice": a.choice,
                "solved": a.solved,
                "rated": a.rated,
                "rating_before": None if a.rating_before is None else round(a.rating_before),
                "rating_after": None if a.rating_after is None else round(a.rating_after),
                "at": when(a.created_at),
            }
            for a in Attempt.objects.filter(user=user).order_by("created_at", "pk")
        ],
    }


def export_filename(user: Any, today: dt.date | None = None) -> str:
    """`dominologist-<name>-<date>.json`, the name made safe for a file name."""
    import re

    day = today or timezone.localdate()
    name = re.sub(r"[^A-Za-z0-9_-]+", "-", user.display_name).strip("-") or f"player-{user.pk}"
    return f"dominologist-{name}-{day.isoformat()}.json"


def exports_per_hour() -> int:
    return int(getattr(settings, "DATA_EXPORTS_PER_HOUR", 3))
