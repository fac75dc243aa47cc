"""Mining finished games for puzzles: each seat's decisions, as the review rebuilds them from the
game's log (coach.services.seat_decisions: the seat's view alone), offered to
engine.puzzles.mine. A beat sweep hands the games over one task each; a game is claimed once
(MinedGame), so a sweep that meets it again, or two workers, mine it once."""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import time
from collections.abc import Iterator

from django.conf import settings as django_settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from coach.services import Decision, seat_decisions
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
        ).update(claimed_at=now, done=0, puzzles=0)
        return taken == 1


def chunk_seconds() -> float:
    """How long one task mines before handing the rest to the next (`PUZZLE_CHUNK_SECONDS`,
    default 1 s, as the review's parts): a Gym clock's timer never waits long behind it."""
    return float(getattr(django_settings, "PUZZLE_CHUNK_SECONDS", 1.0))


def _decisions(game: Game) -> Iterator[tuple[int, Decision]]:
    """Every seat's decisions, seat by seat, in one fixed order (a part resumes by position)."""
    for seat in range(int(game.state["settings"]["players"])):
        for decision in seat_decisions(game, seat):
            yield seat, decision


def mine_game(game_id: int, done: int | None = None) -> int | None:
    """Mine a finished game for about `chunk_seconds()`. `done` None starts it (claimed once: a
    game not finished, or claimed already, is not this call's: None); a number continues from
    that many decisions. Returns the decisions done when there is more to do, else None."""
    game = Game.objects.filter(pk=game_id, status=Game.Status.FINISHED).first()
    if game is None:
        return None
    if done is None:
        if not _claim(game_id, timezone.now()):
            return None
        done = 0
    elif not MinedGame.objects.filter(game_id=game_id, finished_at=None, done=done).exists():
        return None  # a part delivered twice, or the game finished meanwhile
    settings = game.state["settings"]
    deadline = time.monotonic() + chunk_seconds()
    position = 0
    found = 0
    try:
        for position, (seat, decision) in enumerate(_decisions(game), start=1):
            if position <= done:
                continue
            mined = mine(
                decision.view,
                seed=puzzle_seed(game.pk, decision.version, seat),
                worlds=worlds(),
            )
            if mined.puzzle is not None:
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
            if time.monotonic() >= deadline:
                MinedGame.objects.filter(game_id=game_id, done=done).update(
                    done=position, puzzles=F("puzzles") + found
                )
                return position
    except Exception as exc:  # a game the miner cannot read is noted, not retried forever
        log.exception("puzzles: mining game %s failed", game_id)
        MinedGame.objects.filter(game_id=game_id).update(
            finished_at=timezone.now(), error=f"{type(exc).__name__}: {exc}"[:200]
        )
        return None
    MinedGame.objects.filter(game_id=game_id, done=done).update(
        done=position,
        decisions=max(position, done),
        puzzles=F("puzzles") + found,
        finished_at=timezone.now(),
        error="",
    )
    log.info("puzzles: game %s mined (%s decisions)", game_id, max(position, done))
    return None


def games_to_mine(limit: int) -> list[int]:
    """Finished games not yet claimed, oldest first."""
    return list(
        Game.objects.filter(status=Game.Status.FINISHED, mined__isnull=True)
        .order_by("finished_at", "pk")
        .values_list("pk", flat=True)[:limit]
    )
