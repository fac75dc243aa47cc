"""Series pages: the organizer's form (every refusal on its field), the series' page (its
schedule in words, next events made or to come, past winners), follow, pause, resume, end,
cancel one, co-organizers, the follower's notice card, and both languages."""

from __future__ import annotations

import datetime as dt
from typing import Any
from urllib.parse import quote

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from tests.tournaments.test_pages import form_data
from tests.tournaments.test_series import series_data
from tournaments import series as series_services
from tournaments import services
from tournaments.models import Series, SeriesFollow, SeriesSkip, Tournament

NEW = "/series/new/"


def series_form(**overrides: Any) -> dict[str, Any]:
    data = form_data(name="Friday Fives")
    for key in ("registration_opens", "registration_closes", "starts_at"):
        data.pop(key)
    data.update(
        repeats="weekly",
        weekday=4,
        month_week=1,
        at_time="20:00",
        time_zone="America/New_York",
        open_ahead_hours=168,
    )
    data.update(overrides)
    return data


@pytest.fixture
def organizer_client(organizer: Any) -> Client:
    client = Client()
    client.force_login(organizer)
    return client


@pytest.mark.django_db
def test_an_organizer_starts_a_weekly_series_and_its_first_event_appears(
    organizer_client: Client, organizer: Any
) -> None:
    page = organizer_client.get(NEW)
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="repeats"' in html and 'name="time_zone"' in html
    assert 'name="starts_at"' not in html  # the schedule gives each event its start
    response = organizer_client.post(NEW, series_form())
    assert response.status_code == 302
    series = Series.objects.get()
    assert response["Location"] == f"/series/{series.pk}/"
    assert (series.repeats, series.weekday, series.at_hour, series.time_zone) == (
        "weekly",
        4,
        20,
        "America/New_York",
    )
    assert series.month_week is None  # a weekly series names no week of the month
    event = Tournament.objects.get(series=series)
    local = event.starts_at.astimezone(dt.timezone(dt.timedelta(0))).astimezone(
        __import__("zoneinfo").ZoneInfo("America/New_York")
    )
    assert (local.weekday(), local.hour) == (4, 20)
    html = organizer_client.get(response["Location"]).content.decode()
    assert "Every Friday at 20:00 (America/New York)" in html
    assert f'href="/tournaments/{event.pk}/"' in html
    assert "Registration opens" in html  # the Fridays after it, not made yet
    # The event's page says which series it belongs to, and the list of series shows it.
    assert (
        f'href="/series/{series.pk}/"'
        in organizer_client.get(f"/tournaments/{event.pk}/").content.decode()
    )
    assert "Friday Fives" in organizer_client.get("/series/").content.decode()


@pytest.mark.django_db
def test_every_refused_value_is_explained_on_its_field(organizer_client: Client) -> None:
    response = organizer_client.post(
        NEW,
        series_form(
            name="",
            repeats="monthly",
            weekday="",
            month_week="",
            at_time="25:00",
            open_ahead_hours=0,
            max_entrants=1,
        ),
    )
    assert response.status_code == 400
    form = response.context["form"]
    for field in ("name", "weekday", "month_week", "at_time", "open_ahead_hours", "max_entrants"):
        assert form.errors.get(field), (field, form.errors)
    assert 'role="alert"' in response.content.decode()
    assert not Series.objects.exists()


@pytest.mark.django_db
def test_players_cannot_reach_the_organizers_pages(
    client: Client, organizer: Any, alice: Any
) -> None:
    series = series_services.series_create(organizer=organizer, **series_data())
    client.force_login(alice)
    assert client.get(NEW).status_code == 404
    assert client.get(f"/series/{series.pk}/edit/").status_code == 404
    assert client.post(f"/series/{series.pk}/organizers/", {"player": "Alice"}).status_code == 404
    for action in ("pause", "end"):
        client.post(f"/series/{series.pk}/{action}/")
    series.refresh_from_db()
    assert series.status == Series.Status.ACTIVE
    html = client.get(f"/series/{series.pk}/").content.decode()
    assert "End the series" not in html and "Follow" in html


@pytest.mark.django_db
def test_follow_pause_resume_edit_and_end_through_the_page(
    organizer_client: Client, organizer: Any, client: Client, alice: Any
) -> None:
    series = series_services.series_create(organizer=organizer, **series_data())
    url = f"/series/{series.pk}/"
    client.force_login(alice)
    client.post(f"{url}follow/")
    assert SeriesFollow.objects.filter(series=series, user=alice).exists()
    assert "Stop following" in client.get(url).content.decode()
    client.post(f"{url}follow/", {"follow": "0"})
    assert not SeriesFollow.objects.filter(series=series, user=alice).exists()

    organizer_client.post(f"{url}pause/")
    series.refresh_from_db()
    assert series.status == Series.Status.PAUSED
    assert "Resume" in organizer_client.get(url).content.decode()
    organizer_client.post(f"{url}resume/")
    series.refresh_from_db()
    assert series.status == Series.Status.ACTIVE

    page = organizer_client.get(f"{url}edit/")
    assert page.status_code == 200 and 'value="Friday Fives"' in page.content.decode()
    response = organizer_client.post(f"{url}edit/", series_form(max_entrants=16, weekday=5))
    assert response.status_code == 302
    series.refresh_from_db()
    assert series.weekday == 5 and series.event_settings["max_entrants"] == 16

    organizer_client.post(f"{url}organizers/", {"player": alice.display_name})
    assert series.co_organizers.filter(pk=alice.pk).exists()
    assert "End the series" in client.get(url).content.decode()  # alice organizes it now

    organizer_client.post(f"{url}end/")
    series.refresh_from_db()
    assert series.status == Series.Status.ENDED
    assert organizer_client.get(f"{url}edit/").status_code == 200  # shown, but refused:
    response = organizer_client.post(f"{url}edit/", series_form())
    assert response.status_code == 400 and "has ended" in response.content.decode()


@pytest.mark.django_db
def test_cancel_one_event_through_the_page(organizer_client: Client, organizer: Any) -> None:
    series = series_services.series_create(organizer=organizer, **series_data())
    made = Tournament.objects.get(series=series)
    html = organizer_client.get(f"/series/{series.pk}/").content.decode()
    link = f"/series/{series.pk}/cancel/?occurrence={quote(made.occurrence.isoformat())}"  # type: ignore[union-attr]
    assert link.replace("&", "&amp;") in html or link in html
    page = organizer_client.get(link)
    assert page.status_code == 200
    response = organizer_client.post(
        f"/series/{series.pk}/cancel/",
        {"occurrence": made.occurrence.isoformat(), "reason": ""},  # type: ignore[union-attr]
    )
    assert response.status_code == 400 and response.context["form"].errors.get("reason")
    response = organizer_client.post(
        f"/series/{series.pk}/cancel/",
        {"occurrence": made.occurrence.isoformat(), "reason": "Holiday"},  # type: ignore[union-attr]
    )
    assert response.status_code == 302
    made.refresh_from_db()
    assert made.status == Tournament.Status.CANCELLED
    # The one after, not made yet: skipped.
    later = series_services.schedule_of(series).next_after(made.occurrence, 1)[0]  # type: ignore[arg-type]
    organizer_client.post(
        f"/series/{series.pk}/cancel/", {"occurrence": later.isoformat(), "reason": "Away"}
    )
    assert SeriesSkip.objects.filter(series=series, occurrence=later).exists()
    assert "Away" in organizer_client.get(f"/series/{series.pk}/").content.decode()
    assert organizer_client.get(f"/series/{series.pk}/cancel/?occurrence=soon").status_code == 404


@pytest.mark.django_db
def test_the_followers_card_says_registration_is_open_until_they_enter(
    client: Client, organizer: Any, alice: Any
) -> None:
    series = series_services.series_create(organizer=organizer, **series_data())
    event = Tournament.objects.get(series=series)
    services.tournament_sweep()  # registration opens
    client.force_login(alice)
    card = client.get(f"/series/{series.pk}/notice/{event.pk}/")
    assert card.status_code == 200
    html = card.content.decode()
    assert "Registration is open" in html and f'href="/tournaments/{event.pk}/"' in html
    services.entry_register(tournament_id=event.pk, user=alice)
    assert client.get(f"/series/{series.pk}/notice/{event.pk}/").status_code == 204
    assert client.get(f"/series/{series.pk + 1}/notice/{event.pk}/").status_code == 404


@pytest.mark.django_db
def test_the_checkin_card_asks_the_entrant_to_check_in(
    client: Client, organizer: Any, alice: Any
) -> None:
    now = timezone.now()
    series = series_services.series_create(organizer=organizer, now=now, **series_data())
    event = Tournament.objects.get(series=series)
    services.tournament_sweep(now=now)
    services.entry_register(tournament_id=event.pk, user=alice, now=now)
    services.tournament_sweep(now=event.starts_at - dt.timedelta(minutes=10))
    client.force_login(alice)
    html = client.get(f"/tournaments/{event.pk}/notice/").content.decode()
    assert "check in now" in html and f'action="/tournaments/{event.pk}/check-in/"' in html


@pytest.mark.django_db
def test_spanish_pages(client: Client, organizer: Any, alice: Any) -> None:
    series = series_services.series_create(organizer=organizer, **series_data())
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    client.force_login(organizer)
    for url in (NEW, "/series/", f"/series/{series.pk}/", f"/series/{series.pk}/edit/"):
        response = client.get(url)
        assert response.status_code == 200, url
        assert 'lang="es"' in response.content.decode()
    html = client.get(f"/series/{series.pk}/").content.decode()
    assert "Cada viernes a las 20:00" in html and "Próximos eventos" in html
