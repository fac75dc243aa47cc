"""Puzzles mined from finished games (engine/puzzles.py), and which games have been mined."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


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
