"""Clubs and their memberships.

A club's name is unique whatever its capitals ("Los Tranques" and "los tranques" are one club:
a database constraint on its lower case); its slug, made from the name when it is founded and
never changed, is its page's address. A membership is one player in one club (at most one row
per pair): asking to join (`requested`) or in (`active`), and when in, a `leader` or a `member`.
A membership that ends (the player leaves, is removed, a request is declined) is deleted: the
club keeps no list of former members.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

#: The longest club name (characters), and the longest description.
NAME_MAX = 40
DESCRIPTION_MAX = 2000


class Policy(models.TextChoices):
    OPEN = "open", _("Open: anyone may join at once")
    REQUEST = "request", _("By request: a leader approves each new member")


class Club(models.Model):
    Policy = Policy

    name = models.CharField(_("name"), max_length=NAME_MAX)
    slug = models.SlugField(_("address"), max_length=NAME_MAX + 8, unique=True)
    description = models.TextField(_("description"), blank=True, max_length=DESCRIPTION_MAX)
    policy = models.CharField(
        _("who may join"), max_length=8, choices=Policy.choices, default=Policy.OPEN
    )
    founded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("founded by"),
        null=True,
        on_delete=models.SET_NULL,
        related_name="clubs_founded",
    )
    created_at = models.DateTimeField(_("founded"), default=timezone.now)

    class Meta:
        verbose_name = _("club")
        verbose_name_plural = _("clubs")
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(Lower("name"), name="club_name_unique_any_case"),
            models.CheckConstraint(condition=~Q(name=""), name="club_name_not_blank"),
            models.CheckConstraint(condition=~Q(slug=""), name="club_slug_not_blank"),
            models.CheckConstraint(condition=Q(policy__in=Policy.values), name="club_policy_known"),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("clubs:detail", args=[self.slug])


class Role(models.TextChoices):
    LEADER = "leader", _("Leader")
    MEMBER = "member", _("Member")


class Status(models.TextChoices):
    REQUESTED = "requested", _("Asked to join")
    ACTIVE = "active", _("Member")


class Membership(models.Model):
    """One player in one club. A leader is always an active member; a request has the time it
    was made and no joining time until a leader approves it."""

    Role = Role
    Status = Status

    club = models.ForeignKey(
        Club, verbose_name=_("club"), on_delete=models.CASCADE, related_name="memberships"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        on_delete=models.CASCADE,
        related_name="club_memberships",
    )
    role = models.CharField(_("role"), max_length=8, choices=Role.choices, default=Role.MEMBER)
    status = models.CharField(_("status"), max_length=10, choices=Status.choices)
    requested_at = models.DateTimeField(_("asked to join"), null=True, blank=True)
    joined_at = models.DateTimeField(_("joined"), null=True, blank=True)

    class Meta:
        verbose_name = _("club membership")
        verbose_name_plural = _("club memberships")
        constraints = [
            models.UniqueConstraint(fields=["club", "user"], name="club_membership_once"),
            models.CheckConstraint(
                condition=Q(role__in=Role.values), name="club_membership_role_known"
            ),
            models.CheckConstraint(
                condition=Q(status__in=Status.values), name="club_membership_status_known"
            ),
            models.CheckConstraint(
                condition=Q(status=Status.ACTIVE, joined_at__isnull=False)
                | Q(status=Status.REQUESTED, joined_at__isnull=True, requested_at__isnull=False),
                name="club_membership_times",
            ),
            models.CheckConstraint(
                condition=Q(role=Role.MEMBER) | Q(status=Status.ACTIVE),
                name="club_leader_is_a_member",
            ),
        ]
        indexes = [
            models.Index(fields=["club", "status", "role"], name="club_membership_club"),
            models.Index(fields=["user", "status"], name="club_membership_user"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} in club {self.club_id}: {self.status} {self.role}"

    @property
    def is_leader(self) -> bool:
        return self.status == Status.ACTIVE and self.role == Role.LEADER
