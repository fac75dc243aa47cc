"""Series: an organizer's schedule makes each event exactly once, a set time ahead, at the same
local time on both sides of the changes of the clocks; pause, resume, edit, cancel one, end;
followers are told when registration opens, entrants when check-in opens.

The clock is frozen by passing `now` to the services (as beat's sweep does with the real one)."""

from __future__ import annotations

import datetime as dt
import itertools
import threading
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments import schedule, services
from tournaments import series as series_services
from tournaments.models import Entry, Series, SeriesSkip, Tournament
from tournaments.schedule import Schedule, ScheduleError

from .conftest import event_settings

UTC = dt.UTC
NEW_YORK = ZoneInfo("America/New_York")


def series_data(**overrides: Any) -> dict[str, Any]:
    """Every Friday at 20:00 in New York, a week ahead; Fives to 50, free."""
    event = event_settings()
    for key in ("name", "registration_opens", "registration_closes", "starts_at"):
        event.pop(key)
    data = {
        **event,
        "name": "Friday Fives",
        "repeats": "weekly",
        "weekday": 4,
        "month_week": None,
        "at_hour": 20,
        "at_minute": 0,
        "time_zone": "America/New_York",
        "open_ahead_hours": 168,
    }
    data.update(overrides)
    return data


def at(text: str, zone: ZoneInfo = NEW_YORK) -> dt.datetime:
    """A local wall-clock time, as an aware datetime."""
    return dt.datetime.fromisoformat(text).replace(tzinfo=zone)


# --- the schedule ----------------------------------------------------------------------------


def test_friday_at_eight_in_new_york_stays_at_eight_across_both_changes() -> None:
    rule = Schedule("weekly", 20, 0, "America/New_York", weekday=4)
    # March 2027: the clocks go forward on Sunday the 14th; November: back on Sunday the 7th.
    spring = rule.between(at("2027-03-01T00:00"), at("2027-03-31T00:00"))
    autumn = rule.between(at("2027-10-25T00:00"), at("2027-11-20T00:00"))
    for start in spring + autumn:
        local = start.astimezone(NEW_YORK)
        assert (local.weekday(), local.hour, local.minute) == (4, 20, 0), local
    # ... which is 01:00 UTC before each change in winter time and 00:00 UTC in summer time.
    assert [s.hour for s in spring] == [1, 1, 0, 0]
    assert [s.hour for s in autumn] == [0, 0, 1, 1]
    assert [s.astimezone(NEW_YORK).day for s in spring] == [5, 12, 19, 26]


def test_a_zone_without_summer_time_keeps_its_utc_hour() -> None:
    rule = Schedule("daily", 18, 0, "America/Puerto_Rico")  # UTC-4 all year
    starts = rule.between(at("2027-03-10T00:00", UTC), at("2027-03-20T00:00", UTC))
    assert len(starts) == 10
    assert {s.hour for s in starts} == {22}
    rule = Schedule("daily", 18, 0, "UTC")
    assert {s.hour for s in rule.between(at("2027-11-01T00:00"), at("2027-11-10T00:00"))} == {18}


def test_a_time_the_clocks_skip_is_held_an_hour_later_and_a_repeated_one_once() -> None:
    rule = Schedule("daily", 2, 30, "America/New_York")
    spring = rule.between(at("2027-03-13T12:00"), at("2027-03-15T12:00"))
    assert [s.astimezone(NEW_YORK).strftime("%d %H:%M") for s in spring] == ["14 03:30", "15 02:30"]
    rule = Schedule("daily", 1, 30, "America/New_York")
    autumn = rule.between(at("2027-11-06T12:00"), at("2027-11-08T12:00"))
    assert [s.astimezone(NEW_YORK).strftime("%d %H:%M %Z") for s in autumn] == [
        "07 01:30 EDT",
        "08 01:30 EST",
    ]


def test_every_hour_counts_real_hours_through_the_changes() -> None:
    rule = Schedule("hourly", 0, 0, "America/New_York")
    for low, high in (
        (at("2027-03-14T00:30"), at("2027-03-14T05:30")),  # 02:00 does not exist
        (at("2027-11-07T00:30"), at("2027-11-07T03:30")),  # 01:00 happens twice
    ):
        starts = rule.between(low, high)
        gaps = {(b - a) for a, b in itertools.pairwise(starts)}
        assert gaps == {dt.timedelta(hours=1)}
        assert all(s.minute == 0 for s in starts)
    assert len(rule.between(at("2027-11-07T00:30"), at("2027-11-07T03:30"))) == 4


def test_the_first_sunday_and_the_last_friday_of_the_month() -> None:
    first = Schedule("monthly", 18, 0, "UTC", weekday=6, month_week=1)
    assert [s.date().isoformat() for s in first.next_after(at("2027-01-01T00:00", UTC), 3)] == [
        "2027-01-03",
        "2027-02-07",
        "2027-03-07",
    ]
    last = Schedule("monthly", 21, 0, "Europe/Madrid", weekday=4, month_week=-1)
    days = [
        s.astimezone(ZoneInfo("Europe/Madrid")).date()
        for s in last.next_after(at("2027-01-01T00:00", UTC), 12)
    ]
    assert all(d.weekday() == 4 and (d + dt.timedelta(days=7)).month != d.month for d in days)
    assert len(days) == 12


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"repeats": "yearly"}, "repeats"),
        ({"repeats": "weekly"}, "weekday"),
        ({"repeats": "daily", "weekday": 3}, "weekday"),
        ({"repeats": "monthly", "weekday": 3}, "month_week"),
        ({"repeats": "monthly", "weekday": 3, "month_week": 5}, "month_week"),
        ({"repeats": "daily", "hour": 24}, "at_time"),
        ({"repeats": "daily", "time_zone": "Mars/Olympus"}, "time_zone"),
        ({"repeats": "daily", "time_zone": "../etc/passwd"}, "time_zone"),
    ],
)
def test_a_schedule_that_cannot_be_names_its_part(kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(ScheduleError) as caught:
        Schedule(**kwargs)
    assert caught.value.field == field


@settings(max_examples=150, deadline=None)
@given(
    repeats=st.sampled_from(schedule.REPEATS),
    hour=st.integers(0, 23),
    minute=st.integers(0, 59),
    zone=st.sampled_from(
        ["UTC", "America/New_York", "Europe/London", "Asia/Kolkata", "Australia/Sydney"]
    ),
    weekday=st.integers(0, 6),
    week=st.sampled_from(schedule.MONTH_WEEKS),
    start=st.datetimes(min_value=dt.datetime(2026, 1, 1), max_value=dt.datetime(2030, 1, 1)),
    cut=st.integers(1, 200),
)
def test_windows_put_together_give_each_start_once(
    repeats: str,
    hour: int,
    minute: int,
    zone: str,
    weekday: int,
    week: int,
    start: dt.datetime,
    cut: int,
) -> None:
    """However beat's runs cut time into windows, the starts are the same, each once, in order,
    and at the schedule's local minute."""
    rule = Schedule(
        repeats,
        hour,
        minute,
        zone,
        weekday=weekday if repeats in ("weekly", "monthly") else None,
        month_week=week if repeats == "monthly" else None,
    )
    low = start.replace(tzinfo=UTC)
    span = dt.timedelta(days=70 if repeats == "monthly" else 9)
    whole = rule.between(low, low + span)
    middle = low + span * cut / 201
    parts = rule.between(low, middle) + rule.between(middle, low + span)
    assert parts == whole
    assert whole == sorted(set(whole))
    tz = ZoneInfo(zone)
    assert all(s.astimezone(tz).minute == minute for s in whole)
    if repeats != "hourly":
        assert all(s.astimezone(tz).hour in (hour, (hour + 1) % 24) for s in whole)


# --- making the events -----------------------------------------------------------------------


@pytest.mark.django_db
def test_a_new_series_opens_its_first_event_at_once_and_beat_the_next_a_week_ahead(
    organizer: Any,
) -> None:
    now = at("2027-03-01T09:00")  # a Monday
    series = series_services.series_create(organizer=organizer, now=now, **series_data())
    events = list(Tournament.objects.filter(series=series))
    assert len(events) == 1
    event = events[0]
    assert event.occurrence == at("2027-03-05T20:00") == event.starts_at
    assert event.status == Tournament.Status.PUBLISHED
    assert event.registration_opens == now and event.registration_closes == event.starts_at
    assert event.name == "Friday Fives · 2027-03-05"
    assert event.table_settings["target"] == 50 and event.organizer == organizer
    # Beat, every minute of the next weeks: one event per Friday, each made once, a week
    # ahead, at 20:00 New York time on both sides of the change of 14 March.
    assert series_services.series_sweep(now=now) == 0
    minute = now
    while minute < at("2027-03-20T00:00"):
        minute += dt.timedelta(minutes=30)
        series_services.series_sweep(now=minute)
    starts = [e.starts_at for e in Tournament.objects.filter(series=series).order_by("starts_at")]
    assert [s.astimezone(NEW_YORK).strftime("%m-%d %H:%M") for s in starts] == [
        "03-05 20:00",
        "03-12 20:00",
        "03-19 20:00",
        "03-26 20:00",
    ]
    made = {e.starts_at: e.published_at for e in Tournament.objects.filter(series=series)}
    for start, published in made.items():
        if start != at("2027-03-05T20:00"):
            assert dt.timedelta(hours=167) < start - published <= dt.timedelta(hours=168)


@pytest.mark.django_db
def test_a_rerun_or_a_second_beat_never_makes_an_event_twice(organizer: Any) -> None:
    now = at("2027-03-01T09:00")
    series = series_services.series_create(
        organizer=organizer, now=now, **series_data(repeats="daily", weekday=None)
    )
    first = Tournament.objects.filter(series=series).count()
    assert first == 7
    for _ in range(3):
        assert series_services.series_fill(series_id=series.pk, now=now) == 0
    # A beat that does not see what the other made (as at the same moment) loses at the row's
    # unique key, and makes nothing.
    occurrence = Tournament.objects.filter(series=series).first().occurrence  # type: ignore[union-attr]
    assert series_services._make(series, occurrence, now) is None
    assert Tournament.objects.filter(series=series).count() == first


@pytest.mark.django_db(transaction=True)
def test_two_beats_at_the_same_moment_make_each_event_once(organizer: Any) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("two writers at once: PostgreSQL (SQLite takes one writer at a time)")
    now = at("2027-03-01T09:00")
    series = Series.objects.create(
        organizer=organizer,
        **series_services.series_check(
            series_data(repeats="hourly", weekday=None, open_ahead_hours=20), now=now
        ),
    )
    barrier = threading.Barrier(4)
    made: list[int] = []

    def beat() -> None:
        barrier.wait()
        try:
            made.append(series_services.series_fill(series_id=series.pk, now=now))
        finally:
            connection.close()

    threads = [threading.Thread(target=beat) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(made) == Tournament.objects.filter(series=series).count() == 20


@pytest.mark.django_db
def test_an_hourly_series_opens_at_most_the_limit_at_once(organizer: Any) -> None:
    now = at("2027-03-01T09:10")
    series = series_services.series_create(
        organizer=organizer, now=now, **series_data(repeats="hourly", weekday=None)
    )
    events = Tournament.objects.filter(series=series).order_by("starts_at")
    assert events.count() == series_services.MAX_OPEN_EVENTS
    assert events.first().starts_at == at("2027-03-01T10:00")  # type: ignore[union-attr]
    # As each starts, the next is opened.
    later = at("2027-03-01T10:00")
    services.tournament_sweep(now=later)  # the 10:00 event starts (and is cancelled: no one came)
    assert series_services.series_sweep(now=later) == 1
    assert events.last().starts_at == at("2027-03-02T10:00")  # type: ignore[union-attr]


@pytest.mark.django_db
def test_paused_it_makes_nothing_and_resumed_it_skips_what_was_missed(organizer: Any) -> None:
    now = at("2027-03-01T09:00")
    series = series_services.series_create(organizer=organizer, now=now, **series_data())
    series_services.series_pause(series_id=series.pk, by=organizer)
    later = at("2027-03-20T09:00")
    assert series_services.series_sweep(now=later) == 0
    series_services.series_resume(series_id=series.pk, by=organizer, now=later)
    starts = sorted(e.starts_at for e in Tournament.objects.filter(series=series))
    assert starts == [at("2027-03-05T20:00"), at("2027-03-26T20:00")]
    with pytest.raises(services.TournamentError):
        series_services.series_resume(series_id=series.pk, by=organizer, now=later)


@pytest.mark.django_db
def test_an_edit_applies_to_events_not_made_yet(organizer: Any) -> None:
    now = at("2027-03-01T09:00")
    series = series_services.series_create(organizer=organizer, now=now, **series_data())
    (first,) = Tournament.objects.filter(series=series)
    # Saturdays at 19:00 from now on, for 16: the next Saturday is within the week, made now.
    series_services.series_update(
        series_id=series.pk,
        by=organizer,
        now=now,
        **series_data(max_entrants=16, at_hour=19, weekday=5),
    )
    first.refresh_from_db()
    assert first.max_entrants == 8 and first.starts_at == at("2027-03-05T20:00")
    second = Tournament.objects.filter(series=series).exclude(pk=first.pk).get()
    assert second.max_entrants == 16 and second.starts_at == at("2027-03-06T19:00")
    series_services.series_sweep(now=at("2027-03-07T09:00"))
    third = Tournament.objects.filter(series=series).order_by("starts_at").last()
    assert third is not None and third.starts_at == at("2027-03-13T19:00")


@pytest.mark.django_db
def test_cancelling_one_occurrence_refunds_it_or_skips_it(organizer: Any, alice: Any) -> None:
    now = at("2027-03-01T09:00")
    series = series_services.series_create(organizer=organizer, now=now, **series_data())
    made = Tournament.objects.get(series=series)
    services.tournament_sweep(now=now)  # registration opens
    services.entry_register(tournament_id=made.pk, user=alice, now=now)
    # The one made: cancelled as an event (its entrants told on its page, fees back).
    series_services.occurrence_cancel(
        series_id=series.pk, by=organizer, occurrence=made.occurrence, reason="Holiday", now=now
    )
    made.refresh_from_db()
    assert made.status == Tournament.Status.CANCELLED and made.cancel_reason == "Holiday"
    assert Entry.objects.filter(tournament=made, player=alice).exists()
    # One not made yet: skipped, and beat never makes it.
    later = at("2027-03-12T20:00")
    series_services.occurrence_cancel(
        series_id=series.pk, by=organizer, occurrence=later, reason="Away", now=now
    )
    assert SeriesSkip.objects.filter(series=series, occurrence=later).exists()
    series_services.series_sweep(now=at("2027-03-06T09:00"))
    assert not Tournament.objects.filter(series=series, occurrence=later).exists()
    with pytest.raises(services.TournamentError) as caught:
        series_services.occurrence_cancel(
            series_id=series.pk, by=organizer, occurrence=later, reason="Again", now=now
        )
    assert caught.value.code == "skipped"
    # A time the schedule never gives is refused.
    with pytest.raises(services.TournamentError) as caught:
        series_services.occurrence_cancel(
            series_id=series.pk,
            by=organizer,
            occurrence=at("2027-03-13T20:00"),
            reason="?",
            now=now,
        )
    assert caught.value.code == "no_occurrence"


@pytest.mark.django_db
def test_ended_it_makes_nothing_more_and_keeps_what_is_open(organizer: Any) -> None:
    now = at("2027-03-01T09:00")
    series = series_services.series_create(organizer=organizer, now=now, **series_data())
    series_services.series_end(series_id=series.pk, by=organizer, now=now)
    assert series_services.series_sweep(now=at("2027-03-06T09:00")) == 0
    assert Tournament.objects.get(series=series).status == Tournament.Status.PUBLISHED
    with pytest.raises(services.TournamentError):
        series_services.series_update(series_id=series.pk, by=organizer, **series_data())


@pytest.mark.django_db
def test_only_its_organizers_manage_a_series(organizer: Any, alice: Any, bob: Any) -> None:
    with pytest.raises(services.TournamentError) as caught:
        series_services.series_create(organizer=alice, **series_data())
    assert caught.value.code == "not_organizer"
    series = series_services.series_create(organizer=organizer, **series_data())
    for act in (series_services.series_pause, series_services.series_end):
        with pytest.raises(services.TournamentError):
            act(series_id=series.pk, by=alice)
    series_services.co_organizer_add(series_id=series.pk, by=organizer, user=alice)
    series_services.series_pause(series_id=series.pk, by=alice)
    event = Tournament.objects.get(series=series)
    assert services.may_manage(alice, event) and not services.may_manage(bob, event)
    with pytest.raises(services.TournamentError):
        series_services.co_organizer_add(series_id=series.pk, by=alice, user=bob)


@pytest.mark.django_db
def test_bad_settings_are_each_explained_on_their_field(organizer: Any) -> None:
    with pytest.raises(services.TournamentError) as caught:
        series_services.series_create(
            organizer=organizer,
            **series_data(
                name="",
                max_entrants=1,
                time_zone="Nowhere/Land",
                open_ahead_hours=0,
                repeats="weekly",
                weekday=None,
            ),
        )
    assert set(caught.value.errors) >= {
        "name",
        "max_entrants",
        "time_zone",
        "open_ahead_hours",
    } or set(caught.value.errors) >= {"name", "max_entrants", "weekday", "open_ahead_hours"}
    assert not Series.objects.exists()


@pytest.mark.django_db
def test_an_event_that_cannot_be_made_is_explained_on_the_series(
    organizer: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = at("2027-03-01T09:00")
    series = series_services.series_create(organizer=organizer, now=now, **series_data())
    # The books close for fees meanwhile: a Dollar event cannot be made.
    Series.objects.filter(pk=series.pk).update(
        event_settings={**series.event_settings, "fee_kind": "dollars", "fee_dollars": 5}
    )
    monkeypatch.setattr("tournaments.money.unavailable", lambda: True)
    assert series_services.series_sweep(now=at("2027-03-06T09:00")) == 0
    series.refresh_from_db()
    assert "could not be made" in series.problem and "books" in series.problem
    monkeypatch.setattr("tournaments.money.unavailable", lambda: False)
    assert series_services.series_sweep(now=at("2027-03-06T09:01")) == 1
    series.refresh_from_db()
    assert series.problem == ""


# --- notices ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_followers_are_told_when_registration_opens_and_entrants_when_checkin_does(
    organizer: Any, alice: Any, bob: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[tuple[int, str, dict[str, Any]]] = []
    monkeypatch.setattr("tournaments.series.notify_users", lambda notices: sent.extend(notices))
    monkeypatch.setattr("tournaments.services.notify_users", lambda notices: sent.extend(notices))
    now = at("2027-03-01T09:00")
    series = series_services.series_create(organizer=organizer, now=now, **series_data())
    assert sent == []  # nobody follows it yet
    series_services.series_follow(series_id=series.pk, user=alice)
    series_services.series_follow(series_id=series.pk, user=alice)  # twice: once
    series_services.series_follow(series_id=series.pk, user=bob)
    series_services.series_follow(series_id=series.pk, user=bob, follow=False)
    series_services.series_sweep(now=at("2027-03-06T09:00"))
    event = Tournament.objects.get(series=series, occurrence=at("2027-03-12T20:00"))
    assert sent == [
        (
            alice.pk,
            "series_event_open",
            {
                "series": series.pk,
                "tournament": event.pk,
                "card_url": f"/series/{series.pk}/notice/{event.pk}/",
            },
        )
    ]
    sent.clear()
    first = Tournament.objects.get(series=series, occurrence=at("2027-03-05T20:00"))
    services.tournament_sweep(now=now)
    services.entry_register(tournament_id=first.pk, user=bob, now=now)
    services.tournament_sweep(now=at("2027-03-05T19:50"))  # check-in opens 15 minutes before
    first.refresh_from_db()
    assert first.status == Tournament.Status.CHECKIN
    assert sent == [
        (
            bob.pk,
            "tournament_checkin_open",
            {"tournament": first.pk, "card_url": f"/tournaments/{first.pk}/notice/"},
        )
    ]


@pytest.mark.django_db
def test_the_schedule_in_words(organizer: Any) -> None:
    from tournaments.series_selectors import schedule_words

    def words(**kw: Any) -> str:
        return schedule_words(Series(name="x", **kw))

    assert words(
        repeats="weekly", weekday=4, at_hour=20, at_minute=0, time_zone="America/New_York"
    ) == ("Every Friday at 20:00 (America/New York)")
    assert (
        words(repeats="daily", at_hour=18, at_minute=0, time_zone="UTC")
        == "Every day at 18:00 (UTC)"
    )
    assert words(repeats="hourly", at_hour=0, at_minute=0, time_zone="UTC") == (
        "Every hour at 00 minutes past (UTC)"
    )
    assert (
        words(repeats="monthly", weekday=6, month_week=1, at_hour=18, at_minute=0, time_zone="UTC")
        == "The first Sunday of each month at 18:00 (UTC)"
    )
