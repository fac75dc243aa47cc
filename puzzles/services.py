"""Mining finished games for puzzles: each seat's decisions, as the review rebuilds them from the
game's log (coach.services.seat_decisions: the seat's view alone), offered to
engine.puzzles.mine. A beat sweep hands the games over one task each; a game is claimed once
(MinedGame), so a sweep that meets it again, or two workers, mine it once."""

from __future__ import annotations

import datetime as dt
import hashlib
import logging

from django.conf import settings as django_settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from coach.services import seat_decisions
from engine.puzzles import mine
from puzzles.models import MinedGame, Puzzle
from tables.models import Game

log = logging.getLogger(__name__)

#: The miner's version (engine/puzzles.py's rules): stored on each puzzle.
METHOD = 1

#: A claim this old with no finish (its worker died) may be taken again.
RECLAIM_AFTER = dt.timedelta(minutes=30)


def worlds() -> int:
    """Sampled deals per analysis: `PUZZLE_WORLDS` in the settings (the tests use fewer)."""
    return int(getattr(django_settings, "PUZZLE_WORLDS", 200))


def puzzle_seed(game_id: int, version: int, seat: int) -> int:
    """The analysis's seed for one decision: the same on every run and machine."""
    digest = hashlib.sha256(f"puzzle:{METHOD}:{game_id}:{version}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _claim(game_id: int, now: dt.datetime) -> bool:
    """Take the game for mining: a new claim, or one abandoned long ago."""
    try:
        with transaction.atomic():
            MinedGame.objects.create(game_id=game_id)
        return True
    except IntegrityError:
        taken = MinedGame.objects.filter(
            game_id=game_id, finished_at=None, claimed_at__lt=now - RECLAIM_AFTER
        ).update(claimed_at=now)
        return taken == 1


def mine_game(game_id: int) -> int | None:
    """Mine one finished game; the number of puzzles it gave, or None when it was not this
    call's to mine (not finished, or already claimed)."""
    game = Game.objects.filter(pk=game_id, status=Game.Status.FINISHED).first()
    if game is None or not _claim(game_id, timezone.now()):
        return None
    settings = game.state["settings"]
    found = decisions = 0
    try:
        for seat in range(int(settings["players"])):
            for decision in seat_decisions(game, seat):
                decisions += 1
                mined = mine(
                    decision.view,
                    seed=puzzle_seed(game.pk, decision.version, seat),
                    worlds=worlds(),
                )
                if mined.puzzle is None:
                    continue
                p = mined.puzzle
                _row, created = Puzzle.objects.get_or_create(
                    game=game,
                    version=decision.version,
                    seat=seat,
                    defaults={
                        "mode": settings["mode"],
                        "players": settings["players"],
                        "partners": bool(settings.get("partners")),
                        "view": p.view,
                        "answer": p.answer,
                        "runner_up": p.runner_up,
                        "margin": p.margin,
                        "estimates": p.estimates,
                        "points": p.points,
                        "themes": p.themes,
                        "reasons": p.reasons,
                        "worlds": p.worlds,
                        "method": METHOD,
                    },
                )
                found += created
    except Exception as exc:  # a game the miner cannot read is noted, not retried forever
        log.exception("puzzles: mining game %s failed", game_id)
        MinedGame.objects.filter(game_id=game_id).update(
            finished_at=timezone.now(), error=f"{type(exc).__name__}: {exc}"[:200]
        )
        return None
    MinedGame.objects.filter(game_id=game_id).update(
        puzzles=found, decisions=decisions, finished_at=timezone.now(), error=""
    )
    log.info("puzzles: game %s gave %s puzzles from %s decisions", game_id, found, decisions)
    return found


def games_to_mine(limit: int) -> list[int]:
    """Finished games not yet claimed, oldest first."""
    return list(
        Game.objects.filter(status=Game.Status.FINISHED, mined__isnull=True)
        .order_by("finished_at", "pk")
        .values_list("pk", flat=True)[:limit]
    )
