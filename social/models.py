"""Follows (a player's friends), challenges and the challenge preference."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _


class Follow(models.Model):
    """`follower` follows `followed`. A player's friends are the players they follow: one-way,
    no request to accept (so following someone tells them nothing and gives them nothing)."""

    follower = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="follows"
    )
    followed = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="followers"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["follower", "followed"], name="follow_once"),
            models.CheckConstraint(
                condition=~Q(follower=F("followed")), name="follow_not_yourself"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.follower_id} follows {self.followed_id}"


class ChallengesFrom(models.TextChoices):
    EVERYONE = "everyone", _("Everyone")
    FRIENDS = "friends", _("Only players I follow")
    NOBODY = "nobody", _("Nobody")


class SocialSettings(models.Model):
    """A player's choices here; a player without a row has the defaults."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="social_settings"
    )
    challenges_from = models.CharField(
        max_length=10, choices=ChallengesFrom.choices, default=ChallengesFrom.EVERYONE
    )
    games_watchable = models.BooleanField(
        default=True,
        help_text=_(
            "Other players may watch this player's games: listed on the Watch page, and a "
            "Play now, challenge or tournament table may be watched."
        ),
    )
    bots_rated = models.BooleanField(
        default=False,
        help_text=_(
            "This player agrees to rated games with bot accounts: a bot may challenge them to "
            "a rated game (and they a bot), and Play now may pair them with bots. Off: rated "
            "challenges between them and a bot are refused, and Play now never pairs them "
            "with one (docs/api.md, Bot accounts)."
        ),
    )

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(challenges_from__in=ChallengesFrom.values),
                name="social_challenges_from_known",
            )
        ]

    def __str__(self) -> str:
        return f"{self.user_id}: challenges from {self.challenges_from}"


class ChallengeStatus(models.TextChoices):
    PENDING = "pending", _("Waiting for an answer")
    ACCEPTED = "accepted", _("Accepted")
    DECLINED = "declined", _("Declined")
    WITHDRAWN = "withdrawn", _("Withdrawn")
    EXPIRED = "expired", _("Expired")
    FAILED = "failed", _("Could not be seated")


class Challenge(models.Model):
    """One player asks another to a table with these settings. Pending until answered,
    withdrawn or `expires_at`; a pending challenge past `expires_at` is expired wherever it is
    read (social.services), and its row says so the next time the list is read."""

    Status = ChallengeStatus

    challenger = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_sent"
    )
    challenged = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_received"
    )
    mode = models.CharField(max_length=20)
    #: The table's settings as the create form cleaned them (engine options).
    options = models.JSONField(default=dict)
    on_leave = models.CharField(max_length=10, default="wait")
    private = models.BooleanField(default=True)
    #: Rated by default; a casual table's games never change ratings (the create form's choice).
    rated = models.BooleanField(default=True)
    #: The stake: whole Dollars, or a canteen bundle [[good id, quantity], ...]; neither: none.
    stake_dollars = models.PositiveIntegerField(default=0)
    stake_bundle = models.JSONField(default=list)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    answered_at = models.DateTimeField(null=True, blank=True)
    table = models.ForeignKey(
        "tables.Table", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    #: Why an accepted challenge could not be seated: `cannot_cover` (the challenged player
    #: can't cover the stake), `cannot_sit` (they may not sit now), `challenger_cannot_sit`.
    failure = models.CharField(max_length=30, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=~Q(challenger=F("challenged")), name="challenge_not_yourself"
            ),
            models.CheckConstraint(
                condition=Q(status__in=ChallengeStatus.values),
                name="challenge_status_known",
            ),
            models.UniqueConstraint(
                fields=["challenger", "challenged"],
                condition=Q(status="pending"),
                name="challenge_one_pending_per_pair",
            ),
            models.CheckConstraint(
                condition=Q(status="accepted") | Q(table__isnull=True),
                name="challenge_table_only_when_accepted",
            ),
        ]
        indexes = [
            models.Index(fields=["challenged", "status"]),
            models.Index(fields=["challenger", "status"]),
        ]

    def __str__(self) -> str:
        return f"challenge {self.pk}: {self.challenger_id} → {self.challenged_id} ({self.status})"
