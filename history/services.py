"""Writes for game history: revealing the seeds of hands that are over, archiving finished games.

The hands before the one just dealt are marked revealed by tables itself (it owns `Hand`);
`game_archive` runs inside the transaction that ends the game, as history's subscriber to
`tables.events.game_finished` (history/receivers.py), and marks every hand revealed. It is
idempotent, so the sweep (`games_archive_pending`, a beat job) can catch up on any game another
path finished.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction

from engine import TableSettings
from history.models import PlayerGame
from history.selectors import game_replay
from tables.models import Game, Hand

log = logging.getLogger(__name__)


def game_archive(*, game: Game) -> list[PlayerGame]:
    """One `PlayerGame` per seated player of a finished game, from its replay. Idempotent.

    Never raises: a game whose replay fails is logged and left for the sweep (the move that
    finished it must not fail because of its history)."""
    if game.status != Game.Status.FINISHED or not game.result:
        return []
    try:
        with transaction.atomic():
            Hand.objects.filter(game=game, dealt_at__isnull=False, revealed=False).update(
                revealed=True
            )
            if PlayerGame.objects.filter(game=game).exists():
                return []
            return _archive(game)
    except Exception:
        log.exception("game %s: could not archive its history", game.pk)
        return []


def _archive(game: Game) -> list[PlayerGame]:
    replay = game_replay(game)
    if not replay.matches(game.result):
        raise ValueError(f"the replay does not reach the recorded result ({replay.error})")
    settings = TableSettings.from_dict(game.state["settings"])
    result: dict[str, Any] = game.result
    skunked = set(result["skunked"])
    scores = list(game.state["scores"])
    dumbbells = list(game.state["dumbbells"])
    played = [h for h in replay.hands if h.played]
    finished_at = game.finished_at or game.started_at
    rows = []
    for seat, user_id in enumerate(game.players):
        if user_id is None:
            continue
        side = settings.side_of(seat)
        won = side == result["winner"]
        rows.append(
            PlayerGame(
                game=game,
                user_id=user_id,
                seat=seat,
                side=side,
                mode=game.table.mode,
                private=game.table.private,
                won=won,
                score=scores[side],
                hands=len(played),
                points=sum(h.points_by_seat[seat] for h in played),
                dominoes=sum(1 for h in played if h.dominoed_by == seat),
                skunks_given=len(skunked) if won else 0,
                skunked=side in skunked,
                dumbbells=dumbbells[seat],
                finished_at=finished_at,
            )
        )
    return PlayerGame.objects.bulk_create(rows)


def games_archive_pending(*, limit: int = 50) -> int:
    """Archive finished games that have no records yet (newest first), and reveal the dealt
    hands of aborted games (over too). Returns how many games were archived."""
    Hand.objects.filter(
        game__status=Game.Status.ABORTED, dealt_at__isnull=False, revealed=False
    ).update(revealed=True)
    pending = list(
        Game.objects.filter(status=Game.Status.FINISHED, player_records__isnull=True)
        .select_related("table")
        .order_by("-finished_at")[:limit]
    )
    return sum(1 for game in pending if game_archive(game=game))
