"""Each player's line of a finished game: what their profile lists and counts.

The game itself (its hands, actions and seeds) stays in `tables`; these rows are what the replay
of a finished game gave for each seat, kept so that a profile is one query, not a replay of
every game the player ever played. `history.services.game_archive` writes them, once per game.
"""

from __future__ import annotations

from django.conf import settings as django_settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from tables.models import MODE_CHOICES


class PlayerGame(models.Model):
    game = models.ForeignKey("tables.Game", on_delete=models.CASCADE, related_name="player_records")
    user = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="game_records"
    )
    seat = models.PositiveSmallIntegerField()
    side = models.PositiveSmallIntegerField()
    mode = models.CharField(max_length=12, choices=MODE_CHOICES)
    private = models.BooleanField(help_text=_("Played at a private table."))
    won = models.BooleanField()
    score = models.PositiveIntegerField(help_text=_("The player's side's final score."))
    hands = models.PositiveSmallIntegerField(help_text=_("Hands played (redeals not counted)."))
    points = models.PositiveIntegerField(
        help_text=_("Points the player's own plays made: ends, doubles bonuses, counts, blocks.")
    )
    dominoes = models.PositiveSmallIntegerField(help_text=_("Hands the player dominoed."))
    skunks_given = models.PositiveSmallIntegerField(
        help_text=_("Losing sides skunked in a game the player won.")
    )
    skunked = models.BooleanField(help_text=_("The player's side lost under the skunk line."))
    dumbbells = models.PositiveSmallIntegerField(help_text=_("Dumbbells taken in the game."))
    finished_at = models.DateTimeField()

    class Meta:
        ordering = ["-finished_at", "-game_id"]
        verbose_name = _("player's game")
        verbose_name_plural = _("players' games")
        indexes = [models.Index(fields=["user", "-finished_at"], name="history_user_recent")]
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="one_record_per_seat_per_game"),
            models.UniqueConstraint(fields=["game", "user"], name="one_record_per_player_per_game"),
            models.CheckConstraint(
                condition=Q(won=False) | Q(skunked=False), name="a_winner_is_never_skunked"
            ),
            models.CheckConstraint(
                condition=Q(dominoes__lte=models.F("hands")), name="dominoes_within_hands"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} in game {self.game_id} (seat {self.seat})"
