"""A player's review of one finished game, and the hints given at practice tables."""

from __future__ import annotations

from django.conf import settings as django_settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class Review(models.Model):
    """The Shark's look at one player's decisions in one finished game (one per game and
    player): asked for, worked through by a Celery task, stored."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("Waiting for a worker")
        RUNNING = "running", _("Being worked out")
        DONE = "done", _("Done")
        FAILED = "failed", _("Failed")

    game = models.ForeignKey("tables.Game", on_delete=models.CASCADE, related_name="reviews")
    user = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reviews"
    )
    seat = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    done = models.PositiveIntegerField(default=0, help_text=_("Decisions worked through."))
    total = models.PositiveIntegerField(default=0, help_text=_("Decisions to work through."))
    method = models.PositiveSmallIntegerField(
        default=1, help_text=_("The analysis's version: a newer one works a review out again.")
    )
    result = models.JSONField(null=True, blank=True)
    error = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="one_review_per_game_player"),
            models.CheckConstraint(
                condition=Q(done__lte=models.F("total")), name="review_done_lte_total"
            ),
        ]

    def __str__(self) -> str:
        return f"Review of game {self.game_id} for {self.user_id}"


class Hint(models.Model):
    """A hint the Shark gave at a practice table: the move it preferred at that game version."""

    game = models.ForeignKey("tables.Game", on_delete=models.CASCADE, related_name="hints")
    user = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="hints"
    )
    seat = models.PositiveSmallIntegerField()
    version = models.PositiveIntegerField(help_text=_("The game version the hint was for."))
    action = models.JSONField(help_text=_("The move the Shark preferred (action JSON)."))
    facts = models.JSONField(default=dict, help_text=_("What the reason was written from."))
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "version"]
        constraints = [
            models.UniqueConstraint(fields=["game", "version"], name="one_hint_per_game_version"),
        ]

    def __str__(self) -> str:
        return f"Hint at game {self.game_id} v{self.version}"
