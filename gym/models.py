"""Workouts owed: what a losing player at a Gym table owes, kept on their profile until done."""

from __future__ import annotations

from django.conf import settings as django_settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from engine import Workout


class WorkoutOwed(models.Model):
    class Kind(models.TextChoices):
        REPS = "reps", _("Reps")
        TIMED = "timed", _("Timed hold")
        RUN = "run", _("Run or walk")

    user = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="workouts"
    )
    game = models.ForeignKey("tables.Game", on_delete=models.PROTECT, related_name="workouts")
    seat = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=8, choices=Kind.choices)
    amount = models.PositiveIntegerField(
        help_text=_("Reps, seconds, or tenths of a mile (15 is 1.5 miles).")
    )
    base_amount = models.PositiveIntegerField(help_text=_("The table's base workout."))
    dumbbells = models.PositiveSmallIntegerField(help_text=_("The player's dumbbells that game."))
    skunked = models.BooleanField(help_text=_("Skunked: the whole workout doubled."))
    created_at = models.DateTimeField(auto_now_add=True)
    done_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("workout owed")
        verbose_name_plural = _("workouts owed")
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="one_workout_per_seat_per_game"),
            models.CheckConstraint(condition=Q(amount__gte=1), name="workout_amount_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.user} owes {self.workout.describe()} (game {self.game_id})"

    @property
    def workout(self) -> Workout:
        return Workout(self.kind, self.amount)  # type: ignore[arg-type]

    @property
    def base(self) -> Workout:
        return Workout(self.kind, self.base_amount)  # type: ignore[arg-type]
