"""When a series' events start: its schedule as real instants, in its own time zone.

A schedule says how often (every hour, day, week, or month), on which weekday (weekly and
monthly), which week of the month (monthly: the first to the fourth, or the last), at what
local time, in which IANA time zone. The rules are dateutil's `rrule` over the zone's wall
clock (`zoneinfo`), so "every Friday at 20:00 in New York" is at 20:00 New York time on both
sides of the changes of the clocks:

- a local time that does not exist that day (the clocks go forward through it) is held at the
  same offset as just before the change, which is the hour after: 02:30 becomes 03:30;
- a local time that happens twice (the clocks go back through it) is held the first time;
- an hourly schedule counts real hours, at the given minute past each local hour: no hour is
  skipped or repeated when the clocks change.

Nothing here touches the database: `tournaments.series` makes the events.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from dateutil import rrule

UTC = dt.UTC

HOURLY, DAILY, WEEKLY, MONTHLY = "hourly", "daily", "weekly", "monthly"
REPEATS = (HOURLY, DAILY, WEEKLY, MONTHLY)
#: The weeks of a month a monthly schedule may name: the first to the fourth, or the last.
MONTH_WEEKS = (1, 2, 3, 4, -1)

#: Zones offered first in the form (the rest follow in order).
COMMON_ZONES = (
    "UTC",
    "America/New_York",
    "America/Chicago",
    "America/Denver",
    "America/Los_Angeles",
    "America/Puerto_Rico",
    "America/Santo_Domingo",
    "America/Havana",
    "America/Panama",
    "America/Mexico_City",
    "America/Bogota",
    "America/Caracas",
    "Europe/London",
    "Europe/Madrid",
    "Asia/Kolkata",
)


class ScheduleError(ValueError):
    """A schedule that cannot be: `field` names the part that is wrong."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Schedule:
    repeats: str
    hour: int = 20
    minute: int = 0
    time_zone: str = "UTC"
    weekday: int | None = None
    """0 Monday ... 6 Sunday (weekly and monthly)."""
    month_week: int | None = None
    """1 to 4, or -1 for the last (monthly)."""

    def __post_init__(self) -> None:
        if self.repeats not in REPEATS:
            raise ScheduleError("repeats", "a schedule repeats hourly, daily, weekly or monthly")
        if not (0 <= self.hour <= 23 and 0 <= self.minute <= 59):
            raise ScheduleError("at_time", "a time of day is 00:00 to 23:59")
        zone(self.time_zone)  # raises ScheduleError
        if self.repeats in (WEEKLY, MONTHLY):
            if self.weekday is None or not 0 <= self.weekday <= 6:
                raise ScheduleError("weekday", "a weekly or monthly schedule names a weekday")
        elif self.weekday is not None:
            raise ScheduleError("weekday", "only weekly and monthly schedules name a weekday")
        if self.repeats == MONTHLY:
            if self.month_week not in MONTH_WEEKS:
                raise ScheduleError("month_week", "a monthly schedule names a week of the month")
        elif self.month_week is not None:
            raise ScheduleError("month_week", "only monthly schedules name a week of the month")

    def between(self, after: dt.datetime, until: dt.datetime) -> list[dt.datetime]:
        """Every start strictly after `after` and no later than `until` (aware datetimes), as
        UTC datetimes, in order, each once."""
        if after.tzinfo is None or until.tzinfo is None:
            raise ValueError("between() takes aware datetimes")
        after, until = after.astimezone(UTC), until.astimezone(UTC)
        if until <= after:
            return []
        if self.repeats == HOURLY:
            return self._hourly(after, until)
        tz = zone(self.time_zone)
        # The wall clock, a day wider on each side: the offsets are applied after.
        start = (after.astimezone(tz) - dt.timedelta(days=1)).replace(tzinfo=None)
        end = (until.astimezone(tz) + dt.timedelta(days=1)).replace(tzinfo=None)
        rule = self._rule(start)
        found: set[dt.datetime] = set()
        for local in rule.between(start, end, inc=True):
            instant = local.replace(tzinfo=tz, fold=0).astimezone(UTC)
            if after < instant <= until:
                found.add(instant)
        return sorted(found)

    def next_after(self, after: dt.datetime, count: int) -> list[dt.datetime]:
        """The next `count` starts after `after` (looking at most two years ahead)."""
        found: list[dt.datetime] = []
        after = after.astimezone(UTC)  # windows of real days
        window = {HOURLY: 2, DAILY: 8, WEEKLY: 50, MONTHLY: 400}[self.repeats]
        start = after
        limit = after + dt.timedelta(days=731)
        while len(found) < count and start < limit:
            end = start + dt.timedelta(days=window)
            found += self.between(start, end)
            start = end
        return found[:count]

    def _rule(self, dtstart: dt.datetime) -> rrule.rrule:
        common = {"dtstart": dtstart, "byhour": self.hour, "byminute": self.minute, "bysecond": 0}
        if self.repeats == DAILY:
            return rrule.rrule(rrule.DAILY, **common)
        weekday = rrule.weekdays[self.weekday or 0]
        if self.repeats == WEEKLY:
            return rrule.rrule(rrule.WEEKLY, byweekday=weekday, **common)
        return rrule.rrule(rrule.MONTHLY, byweekday=weekday(self.month_week), **common)

    def _hourly(self, after: dt.datetime, until: dt.datetime) -> list[dt.datetime]:
        # Real hours: the first start after `after` at the given minute past a local hour,
        # then every 60 minutes of elapsed time (offsets change by whole hours).
        tz = zone(self.time_zone)
        local = after.astimezone(tz)
        first = local.replace(minute=self.minute, second=0, microsecond=0)
        instant = first.astimezone(UTC)
        while instant <= after:
            instant += dt.timedelta(hours=1)
        found = []
        while instant <= until:
            found.append(instant)
            instant += dt.timedelta(hours=1)
        return found


def zone(name: str) -> ZoneInfo:
    """The IANA time zone `name`, or ScheduleError."""
    if not isinstance(name, str) or not name or name.startswith(("/", ".")) or ".." in name:
        raise ScheduleError("time_zone", "choose a time zone")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ScheduleError("time_zone", f"there is no time zone {name!r}") from None


def zone_choices() -> list[str]:
    """Every time zone, the common ones first."""
    others = sorted(available_timezones() - set(COMMON_ZONES) - {"localtime", "Factory"})
    return [*COMMON_ZONES, *others]
