"""Tables, seats, games, hands (with their fair-deal commitments), actions and the event log.

A table's `seq` is its event number: every change anyone can see raises it by one and is kept as
a `TableEvent`, so a client that reconnects gets what it missed. A game's `version` is raised by
every action applied to it; actions name the version they were made against (compare-and-set).
The game's `state` is the engine's JSON, a cache of its deals and actions.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings as django_settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

MODE_CHOICES = [
    ("citizen", _("Citizen")),
    ("citizen_gym", _("Citizen Gym")),
    ("inmate", _("Inmate")),
    ("inmate_gym", _("Inmate Gym")),
    ("fives", _("Fives")),
    ("threes", _("Threes")),
]


def new_invite_code() -> str:
    return secrets.token_urlsafe(9)


class Table(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", _("Waiting for players")
        PLAYING = "playing", _("Playing")
        FINISHED = "finished", _("Finished")
        ABORTED = "aborted", _("Aborted")

    mode = models.CharField(max_length=12, choices=MODE_CHOICES)
    settings = models.JSONField(help_text=_("The engine's table settings (validated)."))
    host = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="hosted_tables"
    )
    private = models.BooleanField(default=False)
    invite_code = models.CharField(max_length=16, default=new_invite_code, unique=True)

    class OnLeave(models.TextChoices):
        WAIT = "wait", _("Wait for the player to come back")
        FORFEIT = "forfeit", _("The player who left forfeits")

    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    seq = models.PositiveIntegerField(default=0, help_text=_("The table's event number."))
    on_leave = models.CharField(
        max_length=8,
        choices=OnLeave.choices,
        default=OnLeave.WAIT,
        help_text=_(
            "Cut Throat and Partners: what happens when a player's grace runs out after leaving."
        ),
    )
    rated = models.BooleanField(
        default=True,
        help_text=_("Its games change the players' ratings (unless casual: docs/ratings.md)."),
    )
    clock_halving = models.BooleanField(
        default=False,
        help_text=_(
            "A seated player may halve their own turn clock here, before their first move "
            "(an arena's berserk)."
        ),
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "private"])]

    def __str__(self) -> str:
        return f"Table {self.pk} ({self.get_mode_display()})"

    def get_absolute_url(self) -> str:
        return reverse("tables:table", args=[self.pk])

    @property
    def players(self) -> int:
        return int(self.settings["players"])


class Seat(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="seats",
    )
    ready = models.BooleanField(default=False)
    joined_at = models.DateTimeField(null=True, blank=True)
    away_since = models.DateTimeField(
        null=True, blank=True, help_text=_("When the player's last connection closed mid-game.")
    )
    grace_until = models.DateTimeField(
        null=True, blank=True, db_index=True, help_text=_("The seat is held until then.")
    )
    left_on_purpose = models.BooleanField(
        default=False, help_text=_("The page was closed rather than the connection lost.")
    )
    rematch = models.BooleanField(default=False, help_text=_("Wants a rematch."))

    class Meta:
        ordering = ["table", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="one_seat_number_per_table"),
            models.UniqueConstraint(
                fields=["table", "user"],
                condition=Q(user__isnull=False),
                name="one_seat_per_player_per_table",
            ),
            models.CheckConstraint(
                condition=Q(user__isnull=False) | Q(ready=False), name="empty_seat_not_ready"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table} seat {self.number}"


class Game(models.Model):
    class Status(models.TextChoices):
        WAITING = "waiting", _("Waiting for players")
        PLAYING = "playing", _("Playing")
        FINISHED = "finished", _("Finished")
        ABORTED = "aborted", _("Aborted")

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="games")
    number = models.PositiveSmallIntegerField(default=1)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    state = models.JSONField()
    version = models.PositiveIntegerField(default=0)
    deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    clock_starts_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text=_(
            "Gym tables after a hand: no turn clock runs before then (every seated player "
            "dismissed the hand's summary, or its wait ran out)."
        ),
    )
    summary_seen = models.JSONField(
        default=list,
        blank=True,
        help_text=_("The seats that dismissed the last hand's summary (house players at once)."),
    )
    seat_clocks = models.JSONField(
        default=dict,
        blank=True,
        help_text=_(
            "Gym tables: a seat's own turn clock in seconds, by seat number, where it differs "
            "from the table's (a player who halved their clock)."
        ),
    )
    players = models.JSONField(help_text=_("User ids by seat number when the game started."))
    result = models.JSONField(null=True, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="one_game_number_per_table"),
            models.UniqueConstraint(
                fields=["table"],
                condition=Q(status__in=["waiting", "playing"]),
                name="one_live_game_per_table",
            ),
        ]

    def __str__(self) -> str:
        return f"Game {self.pk} at table {self.table_id}"

    def turn_clock(self, seat: int, clock: int) -> int:
        """The seat's own full turn clock in seconds, at a table whose clock is `clock`."""
        return int(self.seat_clocks.get(str(seat), clock))


class Hand(models.Model):
    """One deal: the server's secret seed, its published commitment and the washers' entropy."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="hands")
    number = models.PositiveSmallIntegerField()
    server_seed = models.CharField(max_length=64, help_text=_("Secret until the hand is over."))
    commitment = models.CharField(max_length=64, help_text=_("SHA-256 of the server seed."))
    contributions = models.JSONField(
        default=dict, help_text=_("Each washing seat's random value, by seat number.")
    )
    washers = models.JSONField(null=True, blank=True)
    dealt_at = models.DateTimeField(null=True, blank=True)
    revealed = models.BooleanField(default=False)

    class Meta:
        ordering = ["game", "number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="one_hand_number_per_game"),
        ]

    def __str__(self) -> str:
        return f"Hand {self.number} of game {self.game_id}"


class GameAction(models.Model):
    """The append-only log of what was applied to a game: the game can be rebuilt from it."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="actions")
    version = models.PositiveIntegerField(help_text=_("The game version the action produced."))
    seat = models.SmallIntegerField(null=True)
    kind = models.CharField(max_length=16)
    action = models.JSONField()
    by_server = models.BooleanField(default=False, help_text=_("A forced pass or a deal."))
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "version"]
        constraints = [
            models.UniqueConstraint(fields=["game", "version"], name="one_action_per_version"),
        ]

    def __str__(self) -> str:
        return f"game {self.game_id} v{self.version}: {self.kind}"


class TableEvent(models.Model):
    """What changed at a table, as each audience may see it: kept for reconnecting clients."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    public = models.JSONField(help_text=_("The events as a spectator sees them."))
    private = models.JSONField(
        default=dict, help_text=_("Per seat number, the events as that seat sees them.")
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["table", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["table", "seq"], name="one_event_per_seq"),
        ]

    def __str__(self) -> str:
        return f"table {self.table_id} #{self.seq}"

    def for_seat(self, seat: int | None) -> list[dict[str, Any]]:
        if seat is not None and str(seat) in self.private:
            return list(self.private[str(seat)])
        return list(self.public)


class Presence(models.Model):
    """One open socket at a table: who is there (players online, watchers counted)."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="presences")
    user = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="presences"
    )
    channel_name = models.CharField(max_length=200, unique=True)
    seat = models.SmallIntegerField(null=True, blank=True)
    connected_at = models.DateTimeField(auto_now_add=True)
    seen_at = models.DateTimeField(
        db_index=True, help_text=_("Refreshed by the page's pings; stale rows are ignored.")
    )

    class Meta:
        indexes = [models.Index(fields=["table", "seen_at"])]

    def __str__(self) -> str:
        return f"{self.user} at {self.table}"


class Abandonment(models.Model):
    """A game a player left for good (their grace ran out): repeated ones make them wait."""

    user = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="abandonments"
    )
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="abandonments")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["user", "game"], name="one_abandonment_per_game")
        ]

    def __str__(self) -> str:
        return f"{self.user} left game {self.game_id}"
