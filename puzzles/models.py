"""Puzzles mined from finished games (engine/puzzles.py), and which games have been mined."""

from __future__ import annotations

from django.conf import settings as django_settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from ratings.glicko2 import DEFAULT_DEVIATION, DEFAULT_RATING, DEFAULT_VOLATILITY


class Puzzle(models.Model):
    """A position from a real game in which one play is clearly best, from its seat's view alone
    (docs/engine.md, "Puzzles"). The view is all a solver is shown; the source game is kept, and
    shown only where its players' privacy allows."""

    game = models.ForeignKey(
        "tables.Game", on_delete=models.SET_NULL, null=True, blank=True, related_name="puzzles"
    )
    version = models.PositiveIntegerField(help_text=_("The game version the move produced."))
    seat = models.PositiveSmallIntegerField()
    mode = models.CharField(max_length=16)
    players = models.PositiveSmallIntegerField()
    partners = models.BooleanField(default=False)
    view = models.JSONField(help_text=_("The seat's view: its own hand, the board, the counts."))
    answer = models.JSONField(help_text=_("Indices of the legal plays that solve it."))
    runner_up = models.JSONField(help_text=_("Indices of the next best position's plays."))
    margin = models.FloatField(
        help_text=_("Points the answer beats the next best by (smallest seen).")
    )
    estimates = models.JSONField()
    points = models.JSONField()
    themes = models.JSONField(default=list)
    reasons = models.JSONField(default=dict)
    worlds = models.PositiveIntegerField()
    method = models.PositiveSmallIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    # The puzzle's own Glicko-2 rating: each first try is a game between it and the solver.
    rating = models.FloatField(default=DEFAULT_RATING, db_index=True)
    deviation = models.FloatField(default=DEFAULT_DEVIATION)
    volatility = models.FloatField(default=DEFAULT_VOLATILITY)
    tries = models.PositiveIntegerField(default=0, help_text=_("First tries, each rated."))
    solves = models.PositiveIntegerField(default=0, help_text=_("First tries that solved it."))

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "version", "seat"], name="puzzle_once_per_decision"
            ),
        ]

    def __str__(self) -> str:
        return f"Puzzle {self.pk} ({self.mode}, {', '.join(self.themes) or 'no theme'})"


class MinedGame(models.Model):
    """A finished game the miner has been through (or is going through): claimed once."""

    game = models.OneToOneField("tables.Game", on_delete=models.CASCADE, related_name="mined")
    puzzles = models.PositiveIntegerField(default=0)
    decisions = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0, help_text=_("Decisions worked through so far."))
    claimed_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.CharField(max_length=200, blank=True)

    def __str__(self) -> str:
        return f"Game {self.game_id}: {self.puzzles} puzzles"


class Solver(models.Model):
    """A player's puzzle rating (Glicko-2, apart from their game ratings) and record."""

    user = models.OneToOneField(
        django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="puzzle_solver"
    )
    rating = models.FloatField(default=DEFAULT_RATING)
    deviation = models.FloatField(default=DEFAULT_DEVIATION)
    volatility = models.FloatField(default=DEFAULT_VOLATILITY)
    rated_at = models.DateTimeField(null=True, blank=True)
    tries = models.PositiveIntegerField(default=0)
    solves = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.user} ({round(self.rating)})"


class Attempt(models.Model):
    """A player's play on a puzzle. The first is rated (the player's rating and the puzzle's
    move); later ones are practice."""

    user = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="puzzle_attempts"
    )
    puzzle = models.ForeignKey(Puzzle, on_delete=models.CASCADE, related_name="attempts")
    choice = models.PositiveSmallIntegerField(help_text=_("Index of the legal play chosen."))
    solved = models.BooleanField()
    rated = models.BooleanField()
    rating_before = models.FloatField(null=True, blank=True)
    rating_after = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "puzzle"], condition=Q(rated=True), name="one_rated_try_a_puzzle"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} on puzzle {self.puzzle_id}: {'solved' if self.solved else 'missed'}"
