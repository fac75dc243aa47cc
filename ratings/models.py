"""Ratings by pool, the games considered for rating, and each player's change per game.

`RatedGame` is the idempotency row: one per game, created in the game's final transaction by
the `game_finished` subscriber, whether the game turned out rated or not (`rated`, `why_not`).
A second attempt at the same game meets the unique game and changes nothing.
"""

from __future__ import annotations

from django.conf import settings as django_settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from ratings import glicko2
from ratings.pools import Pool


class Rating(models.Model):
    """A player's current Glicko-2 rating in one pool, as it stood after their last rated game
    (the deviation a reader sees has grown since: ratings.selectors)."""

    user = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    pool = models.CharField(max_length=20, choices=Pool.choices)
    rating = models.FloatField(default=glicko2.DEFAULT_RATING)
    deviation = models.FloatField(default=glicko2.DEFAULT_DEVIATION)
    volatility = models.FloatField(default=glicko2.DEFAULT_VOLATILITY)
    games = models.PositiveIntegerField(default=0, help_text=_("Rated games in this pool."))
    last_game_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("rating")
        verbose_name_plural = _("ratings")
        constraints = [
            models.UniqueConstraint(fields=["user", "pool"], name="one_rating_per_pool"),
        ]
        indexes = [models.Index(fields=["pool", "-rating"], name="rating_pool_top")]

    def __str__(self) -> str:
        return f"{self.user_id} {self.pool}: {self.rating:.0f}"


class RatedGame(models.Model):
    """A finished game the ratings looked at: exactly one row per game."""

    class WhyNot(models.TextChoices):
        RATED = "", _("Rated")
        CASUAL = "casual", _("The table was casual.")
        HOUSE = "house", _("A house player took part.")
        FARMING = (
            "farming",
            _(
                "These players already played three rated games against each other in the last "
                "24 hours."
            ),
        )
        NO_RESULT = "no_result", _("The game ended without a result to rate.")

    game = models.OneToOneField("tables.Game", on_delete=models.CASCADE, related_name="rating")
    pool = models.CharField(max_length=20, choices=Pool.choices)
    rated = models.BooleanField()
    why_not = models.CharField(max_length=12, choices=WhyNot.choices, blank=True, default="")
    at = models.DateTimeField()

    class Meta:
        verbose_name = _("rated game")
        verbose_name_plural = _("rated games")

    def __str__(self) -> str:
        return f"game {self.game_id}: {'rated' if self.rated else self.why_not}"


class RatingChange(models.Model):
    """One player's rating before and after one rated game."""

    rated_game = models.ForeignKey(RatedGame, on_delete=models.CASCADE, related_name="changes")
    user = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    pool = models.CharField(max_length=20, choices=Pool.choices)
    seat = models.PositiveSmallIntegerField()
    rating_before = models.FloatField()
    deviation_before = models.FloatField()
    rating_after = models.FloatField()
    deviation_after = models.FloatField()
    volatility_after = models.FloatField()
    at = models.DateTimeField()

    class Meta:
        verbose_name = _("rating change")
        verbose_name_plural = _("rating changes")
        ordering = ["at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["rated_game", "user"], name="one_change_per_player"),
        ]
        indexes = [
            models.Index(fields=["user", "pool", "at"], name="rating_change_user"),
            models.Index(fields=["pool", "at"], name="rating_change_pool"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.pool}: {self.rating_before:.0f} -> {self.rating_after:.0f}"

    @property
    def delta(self) -> int:
        """The change as players see it: whole points, rounded as the ratings shown are."""
        return round(self.rating_after) - round(self.rating_before)


class RatedPair(models.Model):
    """Two opponents whose result a rated game counted (the lower user id first): the farming
    limit counts these over the last 24 hours."""

    rated_game = models.ForeignKey(RatedGame, on_delete=models.CASCADE, related_name="pairs")
    pool = models.CharField(max_length=20, choices=Pool.choices)
    low = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    high = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    at = models.DateTimeField()

    class Meta:
        verbose_name = _("rated pair")
        verbose_name_plural = _("rated pairs")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(low__lt=models.F("high")), name="pair_ordered"
            ),
            models.UniqueConstraint(fields=["rated_game", "low", "high"], name="one_pair_per_game"),
        ]
        indexes = [models.Index(fields=["pool", "low", "high", "at"], name="rated_pair_recent")]

    def __str__(self) -> str:
        return f"{self.pool}: {self.low_id} v {self.high_id} (game {self.rated_game_id})"
