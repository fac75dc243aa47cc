"""Workouts owed at Gym tables: recorded when a game ends, marked done by their player."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from engine import GameState
from gym.models import WorkoutOwed


class WorkoutError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def workouts_record(*, game: Any, state: GameState) -> list[WorkoutOwed]:
    """Inside the game's final transaction: one row per losing player who owes a workout.

    The amounts are the engine's (base + per dumbbell, doubled on a skunk); recording twice for
    one game is refused by the database (one workout per seat per game) and skipped here.
    """
    result = state.result
    base = state.settings.workout
    if result is None or result.workouts is None or base is None:
        return []
    if WorkoutOwed.objects.filter(game=game).exists():
        return []
    rows = [
        WorkoutOwed(
            user_id=game.players[seat],
            game=game,
            seat=seat,
            kind=owed.kind,
            amount=owed.amount,
            base_amount=base.amount,
            dumbbells=state.dumbbells[seat],
            skunked=state.side_of(seat) in result.skunked,
        )
        for seat, owed in enumerate(result.workouts)
        if owed is not None and game.players[seat] is not None
    ]
    return WorkoutOwed.objects.bulk_create(rows)


def workout_done(*, workout_id: int, user: Any) -> WorkoutOwed:
    """The player marks their own workout done (once; a second time changes nothing)."""
    with transaction.atomic():
        workout = (
            WorkoutOwed.objects.select_for_update().filter(pk=workout_id, user_id=user.pk).first()
        )
        if workout is None:
            raise WorkoutError("no_workout", _("There is no such workout of yours."))
        if workout.done_at is None:
            workout.done_at = timezone.now()
            workout.save(update_fields=["done_at"])
    return workout
