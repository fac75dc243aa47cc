"""Players waiting in a quick-pairing pool, and the tables the pools made.

A pool is one cell of the "Play now" grid (`pairing.cells.Cell`, stored as its key, e.g.
`citizen:1v1:10`). A `PoolEntry` is one player's wait in one pool; a player has at most one entry
waiting (a database constraint), so joining another pool first ends the wait in the first.
Every change of an entry's status is a compare-and-set (`UPDATE ... WHERE status = 'waiting'`),
so two workers pairing at once never seat one player twice.
"""

from __future__ import annotations

from django.conf import settings as django_settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class Match(models.Model):
    """A table the pool made: its players confirm with the table's own "Ready" by `confirm_by`,
    or their seat goes to the next player waiting."""

    class Status(models.TextChoices):
        CONFIRMING = "confirming", _("Waiting for every player to be ready")
        STARTED = "started", _("Started")
        CANCELLED = "cancelled", _("Cancelled")

    table = models.OneToOneField(
        "tables.Table", on_delete=models.CASCADE, related_name="pairing_match"
    )
    cell = models.CharField(max_length=40, db_index=True)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.CONFIRMING)
    house_filled = models.BooleanField(
        default=False, help_text=_("House players took seats nobody came for: played casual.")
    )
    created_at = models.DateTimeField(auto_now_add=True)
    confirm_by = models.DateTimeField(
        help_text=_("Players not ready by then lose their seat to the next player waiting.")
    )

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("table made by a pool")
        verbose_name_plural = _("tables made by pools")
        indexes = [models.Index(fields=["status", "cell"])]

    def __str__(self) -> str:
        return f"match {self.pk} at table {self.table_id} ({self.cell})"


class PoolEntry(models.Model):
    """One player's wait in one pool, from joining until seated, leaving, or losing the seat."""

    class Status(models.TextChoices):
        WAITING = "waiting", _("Waiting")
        SEATED = "seated", _("Seated")
        LEFT = "left", _("Left the pool")
        DROPPED = "dropped", _("Not ready in time")

    user = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="pool_entries"
    )
    cell = models.CharField(max_length=40)
    house_fill = models.BooleanField(
        default=False,
        help_text=_("Fill seats nobody came for with house players after a wait (casual)."),
    )
    rating = models.IntegerField(help_text=_("The player's rating in the pool when they joined."))
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.WAITING)
    joined_at = models.DateTimeField()
    seen_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text=_("Last time the player's page asked how the wait goes: closed pages leave."),
    )
    seated_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    match = models.ForeignKey(
        Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="entries"
    )

    class Meta:
        ordering = ["joined_at"]
        verbose_name_plural = _("pool entries")
        indexes = [models.Index(fields=["cell", "status", "joined_at"])]
        constraints = [
            models.UniqueConstraint(
                fields=["user"], condition=Q(status="waiting"), name="one_pool_at_a_time"
            ),
            models.CheckConstraint(
                condition=~Q(status="seated") | Q(seated_at__isnull=False),
                name="seated_entry_has_time",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.cell} ({self.status})"
