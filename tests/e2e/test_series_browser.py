"""In a real browser: an organizer starts a weekly series through the form, by keyboard and
mouse, and its first event appears on the series' page and in the list of events; a player
follows it. The form shows only the parts of the schedule its "Repeats" uses. At phone and
desktop sizes."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Group

from tests.e2e.conftest import log_in, screenshot
from tests.e2e.test_axe_browser import AXE, check, report
from tournaments.models import ORGANIZERS_GROUP, Series, SeriesFollow, Tournament


def test_an_organizer_creates_a_weekly_series_and_sees_the_first_event_appear(
    live_server_url: str, new_page: Any, alice: Any, bob: Any
) -> None:
    alice.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    page = new_page("phone")
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.add_init_script(path=str(AXE))  # axe-core, to read the form and the page with
    found: dict[str, Any] = {}
    log_in(page, live_server_url, alice)
    page.goto(f"{live_server_url}/tournaments/")
    page.get_by_role("link", name="Create a series").click()
    page.wait_for_selector("#series-form")
    # Weekly: the weekday shows, the week of the month does not.
    assert page.locator('[data-field="weekday"]').is_visible()
    assert not page.locator('[data-field="month_week"]').is_visible()
    page.select_option("#id_repeats", "monthly")
    assert page.locator('[data-field="month_week"]').is_visible()
    page.select_option("#id_repeats", "daily")
    assert not page.locator('[data-field="weekday"]').is_visible()
    page.select_option("#id_repeats", "weekly")

    page.fill("#id_name", "Friday Fives")
    page.fill("#id_rules_text", "Fives to 50. Be on time.")
    page.select_option("#id_mode", "fives")
    page.select_option("#id_weekday", "4")
    page.fill("#id_at_time", "20:00")
    page.select_option("#id_time_zone", "America/New_York")
    # A value out of range is explained beside its field, and nothing is lost.
    page.fill("#id_open_ahead_hours", "0")
    page.get_by_role("button", name="Start the series").click()
    page.wait_for_selector("#id_open_ahead_hours_error")
    assert page.locator("#id_name").input_value() == "Friday Fives"
    assert not Series.objects.exists()
    check(page, "the series form with an error", found)
    screenshot(page, "series-form-error-phone")
    page.fill("#id_open_ahead_hours", "168")
    page.get_by_role("button", name="Start the series").click()

    page.wait_for_selector("#series-next")
    series = Series.objects.get()
    event = Tournament.objects.get(series=series)
    assert "Every Friday at 20:00 (America/New York)" in page.content()
    first = page.locator("#series-next .t-card").first
    assert first.get_by_role("link", name=event.name).is_visible()
    check(page, "the series page, to its organizer", found)
    screenshot(page, "series-page-phone")
    page.set_viewport_size({"width": 1440, "height": 900})
    screenshot(page, "series-page-desktop")
    page.goto(f"{live_server_url}/tournaments/")
    page.get_by_role("link", name=event.name).wait_for()

    # A player finds it and follows it.
    other = new_page("desktop")
    log_in(other, live_server_url, bob)
    other.goto(f"{live_server_url}/series/")
    other.get_by_role("link", name="Friday Fives").click()
    other.get_by_role("button", name="Follow").click()
    other.get_by_role("button", name="Stop following").wait_for()
    assert SeriesFollow.objects.filter(series=series, user=bob).exists()
    assert found == {}, report(found)
    assert errors == []
