"""Tournaments: events, their entries (a player, or a pair for Partners) and their matches.

A tournament's `status` moves draft → published → registration → checkin → running → finished
(or cancelled); every move is a compare-and-set on the status (`tournaments.services`), so two
sweeps never both make it. A match is one pairing of two entries, played as a best of 1, 3 or 5
games, each game at a table of its own; elimination brackets have every match row from the
start (filled in as results come), Swiss rounds are added one at a time.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from tables.models import MODE_CHOICES

ORGANIZERS_GROUP = "Tournament organizers"


class Tournament(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        PUBLISHED = "published", _("Published")
        REGISTRATION = "registration", _("Registration open")
        CHECKIN = "checkin", _("Check-in open")
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")
        CANCELLED = "cancelled", _("Cancelled")

    class Format(models.TextChoices):
        SINGLE = "single", _("Single elimination")
        DOUBLE = "double", _("Double elimination")
        SWISS = "swiss", _("Swiss")
        ARENA = "arena", _("Arena")

    class Seeding(models.TextChoices):
        RANDOM = "random", _("Random")
        ORGANIZER = "organizer", _("The organizer's order")
        RATING = "rating", _("By rating, best first")

    class Fee(models.TextChoices):
        FREE = "free", _("Free")
        DOLLARS = "dollars", _("Dominologist Dollars")
        CANTEEN = "canteen", _("Canteen entry (Commissary goods)")

    organizer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="organized_tournaments"
    )
    name = models.CharField(_("name"), max_length=80)
    description = models.TextField(_("description"), blank=True)
    rules_text = models.TextField(_("official rules"))
    mode = models.CharField(_("mode"), max_length=12, choices=MODE_CHOICES)
    table_settings = models.JSONField(_("table settings"))
    format = models.CharField(_("format"), max_length=8, choices=Format.choices)
    swiss_rounds = models.PositiveSmallIntegerField(_("Swiss rounds"), null=True, blank=True)
    arena_minutes = models.PositiveSmallIntegerField(
        _("arena length (minutes)"), null=True, blank=True
    )
    standings_seq = models.PositiveIntegerField(
        default=0, help_text=_("An arena: raised by every change of its standings.")
    )
    frame_seq = models.PositiveIntegerField(
        default=0, help_text=_("An arena: the standings_seq its last standings frame showed.")
    )
    frame_sent_at = models.DateTimeField(null=True, blank=True)
    best_of = models.PositiveSmallIntegerField(
        _("games per match"), choices=[(1, "1"), (3, "3"), (5, "5")], default=1
    )
    fee_kind = models.CharField(_("entry fee"), max_length=8, choices=Fee.choices, default=Fee.FREE)
    fee_dollars = models.PositiveIntegerField(_("entry fee in Dollars"), default=0)
    fee_canteen = models.JSONField(
        _("canteen entry"), default=dict, blank=True, help_text=_("Good id → quantity.")
    )
    prize_split = models.JSONField(_("prize split"), default=list)
    max_entrants = models.PositiveSmallIntegerField(_("maximum entrants"))
    registration_opens = models.DateTimeField(_("registration opens"))
    registration_closes = models.DateTimeField(_("registration closes"))
    starts_at = models.DateTimeField(_("starts"))
    checkin_minutes = models.PositiveSmallIntegerField(_("check-in window (minutes)"), default=15)
    round_minutes = models.PositiveSmallIntegerField(_("minutes between rounds"), default=2)
    noshow_minutes = models.PositiveSmallIntegerField(_("no-show time (minutes)"), default=3)
    seeding = models.CharField(
        _("seeding"), max_length=10, choices=Seeding.choices, default=Seeding.RANDOM
    )
    bots_welcome = models.BooleanField(
        _("bot accounts may enter"),
        default=False,
        help_text=_("Bot accounts (they play through the API) enter only where this is on."),
    )
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.DRAFT)
    current_round = models.PositiveSmallIntegerField(default=0)
    rounds_total = models.PositiveSmallIntegerField(default=0)
    next_round_at = models.DateTimeField(null=True, blank=True)
    seq = models.PositiveIntegerField(default=0, help_text=_("Raised by every visible change."))
    placings = models.JSONField(null=True, blank=True, help_text=_("Entry ids, best first."))
    prizes = models.JSONField(null=True, blank=True, help_text=_("What each player was paid."))
    end_note = models.CharField(max_length=200, blank=True)
    series = models.ForeignKey(
        "Series", null=True, blank=True, on_delete=models.PROTECT, related_name="events"
    )
    occurrence = models.DateTimeField(
        null=True, blank=True, help_text=_("A series' event: the start its schedule gave.")
    )
    co_organizers = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="co_organized_tournaments",
        verbose_name=_("co-organizers"),
    )
    club = models.ForeignKey(
        "clubs.Club",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="events",
        verbose_name=_("club"),
        help_text=_("A club's own event: only its members may register; its leaders run it."),
    )
    battle_clubs = models.ManyToManyField(
        "clubs.Club",
        blank=True,
        related_name="battles",
        verbose_name=_("clubs in the battle"),
        help_text=_("A club battle arena: the clubs whose members may join, each for its club."),
    )
    battle_top = models.PositiveSmallIntegerField(
        _("players who count for each club"),
        null=True,
        blank=True,
        help_text=_("A club battle: a club's score is the sum of its best N players' points."),
    )
    cancel_reason = models.TextField(blank=True)
    cancelled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    published_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["starts_at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(registration_closes__gt=models.F("registration_opens")),
                name="tournament_registration_closes_after_opening",
            ),
            models.CheckConstraint(
                condition=Q(starts_at__gte=models.F("registration_closes")),
                name="tournament_starts_after_registration",
            ),
            models.CheckConstraint(
                condition=Q(best_of__in=[1, 3, 5]), name="tournament_best_of_1_3_5"
            ),
            models.CheckConstraint(
                condition=Q(max_entrants__gte=2, max_entrants__lte=64)
                | Q(format="arena", max_entrants__gte=2, max_entrants__lte=1000),
                name="tournament_2_to_64_entrants_or_an_arena",
            ),
            models.CheckConstraint(
                condition=Q(format="arena", arena_minutes__gte=30, arena_minutes__lte=120)
                | (~Q(format="arena") & Q(arena_minutes__isnull=True)),
                name="tournament_arena_minutes_iff_arena",
            ),
            models.CheckConstraint(
                condition=Q(fee_kind="dollars", fee_dollars__gt=0)
                | (~Q(fee_kind="dollars") & Q(fee_dollars=0)),
                name="tournament_dollar_fee_iff_dollars",
            ),
            models.CheckConstraint(
                condition=Q(format="swiss", swiss_rounds__gte=1)
                | (~Q(format="swiss") & Q(swiss_rounds__isnull=True)),
                name="tournament_swiss_rounds_iff_swiss",
            ),
            models.CheckConstraint(
                condition=Q(noshow_minutes__gte=1), name="tournament_noshow_at_least_a_minute"
            ),
            # A series never makes the same occurrence twice (two beats, a rerun).
            models.UniqueConstraint(
                fields=["series", "occurrence"],
                condition=Q(series__isnull=False),
                name="one_event_per_series_occurrence",
            ),
            models.CheckConstraint(
                condition=Q(series__isnull=True, occurrence__isnull=True)
                | Q(series__isnull=False, occurrence__isnull=False),
                name="tournament_occurrence_iff_series",
            ),
            # A club battle is an arena open to its clubs, not one club's own event.
            models.CheckConstraint(
                condition=Q(battle_top__isnull=True)
                | Q(format="arena", club__isnull=True, battle_top__gte=1, battle_top__lte=50),
                name="tournament_battle_is_an_open_arena",
            ),
        ]
        indexes = [models.Index(fields=["status", "starts_at"])]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("tournaments:detail", args=[self.pk])

    @property
    def is_battle(self) -> bool:
        return self.battle_top is not None

    @property
    def partners(self) -> bool:
        return bool(self.table_settings.get("partners"))

    @property
    def wins_needed(self) -> int:
        return self.best_of // 2 + 1

    @property
    def is_live(self) -> bool:
        return self.status in (self.Status.CHECKIN, self.Status.RUNNING)


class Entry(models.Model):
    """One entrant: a player, or a pair of partners who registered together."""

    class Withdrawal(models.TextChoices):
        PLAYER = "player", _("Withdrew")
        NO_CHECKIN = "no_checkin", _("Did not check in")
        SUSPENDED = "suspended", _("Account may not play")
        DECLINED = "declined", _("The partner declined")
        CANCELLED = "cancelled", _("The event was cancelled")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tournament_entries"
    )
    partner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="tournament_partnerships",
    )
    partner_confirmed = models.BooleanField(default=False)
    paused = models.BooleanField(
        default=False, help_text=_("An arena: not paired until they come back.")
    )
    start_rating = models.FloatField(
        null=True, blank=True, help_text=_("An arena: the rating pairing and performance use.")
    )
    club = models.ForeignKey(
        "clubs.Club",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text=_("A club battle: the club this player plays for."),
    )
    seed = models.PositiveSmallIntegerField(null=True, blank=True)
    registered_at = models.DateTimeField(auto_now_add=True)
    player_checked_in_at = models.DateTimeField(null=True, blank=True)
    partner_checked_in_at = models.DateTimeField(null=True, blank=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    withdrawal = models.CharField(max_length=12, choices=Withdrawal.choices, blank=True)
    disqualified_at = models.DateTimeField(null=True, blank=True)
    disqualified_reason = models.TextField(blank=True)
    disqualified_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )

    class Meta:
        ordering = ["tournament", "seed", "registered_at", "pk"]
        verbose_name_plural = _("entries")
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "player"],
                condition=Q(withdrawn_at__isnull=True),
                name="one_active_entry_per_player",
            ),
            models.UniqueConstraint(
                fields=["tournament", "partner"],
                condition=Q(withdrawn_at__isnull=True, partner__isnull=False),
                name="one_active_entry_per_partner",
            ),
            models.CheckConstraint(
                condition=~Q(player=models.F("partner")), name="entry_partner_is_someone_else"
            ),
            models.CheckConstraint(
                condition=Q(disqualified_at__isnull=True) | ~Q(disqualified_reason=""),
                name="entry_disqualified_with_a_reason",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def name(self) -> str:
        if self.partner_id is None:
            return self.player.display_name
        return f"{self.player.display_name} & {self.partner.display_name}"  # type: ignore[union-attr]

    @property
    def user_ids(self) -> list[int]:
        return [self.player_id] + ([self.partner_id] if self.partner_id else [])

    @property
    def active(self) -> bool:
        """Still in the event: not withdrawn, not disqualified."""
        return self.withdrawn_at is None and self.disqualified_at is None

    @property
    def checked_in(self) -> bool:
        if self.player_checked_in_at is None:
            return False
        return self.partner_id is None or self.partner_checked_in_at is not None


class Match(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting for earlier matches")
        READY = "ready", _("Ready to start")
        WAITING = "waiting", _("Table ready: waiting for the players")
        PLAYING = "playing", _("Playing")
        DONE = "done", _("Finished")
        WALKOVER = "walkover", _("Walkover")
        BYE = "bye", _("Bye")
        EMPTY = "empty", _("Nobody to play")
        SKIPPED = "skipped", _("Not needed")

    FINAL = (Status.DONE, Status.WALKOVER, Status.BYE, Status.EMPTY, Status.SKIPPED)

    class Outcome(models.TextChoices):
        PLAYED = "played", _("Played")
        FORFEIT = "forfeit", _("Forfeit: absent")
        BOTH_ABSENT = "both_absent", _("Both absent")
        OUT = "out", _("Forfeit: out of the event")
        SETTLED = "settled", _("Settled by the organizer")

    class Bracket(models.TextChoices):
        WINNERS = "W", _("Winners bracket")
        LOSERS = "L", _("Losers bracket")
        FINAL = "F", _("Grand final")
        SWISS = "S", _("Swiss")
        ARENA = "A", _("Arena")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="matches")
    key = models.CharField(max_length=12)
    round = models.PositiveSmallIntegerField()
    bracket = models.CharField(max_length=1, choices=Bracket.choices)
    stage = models.PositiveSmallIntegerField()
    number = models.PositiveSmallIntegerField()
    entry_a = models.ForeignKey(
        Entry, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    entry_b = models.ForeignKey(
        Entry, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    table = models.ForeignKey(
        "tables.Table",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="tournament_matches",
    )
    games = models.JSONField(default=list, blank=True)
    berserk = models.JSONField(
        default=list, blank=True, help_text=_("An arena game: the entries that berserked.")
    )
    wins_a = models.PositiveSmallIntegerField(default=0)
    wins_b = models.PositiveSmallIntegerField(default=0)
    winner = models.ForeignKey(
        Entry, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    outcome = models.CharField(max_length=12, choices=Outcome.choices, blank=True)
    noshow_deadline = models.DateTimeField(null=True, blank=True)
    settled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    settled_reason = models.TextField(blank=True)
    settled_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "round", "bracket", "stage", "number"]
        verbose_name_plural = _("matches")
        constraints = [
            models.UniqueConstraint(fields=["tournament", "key"], name="one_match_per_key"),
            models.CheckConstraint(
                condition=Q(settled_by__isnull=True) | ~Q(settled_reason=""),
                name="match_settled_with_a_reason",
            ),
            models.CheckConstraint(
                condition=Q(winner__isnull=True)
                | Q(winner=models.F("entry_a"))
                | Q(winner=models.F("entry_b")),
                name="match_winner_plays_in_it",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tournament} {self.key}"

    @property
    def entries(self) -> list[Entry]:
        return [e for e in (self.entry_a, self.entry_b) if e is not None]

    @property
    def is_final(self) -> bool:
        return self.status in self.FINAL


class Series(models.Model):
    """A recurring event: one event's settings and a schedule ("every Friday at 20:00 in
    New York"). Beat creates each occurrence's event `open_ahead_hours` before it starts,
    published with registration open (`tournaments.series`), exactly once: an event of a series
    is unique by (series, occurrence)."""

    class Status(models.TextChoices):
        ACTIVE = "active", _("Running")
        PAUSED = "paused", _("Paused")
        ENDED = "ended", _("Ended")

    class Repeats(models.TextChoices):
        HOURLY = "hourly", _("Every hour")
        DAILY = "daily", _("Every day")
        WEEKLY = "weekly", _("Every week")
        MONTHLY = "monthly", _("Every month")

    organizer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="organized_series"
    )
    name = models.CharField(_("name"), max_length=80)
    description = models.TextField(_("description"), blank=True)
    event_settings = models.JSONField(
        _("event settings"),
        help_text=_("Each event's settings, as the event form takes them, without its times."),
    )
    repeats = models.CharField(_("repeats"), max_length=8, choices=Repeats.choices)
    weekday = models.PositiveSmallIntegerField(
        _("weekday"), null=True, blank=True, help_text=_("0 Monday ... 6 Sunday.")
    )
    month_week = models.SmallIntegerField(
        _("week of the month"),
        null=True,
        blank=True,
        help_text=_("1 to 4 (the first to the fourth), or -1 (the last)."),
    )
    at_hour = models.PositiveSmallIntegerField(_("hour"), default=20)
    at_minute = models.PositiveSmallIntegerField(_("minute"), default=0)
    time_zone = models.CharField(_("time zone"), max_length=64, default="UTC")
    open_ahead_hours = models.PositiveSmallIntegerField(
        _("registration opens (hours before the start)"), default=168
    )
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.ACTIVE)
    club = models.ForeignKey(
        "clubs.Club",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="series",
        verbose_name=_("club"),
        help_text=_(
            "A club's own series: its events are for the club's members; its leaders run it."
        ),
    )
    co_organizers = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="co_organized_series",
        verbose_name=_("co-organizers"),
    )
    problem = models.CharField(
        max_length=300,
        blank=True,
        help_text=_("Why the last event could not be made (cleared when one is)."),
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    followers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="SeriesFollow", related_name="followed_series"
    )

    class Meta:
        ordering = ["name", "pk"]
        verbose_name_plural = _("series")
        constraints = [
            models.CheckConstraint(
                condition=Q(at_hour__lte=23, at_minute__lte=59), name="series_time_of_day"
            ),
            models.CheckConstraint(
                condition=Q(weekday__isnull=True) | Q(weekday__lte=6), name="series_weekday"
            ),
            models.CheckConstraint(
                condition=(Q(repeats="weekly") & Q(weekday__isnull=False))
                | (Q(repeats="monthly") & Q(weekday__isnull=False, month_week__isnull=False))
                | (Q(repeats__in=["hourly", "daily"]) & Q(weekday__isnull=True)),
                name="series_weekday_for_weekly_and_monthly",
            ),
            models.CheckConstraint(
                condition=Q(month_week__isnull=True)
                | Q(month_week__gte=1, month_week__lte=4)
                | Q(month_week=-1),
                name="series_month_week",
            ),
            models.CheckConstraint(
                condition=Q(open_ahead_hours__gte=1, open_ahead_hours__lte=720),
                name="series_open_ahead_1_to_720_hours",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("tournaments:series", args=[self.pk])


class SeriesFollow(models.Model):
    """A player who follows a series: told when each event's registration opens."""

    series = models.ForeignKey(Series, on_delete=models.CASCADE, related_name="follows")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="series_follows"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["series", "user"], name="one_follow_per_series"),
        ]

    def __str__(self) -> str:
        return f"{self.user} follows {self.series}"


class SeriesSkip(models.Model):
    """An occurrence the organizer cancelled before its event was made: beat skips it."""

    series = models.ForeignKey(Series, on_delete=models.CASCADE, related_name="skips")
    occurrence = models.DateTimeField()
    reason = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["series", "occurrence"], name="one_skip_per_occurrence"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.series} {self.occurrence:%Y-%m-%d %H:%M} skipped"


class TournamentMessage(models.Model):
    """A message from an event's organizers to everyone in it: each entrant gets it as a notice,
    and the event's page shows it."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="messages")
    sender = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    text = models.TextField(_("message"), max_length=500)
    recipients = models.PositiveIntegerField(default=0)
    sent_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-sent_at", "-pk"]
        indexes = [models.Index(fields=["tournament", "sent_at"])]
        constraints = [models.CheckConstraint(condition=~Q(text=""), name="message_not_blank")]

    def __str__(self) -> str:
        return f"{self.tournament_id}: {self.text[:40]}"
