"""The club page's panels: other apps' parts of the page (the tournaments app's events and
series), registered from their AppConfig.ready() without clubs importing them."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from django.http import HttpRequest
from django.utils.html import format_html

from clubs import panels
from clubs.models import Club
from tests.clubs.conftest import found, logged_in

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_panels(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with no panel registered, and leaves none behind."""
    monkeypatch.setattr(panels, "PANELS", [])


def events_panel(request: HttpRequest, club: Club) -> str:
    return format_html(
        '<p class="test-panel">Friday Fives for {} members, seen by {}</p>',
        club.name,
        request.user.display_name,
    )


def quiet_panel(request: HttpRequest, club: Club) -> str:
    return ""


def series_panel(request: HttpRequest, club: Club) -> str:
    return '<p class="test-panel">The Winter Series</p>'


def test_the_page_shows_each_panel_in_order(alice: Any) -> None:
    club = found(alice, "Bones & <Co>")
    panels.panel_register(events_panel)
    panels.panel_register(quiet_panel)
    panels.panel_register(series_panel)
    panels.panel_register(events_panel)  # a second ready(): still once
    assert [events_panel, quiet_panel, series_panel] == panels.PANELS
    page = logged_in(alice).get(club.get_absolute_url()).content.decode()
    events = page[page.index('id="events"') : page.index("</section>", page.index('id="events"'))]
    assert events.count('class="club-panel"') == 2  # the quiet one shows nothing
    first = events.index("Friday Fives for Bones &amp; &lt;Co&gt; members, seen by Alice")
    assert first < events.index("The Winter Series")
    assert "No upcoming events or series" not in events


def test_without_panels_the_section_says_there_is_nothing(alice: Any) -> None:
    club = found(alice)
    page = logged_in(alice).get(club.get_absolute_url()).content.decode()
    assert "No upcoming events or series for this club yet." in page


def test_a_failing_panel_is_left_out_and_logged(
    alice: Any, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(request: HttpRequest, club: Club) -> str:
        raise RuntimeError("the events app broke")

    club = found(alice)
    panels.panel_register(broken)
    panels.panel_register(series_panel)
    with caplog.at_level(logging.ERROR, logger="clubs.panels"):
        response = logged_in(alice).get(club.get_absolute_url())
    assert response.status_code == 200
    assert "The Winter Series" in response.content.decode()
    assert any("the panel" in r.getMessage() for r in caplog.records)
