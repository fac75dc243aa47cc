"""Table chat: players' and spectators' messages, reports kept for staff, staff time-outs."""

from __future__ import annotations

from django.conf import settings as django_settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class Audience(models.TextChoices):
    PLAYERS = "players", _("Players")
    SPECTATORS = "spectators", _("Spectators")


class ChatMessage(models.Model):
    class Kind(models.TextChoices):
        TEXT = "text", _("Typed")
        QUICK = "quick", _("Quick chat")
        EMOTE = "emote", _("Emote")

    table = models.ForeignKey("tables.Table", on_delete=models.CASCADE, related_name="chat")
    user = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_messages"
    )
    audience = models.CharField(max_length=10, choices=Audience.choices)
    kind = models.CharField(max_length=5, choices=Kind.choices, default=Kind.TEXT)
    text = models.CharField(max_length=200, help_text=_("Plain text; never rendered as HTML."))
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["created_at", "pk"]
        indexes = [models.Index(fields=["table", "audience", "created_at"])]

    def __str__(self) -> str:
        return f"{self.user}: {self.text[:40]}"


class ChatReport(models.Model):
    """A player reported another's messages: a copy of them is kept for staff."""

    table = models.ForeignKey("tables.Table", on_delete=models.CASCADE, related_name="reports")
    reporter = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reports_made"
    )
    reported = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reports_about"
    )
    reason = models.CharField(max_length=200, blank=True)
    messages = models.JSONField(help_text=_("The reported player's recent messages, as sent."))
    created_at = models.DateTimeField(auto_now_add=True)
    handled = models.BooleanField(default=False)
    handled_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="reports_handled",
        help_text=_("The staff member who marked the report handled."),
    )
    handled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["handled", "-created_at"]
        constraints = [
            models.CheckConstraint(
                # Reports handled before who and when were kept have neither.
                condition=Q(handled=True) | Q(handled_by__isnull=True, handled_at__isnull=True),
                name="chat_report_handled_when",
            ),
            # One open report per reporter, player and table: a repeat is merged into it.
            models.UniqueConstraint(
                fields=["table", "reporter", "reported"],
                condition=Q(handled=False),
                name="chat_report_one_open",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.reporter} reported {self.reported}"


class ChatTimeout(models.Model):
    """Staff silence a chatter until a time, at one table or everywhere, with a reason."""

    user = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_timeouts"
    )
    table = models.ForeignKey(
        "tables.Table",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="chat_timeouts",
        help_text=_("Empty: everywhere on the site."),
    )
    until = models.DateTimeField()
    reason = models.CharField(max_length=200)
    by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="chat_timeouts_given",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=~Q(reason=""), name="chat_timeout_has_reason")
        ]

    def __str__(self) -> str:
        return f"{self.user} silenced until {self.until:%Y-%m-%d %H:%M}"
