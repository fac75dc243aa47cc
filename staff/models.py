"""The record of what staff did to a table or an account: who, when, why, and what it led to."""

from __future__ import annotations

from django.conf import settings as django_settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class StaffAction(models.Model):
    """One act of a staff member on a table (or, closing an account on its player's request, on
    an account), kept for ever (nothing here is edited)."""

    class Kind(models.TextChoices):
        GAME_VOID = "game_void", _("Voided a game")
        TABLE_CLOSE = "table_close", _("Closed a table")
        ACCOUNT_CLOSE = "account_close", _("Closed an account")

    kind = models.CharField(_("what"), max_length=14, choices=Kind.choices)
    by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="staff_actions",
        verbose_name=_("by"),
    )
    table = models.ForeignKey(
        "tables.Table",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="staff_actions",
        verbose_name=_("table"),
    )
    player = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="staff_actions_about",
        verbose_name=_("player"),
        help_text=_("The account closed (an act on a table names none)."),
    )
    game = models.ForeignKey(
        "tables.Game",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="staff_actions",
        verbose_name=_("game"),
        help_text=_("The game voided (a table closed with no game in play has none)."),
    )
    reason = models.TextField(_("reason"))
    detail = models.JSONField(
        _("detail"),
        default=dict,
        blank=True,
        help_text=_("What followed: the refund posting, the tournament match replayed."),
    )
    created_at = models.DateTimeField(_("when"), auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("staff action")
        verbose_name_plural = _("staff actions")
        permissions = [
            ("void_game", "Can void a game"),
            ("close_table", "Can close a table"),
            ("close_account", "Can close a player's account"),
        ]
        constraints = [
            models.CheckConstraint(condition=~Q(reason=""), name="staff_action_has_reason"),
            models.CheckConstraint(
                condition=~Q(kind="game_void") | Q(game__isnull=False),
                name="staff_void_names_its_game",
            ),
            models.CheckConstraint(
                condition=Q(kind="account_close", player__isnull=False, table__isnull=True)
                | (~Q(kind="account_close") & Q(table__isnull=False)),
                name="staff_act_names_its_table_or_player",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.table or self.player} ({self.by})"
