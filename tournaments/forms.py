"""The organizer's event form: every table setting (the lobby's own fields), the format, the
match length, the entry fee and prizes, and the times. The service checks every value
(`services.tournament_check`); each refusal lands on its own field, in words."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from django import forms
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from clubs.models import Club
from engine import SettingsError, TableSettings
from tables.forms import FIELD_FOR_SETTING, SHAPES, TableForm
from tournaments import money, schedule, services
from tournaments.models import Series, Tournament
from tournaments.series import series_check

DATETIME_INPUT = "%Y-%m-%dT%H:%M"


def _datetime_field(label: str, help_text: str) -> forms.DateTimeField:
    return forms.DateTimeField(
        label=label,
        help_text=help_text,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format=DATETIME_INPUT),
        input_formats=[DATETIME_INPUT, "%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S"],
    )


TABLE_FIELDS = (
    "mode",
    "shape",
    "deal",
    "target",
    "limit",
    "bone_set",
    "spinner",
    "get_on",
    "count_by",
    "clock",
    "clock_off",
    "workout_kind",
    "workout_amount",
)

#: Where each of the service's refusals is shown.
FIELD_OF = {"table_options": "shape", "fee_canteen": None}


class TournamentForm(TableForm):
    name = forms.CharField(label=_("Event name"), max_length=80)
    description = forms.CharField(
        label=_("Description"), widget=forms.Textarea(attrs={"rows": 3}), required=False
    )
    rules_text = forms.CharField(
        label=_("Official rules"),
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text=_("The event's own rules: shown on its page before anyone registers."),
    )
    shape = forms.ChoiceField(
        label=_("Players"),
        choices=[s for s in SHAPES if s[0] in ("one_on_one", "partners")],
        initial="one_on_one",
        help_text=_("Partners: pairs register together and play two against two."),
    )
    private = None  # type: ignore[assignment]
    format = forms.ChoiceField(label=_("Format"), choices=Tournament.Format.choices)
    swiss_rounds = forms.IntegerField(
        label=_("Swiss rounds"),
        required=False,
        help_text=_("Swiss only: 1 to 15 (never more than the entrants less one)."),
    )
    arena_minutes = forms.IntegerField(
        label=_("Arena length (minutes)"),
        required=False,
        initial=60,
        help_text=_(
            "Arena only: 30 to 120 minutes. Players join any time while it runs and are paired "
            "every few seconds; shorter targets suit arenas."
        ),
    )
    best_of = forms.TypedChoiceField(
        label=_("Games per match"),
        choices=[(1, _("One game")), (3, _("Best of 3")), (5, _("Best of 5"))],
        coerce=int,
        initial=1,
    )
    fee_kind = forms.ChoiceField(
        label=_("Entry fee"),
        choices=Tournament.Fee.choices,
        initial="free",
        help_text=_(
            "Dollars for Citizen, Fives and Threes events; a canteen entry of goods for Inmate "
            "events; Gym events are free (they are played for a workout). Fees are held until "
            "the end, given back on withdrawal before the start or if the event is cancelled."
        ),
    )
    fee_dollars = forms.IntegerField(label=_("Entry fee in Dollars"), required=False, initial=0)
    prize_split = forms.CharField(
        label=_("Prize split (%)"),
        initial="100",
        help_text=_(
            "Percentages of the pool for 1st, 2nd, 3rd...: e.g. 50/30/20, or 100 for winner "
            "takes all. The pool is every entry fee held."
        ),
    )
    max_entrants = forms.IntegerField(
        label=_("Maximum entrants"),
        initial=8,
        help_text=_("2 to 64 (pairs count as one entrant); an arena takes up to 1,000."),
    )
    registration_opens = _datetime_field(
        _("Registration opens"), _("In your time zone. A time already past opens it at once.")
    )
    registration_closes = _datetime_field(_("Registration closes"), _("By the start time."))
    starts_at = _datetime_field(_("Start time"), _("In your time zone."))
    checkin_minutes = forms.IntegerField(
        label=_("Check-in window (minutes before the start)"),
        initial=15,
        help_text=_("Entrants who have not checked in by the start are out, and refunded."),
    )
    round_minutes = forms.IntegerField(label=_("Minutes between rounds"), initial=2)
    noshow_minutes = forms.IntegerField(
        label=_("No-show time (minutes)"),
        initial=3,
        help_text=_(
            "Once a match's table is ready, a player who has not pressed Ready within this "
            "time forfeits the match."
        ),
    )
    seeding = forms.ChoiceField(
        label=_("Seeding"), choices=Tournament.Seeding.choices, initial="random"
    )
    bots_welcome = forms.BooleanField(
        label=_("Bot accounts may enter"),
        required=False,
        help_text=_(
            "Bots are programs that play through the API, marked BOT wherever their name shows. "
            "Off: only people enter."
        ),
    )
    club = forms.ChoiceField(
        label=_("Who may register"),
        required=False,
        help_text=_(
            "A club's own event takes its members only, and every leader of the club runs it."
        ),
    )
    battle_clubs = forms.CharField(
        label=_("Club battle: the clubs"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_(
            "Arena only, and optional: the names of 2 to 16 clubs, one a line. Members of these "
            "clubs join, each for their club; the clubs are ranked as well as the players."
        ),
    )
    battle_top = forms.IntegerField(
        label=_("Club battle: players who count for each club"),
        required=False,
        initial=5,
        help_text=_("1 to 50: a club's score is the sum of its best players' points."),
    )

    field_order = [
        "name",
        "description",
        "rules_text",
        "club",
        "battle_clubs",
        "battle_top",
        *TABLE_FIELDS,
        "format",
        "swiss_rounds",
        "arena_minutes",
        "best_of",
        "fee_kind",
        "fee_dollars",
        "prize_split",
        "max_entrants",
        "registration_opens",
        "registration_closes",
        "starts_at",
        "checkin_minutes",
        "round_minutes",
        "noshow_minutes",
        "seeding",
        "bots_welcome",
    ]

    def __init__(
        self,
        *args: Any,
        instance: Tournament | None = None,
        user: Any = None,
        club: Club | None = None,
        fixed_club: Club | None = None,
        **kwargs: Any,
    ) -> None:
        if instance is not None and "initial" not in kwargs:
            kwargs["initial"] = initial_from(instance)
        super().__init__(*args, **kwargs)
        self.fields.pop("stake", None)  # a tournament's tables play for its prizes, not a stake
        # Whose event: chosen when it is made (open, or one of the clubs the maker leads), and
        # fixed after. A club battle is an organizer's open arena.
        if instance is not None:
            fixed_club = instance.club
        self.fixed_club = fixed_club
        organizer = services.is_organizer(user)
        self.clubs_led = [] if fixed_club is not None else services.clubs_led(user)
        if instance is not None or not self.clubs_led:
            self.fields.pop("club")
        else:
            choices = [
                (c.slug, _("Members of %(club)s only") % {"club": c.name}) for c in self.clubs_led
            ]
            if organizer:
                choices.insert(0, ("", _("Everyone: an open event")))
            self.fields["club"].choices = choices
            self.fields["club"].required = not organizer
            if club is not None and club in self.clubs_led:
                self.fields["club"].initial = club.slug
        if not organizer or fixed_club is not None:
            self.fields.pop("battle_clubs")
            self.fields.pop("battle_top")
        elif instance is not None and instance.is_battle:
            self.initial.setdefault(
                "battle_clubs", "\n".join(c.name for c in instance.battle_clubs.order_by("name"))
            )
            self.initial.setdefault("battle_top", instance.battle_top)
        self.owner: dict[str, Any] = {}
        self.entry_canteen_fields: list[str] = []
        for good_id, label in money.canteen_goods():
            name = f"canteen_{good_id}"
            self.fields[name] = forms.IntegerField(
                label=label,
                required=False,
                initial=0,
                min_value=0,
                max_value=money.MAX_CANTEEN_ITEM,
            )
            self.entry_canteen_fields.append(name)
        self.settings_data: dict[str, Any] | None = None

    def groups(self) -> list[tuple[str, list[Any]]]:
        """The fields in fieldsets, for the page."""
        sets = [
            (_("The event"), ["name", "description", "rules_text"]),
            (_("Who plays"), ["club", "battle_clubs", "battle_top", "bots_welcome"]),
            (_("The tables"), list(TABLE_FIELDS)),
            (
                _("Format and matches"),
                ["format", "swiss_rounds", "arena_minutes", "best_of", "max_entrants", "seeding"],
            ),
            (
                _("Entry fee and prizes"),
                ["fee_kind", "fee_dollars", *self.entry_canteen_fields, "prize_split"],
            ),
            (
                _("Times"),
                [
                    "registration_opens",
                    "registration_closes",
                    "starts_at",
                    "checkin_minutes",
                    "round_minutes",
                    "noshow_minutes",
                ],
            ),
        ]
        shown = [
            (str(legend), [self[name] for name in names if name in self.fields])
            for legend, names in sets
        ]
        return [(legend, fields) for legend, fields in shown if fields]

    def _owner(self, data: dict[str, Any]) -> dict[str, Any]:
        """Whose event it is and the battle's clubs, as the service takes them; a refusal lands
        on its field (and leaves {})."""
        owner: dict[str, Any] = {}
        if "club" in self.fields:
            slug = data.get("club") or ""
            chosen = next((c for c in self.clubs_led if c.slug == slug), None)
            if slug and chosen is None:  # pragma: no cover - a ChoiceField refuses it first
                self.add_error("club", _("Choose one of the clubs you lead."))
            owner["club"] = chosen
        if "battle_clubs" not in self.fields:
            return owner
        names = [n.strip() for n in str(data.get("battle_clubs") or "").splitlines() if n.strip()]
        wanted = {n.lower() for n in names}
        found = {
            c.name.lower(): c
            for c in Club.objects.annotate(lower=Lower("name")).filter(lower__in=wanted)
        }
        unknown = [n for n in names if n.lower() not in found]
        if unknown:
            self.add_error(
                "battle_clubs",
                _("There is no club named %(names)s.") % {"names": ", ".join(unknown)},
            )
            return owner
        top = data.get("battle_top") if names else None
        try:
            services.battle_check(
                format=str(data.get("format")),
                club=owner.get("club"),
                battle_clubs=[found[n.lower()] for n in names],
                battle_top=top,
            )
        except services.TournamentError as exc:
            for field, messages in exc.errors.items():
                for message in messages:
                    self.add_error(field, message)
            return owner
        owner["battle_clubs"] = [found[n.lower()] for n in names]
        owner["battle_top"] = top
        return owner

    def clean(self) -> dict[str, Any]:
        # The table's fields are checked as the lobby's form checks them (the engine names the
        # setting it refuses), whatever else on this form is wrong.
        data = forms.Form.clean(self)
        table_errors = any(self.has_error(f) for f in TABLE_FIELDS)
        options: dict[str, Any] = {}
        if not table_errors:
            options = self.options()
            table_errors = any(self.has_error(f) for f in TABLE_FIELDS)
        if not table_errors:
            try:
                TableSettings.build(data["mode"], **options)
            except SettingsError as exc:
                message = str(exc).removeprefix(f"{exc.field}: ")
                self.add_error(FIELD_FOR_SETTING.get(exc.field), message[:1].upper() + message[1:])
                table_errors = True
        split = parse_split(data.get("prize_split", ""))
        arena = data.get("format") == Tournament.Format.ARENA
        canteen = {
            name.removeprefix("canteen_"): data.get(name) or 0 for name in self.entry_canteen_fields
        }
        values = {
            "name": data.get("name"),
            "description": data.get("description"),
            "rules_text": data.get("rules_text"),
            "mode": data.get("mode"),
            "table_options": options,
            "format": data.get("format"),
            "swiss_rounds": data.get("swiss_rounds")
            if data.get("format") == Tournament.Format.SWISS
            else None,
            "arena_minutes": data.get("arena_minutes") if arena else None,
            "best_of": 1 if arena else data.get("best_of"),
            "fee_kind": data.get("fee_kind"),
            "fee_dollars": data.get("fee_dollars") or 0,
            "fee_canteen": canteen,
            "prize_split": split,
            "max_entrants": data.get("max_entrants"),
            "registration_opens": data.get("registration_opens"),
            "registration_closes": data.get("registration_closes"),
            "starts_at": data.get("starts_at"),
            "checkin_minutes": data.get("checkin_minutes"),
            "round_minutes": data.get("round_minutes"),
            "noshow_minutes": data.get("noshow_minutes"),
            "seeding": data.get("seeding"),
            "bots_welcome": bool(data.get("bots_welcome")),
        }
        try:
            services.tournament_check(values)
        except services.TournamentError as exc:
            for field, messages in exc.errors.items():
                if field in ("mode", "table_options") and table_errors:
                    continue  # the table's own fields already say what is wrong
                target = FIELD_OF.get(field, field)
                if target is not None and target not in self.fields:
                    target = None
                for message in messages:
                    if target is None or not self.has_error(target):
                        self.add_error(target, message)
        self.owner = self._owner(data)
        if not self.errors:
            self.settings_data = values
        return data


def parse_split(text: object) -> list[int] | None:
    """ "50/30/20", "50, 30, 20" or "100" → [50, 30, 20]; anything else → None (refused)."""
    if not isinstance(text, str) or not text.strip():
        return None
    parts = [p for p in re.split(r"[\s/,;%]+", text.strip()) if p]
    if not parts or not all(re.fullmatch(r"-?\d{1,3}", p) for p in parts):
        return None
    return [int(p) for p in parts]


def initial_from(tournament: Tournament) -> dict[str, Any]:
    ts = tournament.table_settings
    head_to_head = tournament.mode in ("fives", "threes")
    initial = {
        "name": tournament.name,
        "description": tournament.description,
        "rules_text": tournament.rules_text,
        "mode": tournament.mode,
        "shape": "partners" if ts.get("partners") else "one_on_one",
        "deal": ts.get("deal", 7),
        "target": ts.get("target", 150) if not head_to_head else 150,
        "limit": ts.get("target") if head_to_head else 150,
        "bone_set": ts.get("set", "double-six"),
        "spinner": ts.get("spinner", False),
        "get_on": ts.get("get_on"),
        "count_by": ts.get("count_by"),
        "clock": ts.get("clock"),
        "clock_off": tournament.mode.endswith("_gym") and ts.get("clock") is None,
        "workout_kind": (ts.get("workout") or {}).get("kind", "reps"),
        "workout_amount": (ts.get("workout") or {}).get("amount", 20),
        "format": tournament.format,
        "swiss_rounds": tournament.swiss_rounds,
        "arena_minutes": tournament.arena_minutes or 60,
        "best_of": tournament.best_of,
        "fee_kind": tournament.fee_kind,
        "fee_dollars": tournament.fee_dollars,
        "prize_split": "/".join(str(p) for p in tournament.prize_split),
        "max_entrants": tournament.max_entrants,
        "registration_opens": tournament.registration_opens,
        "registration_closes": tournament.registration_closes,
        "starts_at": tournament.starts_at,
        "checkin_minutes": tournament.checkin_minutes,
        "round_minutes": tournament.round_minutes,
        "noshow_minutes": tournament.noshow_minutes,
        "seeding": tournament.seeding,
        "bots_welcome": tournament.bots_welcome,
    }
    for good, qty in (tournament.fee_canteen or {}).items():
        initial[f"canteen_{good}"] = qty
    return initial


class RegisterForm(forms.Form):
    partner = forms.CharField(
        label=_("Your partner's display name"),
        max_length=24,
        required=False,
        help_text=_("They accept on this page; each of you pays the entry fee."),
    )
    club = forms.IntegerField(required=False, min_value=1)  # a club battle: whom you play for


class MessageForm(forms.Form):
    text = forms.CharField(
        label=_("Message to everyone in the event"),
        widget=forms.Textarea(attrs={"rows": 3, "maxlength": 500}),
        max_length=500,
        help_text=_(
            "Each player in the event gets it at once on whatever page they have open, and "
            "it stays on the event's page. At most 500 characters, 5 messages an hour."
        ),
    )


class ReasonForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason"), widget=forms.Textarea(attrs={"rows": 2}), max_length=500
    )


class SettleForm(ReasonForm):
    winner = forms.IntegerField(label=_("Winner"))


WEEKDAYS = [
    (0, _("Monday")),
    (1, _("Tuesday")),
    (2, _("Wednesday")),
    (3, _("Thursday")),
    (4, _("Friday")),
    (5, _("Saturday")),
    (6, _("Sunday")),
]
MONTH_WEEKS = [
    (1, _("The first")),
    (2, _("The second")),
    (3, _("The third")),
    (4, _("The fourth")),
    (-1, _("The last")),
]
SCHEDULE_FORM_FIELDS = ("repeats", "weekday", "month_week", "at_time", "time_zone")


class SeriesForm(TournamentForm):
    """A series: an event's settings (this form's parent, less the times) and a schedule."""

    name = forms.CharField(
        label=_("Series name"),
        max_length=66,
        help_text=_("Each event adds its date: “Friday Fives · 2027-03-05”."),
    )
    repeats = forms.ChoiceField(
        label=_("Repeats"), choices=Series.Repeats.choices, initial=Series.Repeats.WEEKLY
    )
    weekday = forms.TypedChoiceField(
        label=_("Weekday"),
        choices=WEEKDAYS,
        coerce=int,
        empty_value=None,
        required=False,
        initial=4,
        help_text=_("Weekly and monthly series."),
    )
    month_week = forms.TypedChoiceField(
        label=_("Week of the month"),
        choices=MONTH_WEEKS,
        coerce=int,
        empty_value=None,
        required=False,
        initial=1,
        help_text=_("Monthly series: e.g. the first Sunday of each month."),
    )
    at_time = forms.TimeField(
        label=_("Start time"),
        initial="20:00",
        widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
        input_formats=["%H:%M", "%H:%M:%S"],
        help_text=_("On the clock of the time zone below. Hourly series use its minutes only."),
    )
    time_zone = forms.ChoiceField(
        label=_("Time zone"),
        help_text=_(
            "The events keep this zone's local time when its clocks change: 20:00 in New York "
            "stays 20:00 in New York in summer and in winter."
        ),
    )
    open_ahead_hours = forms.IntegerField(
        label=_("Registration opens (hours before each start)"),
        initial=168,
        min_value=1,
        max_value=720,
        help_text=_("1 to 720 hours: 168 is a week. Each event is made and opened then."),
    )
    registration_opens = None  # type: ignore[assignment]
    registration_closes = None  # type: ignore[assignment]
    starts_at = None  # type: ignore[assignment]

    field_order = [
        "name",
        "description",
        "rules_text",
        *TABLE_FIELDS,
        "format",
        "swiss_rounds",
        "arena_minutes",
        "best_of",
        "fee_kind",
        "fee_dollars",
        "prize_split",
        "max_entrants",
        *SCHEDULE_FORM_FIELDS,
        "open_ahead_hours",
        "checkin_minutes",
        "round_minutes",
        "noshow_minutes",
        "seeding",
        "bots_welcome",
    ]

    def __init__(
        self,
        *args: Any,
        series: Series | None = None,
        time_zone: str = "UTC",
        **kwargs: Any,
    ) -> None:
        if series is not None and "initial" not in kwargs:
            kwargs["initial"] = series_initial(series)
        if series is not None:
            kwargs["fixed_club"] = series.club
        super().__init__(*args, **kwargs)
        # Club battles are single events (an organizer's arena), not series.
        self.fields.pop("battle_clubs", None)
        self.fields.pop("battle_top", None)
        zones = schedule.zone_choices()
        self.fields["time_zone"].choices = [(z, z.replace("_", " ")) for z in zones]
        if series is None and time_zone in zones:
            self.fields["time_zone"].initial = time_zone
        self.series_data: dict[str, Any] | None = None

    def groups(self) -> list[tuple[str, list[Any]]]:
        sets = super().groups()
        sets[0] = (str(_("The series")), sets[0][1])
        sets[-1] = (
            str(_("When")),
            [
                self[name]
                for name in (
                    *SCHEDULE_FORM_FIELDS,
                    "open_ahead_hours",
                    "checkin_minutes",
                    "round_minutes",
                    "noshow_minutes",
                )
            ],
        )
        return sets

    def clean(self) -> dict[str, Any]:
        # The events' settings are checked as an event's, with times a day ahead (the schedule
        # gives each event its own).
        now = timezone.now()
        self.cleaned_data.update(
            registration_opens=now,
            registration_closes=now + dt.timedelta(days=1),
            starts_at=now + dt.timedelta(days=1),
        )
        data = super().clean()
        repeats = data.get("repeats")
        at = data.get("at_time")
        values = {
            "repeats": repeats,
            "weekday": data.get("weekday") if repeats in ("weekly", "monthly") else None,
            "month_week": data.get("month_week") if repeats == "monthly" else None,
            "at_hour": at.hour if at else None,
            "at_minute": at.minute if at else None,
            "time_zone": data.get("time_zone"),
            "open_ahead_hours": data.get("open_ahead_hours"),
        }
        if repeats in ("weekly", "monthly") and values["weekday"] is None:
            self.add_error("weekday", _("Choose the weekday."))
        if repeats == "monthly" and values["month_week"] is None:
            self.add_error("month_week", _("Choose which week of the month."))
        if self.settings_data is None or self.errors:
            return data
        event = {
            k: v
            for k, v in self.settings_data.items()
            if k not in ("registration_opens", "registration_closes", "starts_at")
        }
        try:
            series_check({**event, **values}, now=now)
        except services.TournamentError as exc:
            for field, messages in exc.errors.items():
                target = {"at_hour": "at_time", "at_minute": "at_time"}.get(field, field)
                target = FIELD_OF.get(target, target)
                if target is not None and target not in self.fields:
                    target = None
                for message in messages:
                    self.add_error(target, message)
        else:
            self.series_data = {**event, **values}
        return data


def series_initial(series: Series) -> dict[str, Any]:
    """The form's values from a series' settings."""
    event = dict(series.event_settings)
    fake = Tournament(
        name=series.name,
        description=event.get("description") or "",
        rules_text=event.get("rules_text") or "",
        mode=event.get("mode") or "citizen",
        table_settings={"mode": event.get("mode"), **(event.get("table_options") or {})},
        format=event.get("format") or "single",
        swiss_rounds=event.get("swiss_rounds"),
        arena_minutes=event.get("arena_minutes"),
        best_of=event.get("best_of") or 1,
        fee_kind=event.get("fee_kind") or "free",
        fee_dollars=event.get("fee_dollars") or 0,
        fee_canteen=event.get("fee_canteen") or {},
        prize_split=event.get("prize_split") or [100],
        max_entrants=event.get("max_entrants") or 8,
        checkin_minutes=event.get("checkin_minutes") or 15,
        round_minutes=event.get("round_minutes") or 2,
        noshow_minutes=event.get("noshow_minutes") or 3,
        seeding=event.get("seeding") or "random",
        bots_welcome=event.get("bots_welcome") is True,
    )
    initial = initial_from(fake)
    initial.update(
        name=series.name,
        repeats=series.repeats,
        weekday=series.weekday,
        month_week=series.month_week,
        at_time=dt.time(series.at_hour, series.at_minute),
        time_zone=series.time_zone,
        open_ahead_hours=series.open_ahead_hours,
    )
    return initial


class OccurrenceCancelForm(ReasonForm):
    occurrence = forms.DateTimeField(widget=forms.HiddenInput)
