"""Personal access tokens: how a player's own programs (a bot, a script, an app of their own)
act for them through the public API (docs/api.md).

A token is shown once, when it is made; only its SHA-256 is kept (`digest`), with its first
characters (`prefix`) so that its owner can tell their tokens apart. Each has scopes: what it may
do. A revoked token is kept (its name, scopes and use), and never works again.
"""

from __future__ import annotations

from django.conf import settings as django_settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Scope(models.TextChoices):
    READ = "read", _("Read: your account, ratings and games")
    PLAY = "play", _("Play: move in your games, and watch them live")
    CHALLENGE = "challenge", _("Challenge: send and answer challenges, and join Play now")
    TOURNAMENTS = "tournaments", _("Tournaments: register and withdraw")


class AccessToken(models.Model):
    user = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="access_tokens"
    )
    name = models.CharField(_("name"), max_length=60)
    scopes = models.JSONField(_("scopes"), default=list)
    digest = models.CharField(max_length=64, unique=True, editable=False)
    prefix = models.CharField(_("begins with"), max_length=16, editable=False)
    created_at = models.DateTimeField(_("made"), auto_now_add=True)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("personal access token")
        verbose_name_plural = _("personal access tokens")

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def active(self) -> bool:
        return self.revoked_at is None
