"""The house's user: an e-mail log-in, a unique display name, a date of birth and an age status."""

from __future__ import annotations

import datetime as dt
import secrets
from typing import Any, ClassVar

from django.conf import settings
from django.contrib.auth.models import AbstractUser, BaseUserManager
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _


class AgeStatus(models.TextChoices):
    DECLARED = "declared", _("Declared (adult by their own word)")
    VERIFIED = "verified", _("Verified by staff")
    SUSPENDED = "suspended", _("Suspended")


class HouseLevel(models.TextChoices):
    """A house player's level (engine/bots.py); people have none."""

    ROOKIE = "rookie", _("Rookie")
    REGULAR = "regular", _("Regular")
    SHARK = "shark", _("Shark")


class ProfileVisibility(models.TextChoices):
    """Who may open a player's profile page (the player and staff always may)."""

    EVERYONE = "everyone", _("Everyone, signed in or not")
    PLAYERS = "players", _("Signed-in players")
    ONLY_ME = "only_me", _("Nobody but me")


class UserManager(BaseUserManager["User"]):
    use_in_migrations = True

    def _create(self, email: str, password: str | None, **extra: Any) -> User:
        if not email:
            raise ValueError("An e-mail address is required.")
        user = self.model(email=self.normalize_email(email), **extra)
        user.set_password(password)
        user.save(using=self._db)
        return user

    def create_user(self, email: str, password: str | None = None, **extra: Any) -> User:
        extra.setdefault("is_staff", False)
        extra.setdefault("is_superuser", False)
        return self._create(email, password, **extra)

    def create_superuser(self, email: str, password: str | None = None, **extra: Any) -> User:
        extra.setdefault("is_staff", True)
        extra.setdefault("is_superuser", True)
        if isinstance(extra.get("date_of_birth"), str):
            extra["date_of_birth"] = dt.date.fromisoformat(extra["date_of_birth"])
        return self._create(email, password, **extra)


def new_socket_generation() -> str:
    """A fresh account generation (dominoes_site/user_sockets.py): not a secret, a change mark."""
    return secrets.token_hex(8)


class User(AbstractUser):
    username = None  # type: ignore[assignment]
    first_name = None  # type: ignore[assignment]
    last_name = None  # type: ignore[assignment]
    email = models.EmailField(_("e-mail address"), unique=True)
    display_name = models.CharField(
        _("display name"),
        max_length=24,
        help_text=_(
            "What other players see at the table. 3 to 24 letters, digits, spaces, - or _."
        ),
    )
    date_of_birth = models.DateField(
        _("date of birth"), null=True, blank=True, help_text=_("Erased when the account closes.")
    )
    age_status = models.CharField(
        _("age status"), max_length=10, choices=AgeStatus.choices, default=AgeStatus.DECLARED
    )
    age_status_changed_at = models.DateTimeField(_("age status changed"), null=True, blank=True)
    reported_underage = models.BooleanField(
        _("reported underage"),
        default=False,
        help_text=_("Set by staff on a report; the age-gate job suspends the account."),
    )
    needs_age_review = models.BooleanField(
        _("needs age review"),
        default=False,
        help_text=_("In the age-review queue until a staff member acts on it."),
    )
    time_zone = models.CharField(_("time zone"), max_length=64, default="UTC")
    language = models.CharField(
        _("language"), max_length=8, choices=settings.LANGUAGES, default="en", blank=True
    )

    socket_generation = models.CharField(
        _("socket generation"),
        max_length=16,
        default=new_socket_generation,
        blank=True,
        editable=False,
        help_text=_(
            "Changes whenever the account changes in a way that may end its right to play: "
            "its open sockets check it before they act (dominoes_site/user_sockets.py)."
        ),
    )
    profile_visibility = models.CharField(
        _("who sees my profile"),
        max_length=8,
        choices=ProfileVisibility.choices,
        default=ProfileVisibility.PLAYERS,
        help_text=_(
            "Your profile shows your games, statistics and workouts. Staff can always see it."
        ),
    )

    closed_at = models.DateTimeField(
        _("closed"),
        null=True,
        blank=True,
        editable=False,
        help_text=_(
            "When the account was closed: its personal data erased, its name replaced "
            "(docs/privacy.md). A closed account never opens again."
        ),
    )

    house_level = models.CharField(
        _("house player level"),
        max_length=8,
        choices=HouseLevel.choices,
        blank=True,
        default="",
        help_text=_("Set only on the house's own bot accounts, which can never log in."),
    )

    bot = models.BooleanField(
        _("bot account"),
        default=False,
        help_text=_(
            "Played by a program through the API, never by hand (docs/api.md, Bot accounts). "
            "An account with no games may become one, for good."
        ),
    )
    bot_since = models.DateTimeField(_("bot since"), null=True, blank=True, editable=False)

    USERNAME_FIELD = "email"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS: ClassVar[list[str]] = ["display_name", "date_of_birth"]

    objects = UserManager()  # type: ignore[misc]

    class Meta:
        verbose_name = _("player")
        verbose_name_plural = _("players")
        constraints = [
            models.UniqueConstraint(Lower("display_name"), name="unique_display_name_ci"),
            models.CheckConstraint(
                condition=models.Q(house_level__in=["", *HouseLevel.values]),
                name="house_level_known",
            ),
            models.CheckConstraint(
                condition=models.Q(profile_visibility__in=ProfileVisibility.values),
                name="profile_visibility_known",
            ),
        ]

    def __str__(self) -> str:
        return self.display_name or self.email

    @property
    def is_house_player(self) -> bool:
        return bool(self.house_level)

    @property
    def is_closed(self) -> bool:
        return self.closed_at is not None

    @property
    def shown_name(self) -> str:
        """The name pages show: the display name, or for a house player its name in the
        reader's language ("Shark Sam (house)" is stored; Spanish reads "Tiburón Sam (casa)");
        a closed account's placeholder likewise ("Closed account #12" is stored)."""
        if self.closed_at is not None:
            return closed_name(self.pk)
        if not self.house_level:
            return self.display_name
        first = self.display_name.removeprefix(f"{self.house_level.title()} ")
        first = first.removesuffix(" (house)")
        return _("%(level)s %(name)s (house)") % {
            "level": self.get_house_level_display(),
            "name": first,
        }

    def profile_visible_to(self, viewer: Any) -> bool:
        """Whether `viewer` (a user, or an anonymous visitor) may open this player's profile."""
        if getattr(viewer, "is_authenticated", False) and (
            viewer.pk == self.pk or (viewer.is_staff and viewer.is_active)
        ):
            return True
        if self.profile_visibility == ProfileVisibility.EVERYONE:
            return True
        if self.profile_visibility == ProfileVisibility.PLAYERS:
            return bool(getattr(viewer, "is_authenticated", False))
        return False

    def get_full_name(self) -> str:
        return self.display_name

    def get_short_name(self) -> str:
        return self.display_name


def closed_name(pk: int) -> str:
    """The neutral name a closed account goes by, in the reader's language. Display names
    never contain "#", so it can never be anyone's chosen name."""
    return _("Closed account #%(number)d") % {"number": pk}


class ClosedEmail(models.Model):
    """An e-mail address of a closed account, kept only as a keyed hash (HMAC with the site's
    secret key) with the closing date: it cannot sign up again until the waiting time is over
    (`accounts.services.email_blocked_until`). Rows past that time are removed every day."""

    digest = models.CharField(max_length=64, unique=True)
    closed_at = models.DateTimeField()

    class Meta:
        verbose_name = _("closed account's e-mail (hashed)")
        verbose_name_plural = _("closed accounts' e-mails (hashed)")

    def __str__(self) -> str:
        return f"{self.digest[:12]}… closed {self.closed_at:%Y-%m-%d}"


class AgeStatusChange(models.Model):
    """One change of a user's age status: who made it (staff, or the age-gate job), when, why."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="age_changes")
    old_status = models.CharField(max_length=10, choices=AgeStatus.choices)
    new_status = models.CharField(max_length=10, choices=AgeStatus.choices)
    changed_by = models.ForeignKey(
        User,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text=_("Empty when the daily age-gate job made the change."),
    )
    reason = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("age status change")

    def __str__(self) -> str:
        return f"{self.user}: {self.old_status} → {self.new_status}"


class AgeReview(User):
    """The admin's age-review queue: accounts a staff member should look at."""

    class Meta:
        proxy = True
        verbose_name = _("age review")
        verbose_name_plural = _("age-review queue")
