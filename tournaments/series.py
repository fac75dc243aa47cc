"""Series: events that make themselves. The only code that writes series, their skips and
follows, and the events a series makes.

An organizer defines a series once: an event's settings (everything the event form takes but
its times) and a schedule (`tournaments.schedule`). Beat (`series_sweep`, every minute) makes
each occurrence's event `open_ahead_hours` before it starts, published, with registration open
at once and closing at the start; check-in, the start, rounds and prizes are then the event's
own (`tournaments.services`). Each occurrence is made exactly once: the event row is unique by
(series, occurrence), so two beats, a beat restarted half way or a rerun make nothing twice.

Decided (docs/tournaments.md says it for organizers):
- An edit applies to the events not made yet; an event already open keeps the terms its players
  registered under (cancel it to drop it).
- Paused, a series makes nothing; resumed, it makes the events still to come (none of the past).
- Cancelling one occurrence: an event already made is cancelled as any event is (every fee
  back); one not made yet is skipped.
- Ended, a series makes nothing more; the events already made go ahead.
- At most `MAX_OPEN_EVENTS` events of one series are open at once (an hourly series a week
  ahead would otherwise open 168).
- An event that cannot be made (the books are closed for fees, a good left the Commissary...)
  is not made; the series says why on its page (`problem`) until one is.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from clubs import selectors as clubs
from clubs.models import Club
from social.notices import notify_users
from tournaments import schedule, services
from tournaments.broadcast import tournament_changed
from tournaments.models import Series, SeriesFollow, SeriesSkip, Tournament
from tournaments.services import TournamentError

log = logging.getLogger(__name__)

S = Tournament.Status
SS = Series.Status

#: The settings a series keeps for its events: the event form's, less the times.
EVENT_FIELDS = tuple(
    f
    for f in services.FIELDS
    if f not in ("name", "registration_opens", "registration_closes", "starts_at")
)
SCHEDULE_FIELDS = ("repeats", "weekday", "month_week", "at_hour", "at_minute", "time_zone")
OPEN_AHEAD_HOURS = (1, 720)
MAX_OPEN_EVENTS = 24
#: A series' own name leaves room for the date in its events' names.
NAME_LENGTH = services.NAME_LENGTH - 14
MAX_SERIES_PER_ORGANIZER = 50


def may_manage_series(user: Any, series: Series) -> bool:
    """The series' organizer (still an organizer), a co-organizer, or a superuser."""
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_active:
        return False
    if user.is_superuser:
        return True
    if series.club_id is not None and clubs.is_leader(series.club_id, user):
        return True  # a club's own series: its leaders run it
    if series.organizer_id == user.pk:
        return services.is_organizer(user)
    return series.co_organizers.filter(pk=user.pk).exists()


def _ensure_manager(user: Any, series: Series) -> None:
    if not may_manage_series(user, series):
        raise TournamentError("not_organizer", _("Only this series' organizers can do that."))


def schedule_of(series: Series) -> schedule.Schedule:
    return schedule.Schedule(
        repeats=series.repeats,
        hour=series.at_hour,
        minute=series.at_minute,
        time_zone=series.time_zone,
        weekday=series.weekday,
        month_week=series.month_week,
    )


def series_check(data: dict[str, Any], *, now: dt.datetime | None = None) -> dict[str, Any]:
    """Check a series' settings: its name, its events' settings (as `tournament_check` checks an
    event's) and its schedule; return them cleaned, or raise TournamentError whose `errors`
    explain each refused value on its own field."""
    now = now or timezone.now()
    errors: dict[str, list[str]] = {}
    unknown = set(data) - {"name", "open_ahead_hours", *EVENT_FIELDS, *SCHEDULE_FIELDS}
    if unknown:
        raise TournamentError("bad_field", f"unknown settings {sorted(unknown)}")
    name = str(data.get("name") or "").strip()
    if not name:
        errors.setdefault("name", []).append(_("Give the series a name."))
    elif len(name) > NAME_LENGTH:
        errors.setdefault("name", []).append(
            _("A series' name has at most %(n)s characters (its events add the date).")
            % {"n": NAME_LENGTH}
        )
    # The events' settings, as an event a day from now would have them.
    start = now + dt.timedelta(days=1)
    event = {f: data.get(f) for f in EVENT_FIELDS}
    event.update(
        name=name or "-", registration_opens=now, registration_closes=start, starts_at=start
    )
    clean: dict[str, Any] = {"name": name}
    try:
        checked = services.tournament_check(event, now=now)
    except TournamentError as exc:
        for field, messages in exc.errors.items():
            if field != "name":
                errors.setdefault(field, []).extend(messages)
    else:
        clean["event_settings"] = {f: _json(data.get(f)) for f in EVENT_FIELDS}
        clean["event_settings"]["mode"] = checked["mode"]
    ahead = data.get("open_ahead_hours")
    low, high = OPEN_AHEAD_HOURS
    if type(ahead) is not int or not low <= ahead <= high:
        errors.setdefault("open_ahead_hours", []).append(
            _("Registration opens %(low)s to %(high)s hours before each start.")
            % {"low": low, "high": high}
        )
    clean["open_ahead_hours"] = ahead
    try:
        rule = schedule.Schedule(
            repeats=data.get("repeats"),  # type: ignore[arg-type]
            hour=_int(data.get("at_hour")),
            minute=_int(data.get("at_minute")),
            time_zone=data.get("time_zone"),  # type: ignore[arg-type]
            weekday=data.get("weekday"),
            month_week=data.get("month_week"),
        )
    except schedule.ScheduleError as exc:
        errors.setdefault(exc.field, []).append(_schedule_words(exc.field))
    else:
        clean.update(
            repeats=rule.repeats,
            at_hour=rule.hour,
            at_minute=rule.minute,
            time_zone=rule.time_zone,
            weekday=rule.weekday,
            month_week=rule.month_week,
        )
    if errors:
        first = next(iter(errors.values()))[0]
        raise TournamentError("bad_settings", first, errors=errors)
    return clean


def _int(value: object) -> int:
    return value if type(value) is int else -1


def _json(value: Any) -> Any:
    """Settings as JSON keeps them (dates are not among an event's settings but its times)."""
    if isinstance(value, tuple):
        return list(value)
    return value


def _schedule_words(field: str) -> str:
    return str(
        {
            "repeats": _("Choose how often: every hour, day, week or month."),
            "at_time": _("Give a time of day, 00:00 to 23:59."),
            "time_zone": _("Choose a time zone from the list."),
            "weekday": _("Choose the weekday (weekly and monthly series only)."),
            "month_week": _("Choose which week of the month (monthly series only)."),
        }.get(field, _("This schedule cannot be."))
    )


# --- an organizer's series -------------------------------------------------------------------


def series_create(
    *, organizer: Any, now: dt.datetime | None = None, club: Club | None = None, **data: Any
) -> Series:
    """A new series, running at once: its first events are made now (those due within
    `open_ahead_hours`), then by beat. Tournament organizers create open series; a club's
    leaders create the club's own (`club`: its events take the club's members only)."""
    now = now or timezone.now()
    if not services.may_create(organizer, club):
        if club is not None:
            raise TournamentError(
                "not_leader",
                _("Only the leaders of %(club)s make its series.") % {"club": club.name},
                field="club",
            )
        raise TournamentError("not_organizer", _("Only tournament organizers create series."))
    clean = series_check(data, now=now)
    if Series.objects.filter(organizer=organizer).exclude(status=SS.ENDED).count() >= (
        MAX_SERIES_PER_ORGANIZER
    ):
        raise TournamentError(
            "too_many",
            _("You run %(n)s series already: end one first.") % {"n": MAX_SERIES_PER_ORGANIZER},
        )
    series = Series.objects.create(organizer=organizer, club=club, **clean)
    series_fill(series_id=series.pk, now=now)
    series.refresh_from_db()
    return series


def series_update(
    *, series_id: int, by: Any, now: dt.datetime | None = None, **data: Any
) -> Series:
    """Change a series' settings or schedule: the events not made yet follow the change; those
    already made keep theirs (their players registered for them)."""
    now = now or timezone.now()
    clean = series_check(data, now=now)
    with transaction.atomic():
        series = _locked(series_id)
        _ensure_manager(by, series)
        if series.status == SS.ENDED:
            raise TournamentError("ended", _("This series has ended."))
        Series.objects.filter(pk=series.pk).update(problem="", updated_at=now, **clean)
    series_fill(series_id=series_id, now=now)
    series.refresh_from_db()
    return series


def series_pause(*, series_id: int, by: Any) -> Series:
    """No more events until it is resumed (those already made go ahead)."""
    return _move(series_id, by, SS.ACTIVE, SS.PAUSED, _("Only a running series can be paused."))


def series_resume(*, series_id: int, by: Any, now: dt.datetime | None = None) -> Series:
    """Running again: the events still to come are made (none of those missed while paused)."""
    series = _move(series_id, by, SS.PAUSED, SS.ACTIVE, _("Only a paused series can resume."))
    series_fill(series_id=series_id, now=now)
    series.refresh_from_db()
    return series


def series_end(*, series_id: int, by: Any, now: dt.datetime | None = None) -> Series:
    """The series makes no more events; those already made go ahead (cancel them one by one)."""
    now = now or timezone.now()
    with transaction.atomic():
        series = _locked(series_id)
        _ensure_manager(by, series)
        if series.status == SS.ENDED:
            raise TournamentError("ended", _("This series has ended already."))
        Series.objects.filter(pk=series.pk).update(status=SS.ENDED, ended_at=now)
    series.refresh_from_db()
    return series


def _move(series_id: int, by: Any, before: str, after: str, refusal: str) -> Series:
    with transaction.atomic():
        series = _locked(series_id)
        _ensure_manager(by, series)
        if not Series.objects.filter(pk=series.pk, status=before).update(status=after):
            raise TournamentError("not_now", refusal)
    series.refresh_from_db()
    return series


def occurrence_cancel(
    *,
    series_id: int,
    by: Any,
    occurrence: dt.datetime,
    reason: str,
    now: dt.datetime | None = None,
) -> Tournament | None:
    """Call off one occurrence: its event, if made, is cancelled (every fee back); if not made
    yet, it is skipped. Returns the cancelled event, or None for a skip."""
    now = now or timezone.now()
    reason = (reason or "").strip()
    if not reason:
        raise TournamentError("no_reason", _("Say why it is cancelled."), field="reason")
    series = Series.objects.filter(pk=series_id).first()
    if series is None:
        raise TournamentError("no_series", _("There is no such series."))
    _ensure_manager(by, series)
    event = Tournament.objects.filter(series=series, occurrence=occurrence).first()
    if event is not None:
        return services.tournament_cancel(tournament_id=event.pk, by=by, reason=reason, now=now)
    if occurrence <= now or occurrence not in schedule_of(series).between(
        occurrence - dt.timedelta(seconds=1), occurrence
    ):
        raise TournamentError(
            "no_occurrence", _("The series has no event to come at that time."), field="occurrence"
        )
    with transaction.atomic():
        try:
            with transaction.atomic():
                SeriesSkip.objects.create(series=series, occurrence=occurrence, reason=reason)
        except IntegrityError:
            raise TournamentError("skipped", _("That event is already cancelled.")) from None
        # Made meanwhile by beat? Then it is cancelled as an event.
        event = Tournament.objects.filter(series=series, occurrence=occurrence).first()
    if event is not None and event.status not in (S.FINISHED, S.CANCELLED):
        return services.tournament_cancel(tournament_id=event.pk, by=by, reason=reason, now=now)
    return None


def co_organizer_add(*, series_id: int, by: Any, user: Any) -> Series:
    """Another player may manage the series and its events (only its own organizer adds them)."""
    series = Series.objects.filter(pk=series_id).first()
    if series is None:
        raise TournamentError("no_series", _("There is no such series."))
    if not (by.is_superuser or (series.organizer_id == by.pk and services.is_organizer(by))):
        raise TournamentError("not_organizer", _("Only the series' organizer adds co-organizers."))
    if user is None or not user.is_active:
        raise TournamentError("no_player", _("There is no such player."), field="player")
    if user.pk == series.organizer_id:
        raise TournamentError(
            "organizer", _("The organizer runs the series already."), field="player"
        )
    series.co_organizers.add(user)
    return series


def co_organizer_remove(*, series_id: int, by: Any, user: Any) -> Series:
    series = Series.objects.filter(pk=series_id).first()
    if series is None:
        raise TournamentError("no_series", _("There is no such series."))
    if not (by.is_superuser or series.organizer_id == by.pk or by.pk == user.pk):
        raise TournamentError(
            "not_organizer", _("Only the series' organizer removes co-organizers.")
        )
    series.co_organizers.remove(user)
    return series


# --- players --------------------------------------------------------------------------------


def series_follow(*, series_id: int, user: Any, follow: bool = True) -> bool:
    """Follow (or stop following) a series: a notice each time an event's registration opens.
    Returns whether the player now follows it."""
    series = Series.objects.filter(pk=series_id).first()
    if series is None:
        raise TournamentError("no_series", _("There is no such series."))
    if follow:
        if series.status == SS.ENDED:
            raise TournamentError("ended", _("This series has ended."))
        try:
            with transaction.atomic():
                SeriesFollow.objects.get_or_create(series=series, user=user)
        except IntegrityError:  # the same click twice at once
            pass
        return True
    SeriesFollow.objects.filter(series=series, user=user).delete()
    return False


# --- beat: making the events -----------------------------------------------------------------


def series_sweep(*, now: dt.datetime | None = None) -> int:
    """The beat job every minute: every running series' events that are due. Returns how many
    events were made."""
    now = now or timezone.now()
    made = 0
    for pk in Series.objects.filter(status=SS.ACTIVE).values_list("pk", flat=True):
        try:
            made += series_fill(series_id=pk, now=now)
        except Exception:  # one series' trouble must not hold up the others; the next run retries
            log.exception("series %s: could not make its events", pk)
    return made


def series_fill(*, series_id: int, now: dt.datetime | None = None) -> int:
    """Make each event of a running series that starts within `open_ahead_hours` and is not
    made yet, skipped, or over the limit of open events. Returns how many were made."""
    now = (now or timezone.now()).astimezone(dt.UTC)  # hours ahead are real hours
    series = Series.objects.filter(pk=series_id, status=SS.ACTIVE).first()
    if series is None:
        return 0
    due = schedule_of(series).between(now, now + dt.timedelta(hours=series.open_ahead_hours))
    if not due:
        return 0
    made_already = set(
        Tournament.objects.filter(series=series, occurrence__in=due).values_list(
            "occurrence", flat=True
        )
    )
    skipped = set(
        SeriesSkip.objects.filter(series=series, occurrence__in=due).values_list(
            "occurrence", flat=True
        )
    )
    open_now = Tournament.objects.filter(
        series=series, status__in=[S.PUBLISHED, S.REGISTRATION, S.CHECKIN]
    ).count()
    made = 0
    for occurrence in due:
        if occurrence in made_already or occurrence in skipped:
            continue
        if open_now >= MAX_OPEN_EVENTS:
            break
        event = _make(series, occurrence, now)
        if event is not None:
            made += 1
            open_now += 1
    return made


def _make(series: Series, occurrence: dt.datetime, now: dt.datetime) -> Tournament | None:
    """One occurrence's event, published with registration open; None when it exists already
    (made by another beat at the same moment) or cannot be made (the series says why)."""
    data = {
        **series.event_settings,
        "name": event_name(series, occurrence),
        "registration_opens": now,
        "registration_closes": occurrence,
        "starts_at": occurrence,
    }
    try:
        clean = services.tournament_check(data, now=now)
    except TournamentError as exc:
        problem = _("The event of %(when)s could not be made: %(why)s") % {
            "when": local_words(series, occurrence),
            "why": exc.message,
        }
        Series.objects.filter(pk=series.pk).update(problem=problem[:300])
        log.warning("series %s: %s", series.pk, problem)
        return None
    try:
        with transaction.atomic():
            event = Tournament.objects.create(
                organizer=series.organizer,
                series=series,
                occurrence=occurrence,
                club_id=series.club_id,
                status=S.PUBLISHED,
                published_at=now,
                **clean,
            )
            if series.problem:
                Series.objects.filter(pk=series.pk).update(problem="")
            tournament_changed(event.pk)
            _tell_followers(series, event)
    except IntegrityError:  # made by another beat: exactly once
        return None
    return event


def event_name(series: Series, occurrence: dt.datetime) -> str:
    """ "Friday Fives · 2027-03-05" (the local date; an hourly series adds the time)."""
    local = occurrence.astimezone(schedule.zone(series.time_zone))
    when = local.strftime("%Y-%m-%d %H:%M" if series.repeats == "hourly" else "%Y-%m-%d")
    return f"{series.name} · {when}"[: services.NAME_LENGTH]


def local_words(series: Series, occurrence: dt.datetime) -> str:
    """An occurrence in the series' own zone, for an organizer's message."""
    local = occurrence.astimezone(schedule.zone(series.time_zone))
    return f"{formats.date_format(local, 'DATETIME_FORMAT')} ({series.time_zone})"


def _tell_followers(series: Series, event: Tournament) -> None:
    followers = list(series.follows.values_list("user_id", flat=True))
    if not followers:
        return
    card = reverse("tournaments:series_notice", args=[series.pk, event.pk])
    notify_users(
        [
            (
                user_id,
                "series_event_open",
                {"series": series.pk, "tournament": event.pk, "card_url": card},
            )
            for user_id in followers
        ]
    )


def _locked(series_id: int) -> Series:
    series = Series.objects.select_for_update().filter(pk=series_id).first()
    if series is None:
        raise TournamentError("no_series", _("There is no such series."))
    return series
