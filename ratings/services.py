"""Rating a finished game: the one writer of ratings.

`game_rate` runs inside the game's final transaction, as the last subscriber of
`tables.events.game_finished`. It first claims the game with its `RatedGame` row (unique per
game), so a game is considered once whatever calls it again; then it decides whether the game
is rated (docs/ratings.md: casual tables, house players and the farming limit are not) and
updates every player's rating with Glicko-2, locking the players' rating rows in user-id order
(two games ending at once with a player in common wait for each other, never deadlock).

How a game becomes Glicko-2 results (docs/ratings.md has the reasons):
- one on one: one result against the opponent;
- Cut Throat: one result against each other player, by final standing (the winner beats
  everyone; a player who left the game loses to everyone still there; the others by score,
  a draw when equal);
- Partners: the team's result against the other team. Each partner plays one result against
  an opponent placed so that the expected score is that of the team's mean rating against the
  other team's mean rating, with the other team's root-mean-square deviation.
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import User
from engine import TableSettings
from ratings import glicko2
from ratings.models import RatedGame, RatedPair, Rating, RatingChange
from ratings.pools import Pool, pool_for
from ratings.selectors import rating_now

#: At most this many rated games between the same two players in a pool within
#: FARMING_WINDOW; beyond it their game is not rated for that pair (docs/ratings.md).
FARMING_LIMIT = 3
FARMING_WINDOW = dt.timedelta(hours=24)


@dataclass(frozen=True)
class Standing:
    """A side's place at the end of a game: compared, the greater one finished ahead."""

    won: bool
    stayed: bool
    score: int

    def key(self) -> tuple[bool, bool, int]:
        return (self.won, self.stayed, self.score)


def standings(
    settings: TableSettings, result: dict[str, Any], scores: Sequence[int]
) -> list[Standing]:
    """Each side's final standing: the winner first, whoever left the game last, the others by
    score."""
    forfeit = result.get("forfeit")
    left_side = None if forfeit is None else settings.side_of(int(forfeit))
    return [
        Standing(
            won=side == int(result["winner"]),
            stayed=side != left_side,
            score=int(scores[side]) if side < len(scores) else 0,
        )
        for side in range(settings.sides)
    ]


def pair_score(a: Standing, b: Standing) -> float:
    """A's score against B by final standing: 1 ahead, 0 behind, 0.5 level."""
    if a.key() > b.key():
        return 1.0
    if a.key() < b.key():
        return 0.0
    return 0.5


def partners_opponent(
    me: glicko2.Glicko, team: Sequence[glicko2.Glicko], other: Sequence[glicko2.Glicko]
) -> glicko2.Glicko:
    """The one opponent a partner is rated against: their own rating moved by the gap between
    the two teams' mean ratings (so the expected score is the teams'), with the other team's
    root-mean-square deviation."""
    gap = sum(g.rating for g in other) / len(other) - sum(g.rating for g in team) / len(team)
    deviation = math.sqrt(sum(g.deviation**2 for g in other) / len(other))
    return glicko2.Glicko(me.rating + gap, deviation, glicko2.DEFAULT_VOLATILITY)


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def _claim(game: Any, pool: Pool, now: dt.datetime) -> RatedGame | None:
    """The game's RatedGame row, new; None when the game was already claimed."""
    try:
        with transaction.atomic():
            return RatedGame.objects.create(game=game, pool=pool, rated=False, at=now)
    except IntegrityError:
        return None


def _not_rated(claim: RatedGame, why: str) -> RatedGame:
    claim.why_not = why
    claim.save(update_fields=["why_not"])
    return claim


def _farmed_pairs(
    pool: Pool, pairs: set[tuple[int, int]], now: dt.datetime
) -> set[tuple[int, int]]:
    """The pairs who already have FARMING_LIMIT rated games together in the window."""
    if not pairs:
        return set()
    users = {u for pair in pairs for u in pair}
    rows = RatedPair.objects.filter(
        pool=pool, low__in=users, high__in=users, at__gt=now - FARMING_WINDOW
    ).values_list("low_id", "high_id")
    counts: dict[tuple[int, int], int] = {}
    for low, high in rows:
        counts[(low, high)] = counts.get((low, high), 0) + 1
    return {pair for pair in pairs if counts.get(pair, 0) >= FARMING_LIMIT}


def game_rate(*, game: Any, now: dt.datetime | None = None) -> RatedGame | None:
    """Rate a finished game once, inside its final transaction. Returns its new `RatedGame`
    (rated or, with why not, not), or None when the game had already been considered."""
    now = now or timezone.now()
    table = game.table
    pool = pool_for(table.settings)
    claim = _claim(game, pool, now)
    if claim is None:
        return None
    W = RatedGame.WhyNot
    if not table.rated:
        return _not_rated(claim, W.CASUAL)
    players: list[int] = [int(p) for p in game.players]
    if User.objects.filter(pk__in=players).exclude(house_level="").exists():
        return _not_rated(claim, W.HOUSE)
    if not game.result or game.status != "finished" or len(set(players)) != len(players):
        return _not_rated(claim, W.NO_RESULT)
    settings = TableSettings.from_dict(table.settings)
    places = standings(settings, game.result, list((game.state or {}).get("scores") or []))
    side_of = [settings.side_of(seat) for seat in range(len(players))]
    opposing = {
        _pair(players[a], players[b])
        for a, b in itertools.combinations(range(len(players)), 2)
        if side_of[a] != side_of[b]
    }

    # Lock the players' ratings (made first when missing) in user-id order: a concurrent game
    # with a player in common waits here, and its farming count sees this game's pairs.
    ids = sorted(players)
    Rating.objects.bulk_create([Rating(user_id=u, pool=pool) for u in ids], ignore_conflicts=True)
    rows = {
        r.user_id: r
        for r in Rating.objects.select_for_update()
        .filter(user_id__in=ids, pool=pool)
        .order_by("user_id")
    }
    farmed = _farmed_pairs(pool, opposing, now)
    counted = opposing - farmed
    if (settings.partners and farmed) or not counted:
        return _not_rated(claim, W.FARMING)

    before = {u: glicko2.Glicko(rows[u].rating, rows[u].deviation, rows[u].volatility) for u in ids}
    # Opponents as they stand now (their deviation grown for their time away).
    as_opponent = {
        u: glicko2.Glicko(rows[u].rating, rating_now(rows[u], now).deviation, rows[u].volatility)
        for u in ids
    }
    results: dict[int, list[glicko2.Result]] = {u: [] for u in ids}
    if settings.partners:
        teams = {side: [players[s] for s in settings.seats_of(side)] for side in (0, 1)}
        for side, team in teams.items():
            other = teams[1 - side]
            score = pair_score(places[side], places[1 - side])
            for u in team:
                opponent = partners_opponent(
                    as_opponent[u], [as_opponent[t] for t in team], [as_opponent[o] for o in other]
                )
                results[u].append(glicko2.Result(opponent, score))
    else:
        for a, b in itertools.combinations(range(len(players)), 2):
            ua, ub = players[a], players[b]
            if _pair(ua, ub) not in counted:
                continue
            score = pair_score(places[side_of[a]], places[side_of[b]])
            results[ua].append(glicko2.Result(as_opponent[ub], score))
            results[ub].append(glicko2.Result(as_opponent[ua], 1.0 - score))

    changes = []
    for seat, u in enumerate(players):
        if not results[u]:
            continue  # every pair of theirs is past the farming limit: not rated for them
        row = rows[u]
        elapsed = (
            0.0
            if row.last_game_at is None
            else glicko2.periods_between((now - row.last_game_at).total_seconds() / 86400)
        )
        after = glicko2.rate(before[u], results[u], elapsed=elapsed)
        changes.append(
            RatingChange(
                rated_game=claim,
                user_id=u,
                pool=pool,
                seat=seat,
                rating_before=row.rating,
                deviation_before=rating_now(row, now).deviation,
                rating_after=after.rating,
                deviation_after=after.deviation,
                volatility_after=after.volatility,
                at=now,
            )
        )
        Rating.objects.filter(pk=row.pk).update(
            rating=after.rating,
            deviation=after.deviation,
            volatility=after.volatility,
            games=row.games + 1,
            last_game_at=now,
        )
    RatingChange.objects.bulk_create(changes)
    RatedPair.objects.bulk_create(
        RatedPair(rated_game=claim, pool=pool, low_id=low, high_id=high, at=now)
        for low, high in sorted(counted)
    )
    claim.rated = True
    claim.save(update_fields=["rated"])
    return claim
