"""Mining finished games for puzzles: each seat's decisions, as the review rebuilds them from the
game's log (coach.services.seat_decisions: the seat's view alone), offered to
engine.puzzles.mine. A beat sweep hands the games over one task each; a game is claimed once
(MinedGame), so a sweep that meets it again, or two workers, mine it once."""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import random
import time
from collections.abc import Iterator

from django.conf import settings as django_settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext

from coach.services import Decision, seat_decisions
from engine.bots import decide
from engine.puzzles import Puzzle as MinedPuzzle
from engine.puzzles import judge, mine
from puzzles.models import Attempt, MinedGame, Puzzle, Solver
from ratings.glicko2 import Glicko, Result, periods_between, rate
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
                        "rating": starting_rating(p, puzzle_seed(game.pk, decision.version, seat)),
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


# --- ratings: a first try is a rated game between the solver and the puzzle ----------------------

#: A puzzle the Regular house player solves in every one of `EASY_TRIES` tries starts here:
#: its answer is what a sound rule of thumb plays (bench/README.md, "Puzzles").
EASY_RATING = 1200.0
EASY_TRIES = 10
#: Puzzles offered are those rated within this of the player, widened until one is found.
WINDOW = 150.0


class PuzzleRefused(Exception):
    """A try the site will not take: `code` for programs, `message` for the player."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def starting_rating(puzzle: MinedPuzzle, seed: int) -> float:
    """Where a new puzzle starts: low when the Regular always solves it, else the default."""
    rng = random.Random(seed)
    always = all(judge(puzzle, decide(puzzle.view, "regular", rng=rng)) for _ in range(EASY_TRIES))
    return EASY_RATING if always else Puzzle._meta.get_field("rating").get_default()


def attempt(*, user: object, puzzle_id: int, choice: object) -> Attempt:
    """The player plays legal play number `choice` on a puzzle. The first try is rated (the
    player's and the puzzle's Glicko-2 ratings move); later ones are kept, unrated."""
    if type(choice) is not int or choice < 0:
        raise PuzzleRefused("bad_choice", gettext("Choose one of the plays listed."))
    with transaction.atomic():
        puzzle = Puzzle.objects.select_for_update().filter(pk=puzzle_id).first()
        if puzzle is None:
            raise PuzzleRefused("no_puzzle", gettext("There is no such puzzle."))
        if choice >= len(puzzle.view["legal_actions"]):
            raise PuzzleRefused("bad_choice", gettext("Choose one of the plays listed."))
        solved = choice in puzzle.answer
        solver, _ = Solver.objects.get_or_create(user=user)
        solver = Solver.objects.select_for_update().get(pk=solver.pk)
        rated = not Attempt.objects.filter(user=user, puzzle=puzzle, rated=True).exists()
        before = solver.rating
        if rated:
            now = timezone.now()
            elapsed = (
                1.0
                if solver.rated_at is None
                else periods_between((now - solver.rated_at).total_seconds() / 86400)
            )
            me = Glicko(solver.rating, solver.deviation, solver.volatility)
            it = Glicko(puzzle.rating, puzzle.deviation, puzzle.volatility)
            mine_after = rate(me, [Result(it, 1.0 if solved else 0.0)], elapsed=elapsed)
            its_after = rate(it, [Result(me, 0.0 if solved else 1.0)])
            solver.rating, solver.deviation, solver.volatility = (
                mine_after.rating,
                mine_after.deviation,
                mine_after.volatility,
            )
            solver.rated_at = now
            solver.tries += 1
            solver.solves += solved
            solver.save()
            puzzle.rating, puzzle.deviation, puzzle.volatility = (
                its_after.rating,
                its_after.deviation,
                its_after.volatility,
            )
            puzzle.tries += 1
            puzzle.solves += solved
            puzzle.save(update_fields=["rating", "deviation", "volatility", "tries", "solves"])
        return Attempt.objects.create(
            user=user,
            puzzle=puzzle,
            choice=choice,
            solved=solved,
            rated=rated,
            rating_before=before if rated else None,
            rating_after=solver.rating if rated else None,
        )


def next_puzzle(*, user: object, theme: str | None = None) -> Puzzle | None:
    """A puzzle the player has not tried, rated near them (the window widens until one is found),
    of `theme` if asked."""
    solver = Solver.objects.filter(user=user).first()
    rating = solver.rating if solver is not None else Puzzle._meta.get_field("rating").get_default()
    untried = Puzzle.objects.exclude(attempts__user=user)
    window = WINDOW
    while True:
        near = untried.filter(rating__gte=rating - window, rating__lte=rating + window)
        candidates = [p for p in near.order_by("pk")[:500] if theme is None or theme in p.themes]
        if candidates:
            return min(candidates, key=lambda p: (abs(p.rating - rating), p.pk))
        if window > 3000:
            return None
        window *= 2
