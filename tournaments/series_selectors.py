"""Read models of series: the list, and a series as one viewer sees it (its schedule in words,
its next events, made or to come, its past winners)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db.models import Count
from django.utils import timezone
from django.utils.translation import gettext as _

from tournaments import series as series_services
from tournaments import services
from tournaments.models import Entry, Series, SeriesSkip, Tournament

S = Tournament.Status
UPCOMING = (S.PUBLISHED, S.REGISTRATION, S.CHECKIN, S.RUNNING)
#: How many starts to come the page lists (made or not).
NEXT_SHOWN = 6
WINNERS_SHOWN = 10


def schedule_words(series: Series) -> str:
    """ "Every Friday at 20:00 (America/New_York)", in the page's language."""
    at = f"{series.at_hour:02d}:{series.at_minute:02d}"
    zone = series.time_zone.replace("_", " ")
    days = [
        _("Monday"),
        _("Tuesday"),
        _("Wednesday"),
        _("Thursday"),
        _("Friday"),
        _("Saturday"),
        _("Sunday"),
    ]
    if series.repeats == Series.Repeats.HOURLY:
        return _("Every hour at %(minute)s minutes past (%(zone)s)") % {
            "minute": f"{series.at_minute:02d}",
            "zone": zone,
        }
    if series.repeats == Series.Repeats.DAILY:
        return _("Every day at %(time)s (%(zone)s)") % {"time": at, "zone": zone}
    day = days[series.weekday or 0]
    if series.repeats == Series.Repeats.WEEKLY:
        return _("Every %(day)s at %(time)s (%(zone)s)") % {"day": day, "time": at, "zone": zone}
    week = {
        1: _("The first %(day)s of each month at %(time)s (%(zone)s)"),
        2: _("The second %(day)s of each month at %(time)s (%(zone)s)"),
        3: _("The third %(day)s of each month at %(time)s (%(zone)s)"),
        4: _("The fourth %(day)s of each month at %(time)s (%(zone)s)"),
        -1: _("The last %(day)s of each month at %(time)s (%(zone)s)"),
    }[series.month_week or 1]
    return week % {"day": day, "time": at, "zone": zone}


def series_list(user: Any) -> dict[str, Any]:
    """The series still running or paused, with how many follow each; the viewer's own
    (organized or co-organized) first when they run any."""
    rows = list(
        Series.objects.exclude(status=Series.Status.ENDED)
        .select_related("organizer", "club")
        .annotate(follower_count=Count("follows", distinct=True))
        .order_by("name", "pk")[:100]
    )
    followed = set(
        Series.objects.filter(follows__user=user).values_list("pk", flat=True)
        if getattr(user, "is_authenticated", False)
        else []
    )
    for row in rows:
        row.words = schedule_words(row)
        row.following = row.pk in followed
    return {
        "series_rows": rows,
        "is_organizer": services.is_organizer(user),
        "clubs_led": services.clubs_led(user),
    }


def series_page(series: Series, user: Any, now: dt.datetime | None = None) -> dict[str, Any]:
    now = now or timezone.now()
    rule = series_services.schedule_of(series)
    made = {
        e.occurrence: e
        for e in Tournament.objects.filter(series=series, status__in=UPCOMING).order_by("starts_at")
    }
    skips = {
        s.occurrence: s
        for s in SeriesSkip.objects.filter(series=series, occurrence__gt=now).order_by("occurrence")
    }
    starts = sorted(
        set(made)
        | set(skips)
        | (set(rule.next_after(now, NEXT_SHOWN)) if series.status != Series.Status.ENDED else set())
    )[: max(NEXT_SHOWN, len(made))]
    nexts = []
    for start in starts:
        event = made.get(start)
        nexts.append(
            {
                "starts": start,
                "event": event,
                "entrants": services.active_entries(event).count() if event else 0,
                "skip": skips.get(start),
                "opens": start - dt.timedelta(hours=series.open_ahead_hours),
                "cancellable": event is None or event.status != S.RUNNING,
            }
        )
    past = list(
        Tournament.objects.filter(series=series, status__in=[S.FINISHED, S.CANCELLED]).order_by(
            "-starts_at"
        )[:WINNERS_SHOWN]
    )
    winners = _winners(past)
    for event in past:
        event.winner_name = winners.get(event.pk, "")
    following = (
        getattr(user, "is_authenticated", False) and series.follows.filter(user=user).exists()
    )
    return {
        "series": series,
        "words": schedule_words(series),
        "nexts": nexts,
        "past": past,
        "following": following,
        "follower_count": series.follows.count(),
        "may_manage": series_services.may_manage_series(user, series),
        "co_organizers": list(series.co_organizers.order_by("display_name")),
        "event_count": Tournament.objects.filter(series=series).count(),
    }


def _winners(events: list[Tournament]) -> dict[int, str]:
    """The first place of each finished event, by name."""
    firsts = {e.pk: e.placings[0] for e in events if e.status == S.FINISHED and e.placings}
    entries = Entry.objects.filter(pk__in=firsts.values()).select_related("player", "partner")
    names = {entry.pk: entry.name for entry in entries}
    return {pk: names.get(entry_id, "") for pk, entry_id in firsts.items()}
