"""In a real browser: an event's page (and the list) never misses a change made between its
rendering and its socket's watching. The page's notices.js is held back on its way (so the
page has its HTML but no socket yet); a player registers then, and its `tournament_changed`
goes out to nobody; then the script arrives, the socket watches, and its `watching` answer's
version is newer than the one the page was rendered at: the page fetches its live part and
shows the player, without waiting for its 30 s poll."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group

from tests.e2e.conftest import log_in
from tests.tournaments.conftest import make_event, quick_user
from tournaments import services
from tournaments.models import ORGANIZERS_GROUP, Tournament

WATCHING = "() => window.tournamentReady === true"
#: Less than the page's poll (30 s): the page must not be catching up by polling.
BEFORE_THE_POLL = 20_000


def held_back(page: Any, url: str) -> list[Any]:
    """Open `url` with notices.js held on its way; the held requests (one, once it is asked)."""
    held: list[Any] = []
    page.route("**/js/notices*.js", lambda route: held.append(route))
    page.goto(url, wait_until="commit")
    page.wait_for_function(
        "() => !!document.getElementById('live') || !!document.getElementById('tournament-lists')"
    )
    while not held:  # the module is asked for once the page's HTML is read
        page.wait_for_event("request", predicate=lambda r: "notices" in r.url)
    return held


@pytest.mark.parametrize("where", ["event", "list"])
def test_a_change_before_the_page_watches_is_fetched(
    live_server_url: str, new_page: Any, alice: Any, where: str
) -> None:
    organizer = quick_user("Olga")
    organizer.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    tournament = make_event(organizer, name="Friday Night Fives")
    services.tournament_sweep()  # registration opens
    page = new_page("phone")
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    log_in(page, live_server_url, alice)
    path = f"/tournaments/{tournament.pk}/" if where == "event" else "/tournaments/"
    held = held_back(page, f"{live_server_url}{path}")
    box = "#live" if where == "event" else "#tournament-lists"
    rendered = page.locator(box).get_attribute("data-live-version")
    tournament.refresh_from_db()
    if where == "event":
        assert rendered == str(tournament.seq)
        assert "Dora" not in page.locator(box).inner_text()
    else:
        assert rendered == str(sum(Tournament.objects.values_list("seq", flat=True)))

    # A change nobody hears: the page has no socket yet.
    dora = quick_user("Dora")
    if where == "event":
        services.entry_register(tournament_id=tournament.pk, user=dora)
        shows = "() => document.getElementById('live').innerText.includes('Dora')"
    else:
        make_event(organizer, name="Saturday Threes")
        services.tournament_sweep()
        lists = "document.getElementById('tournament-lists')"
        shows = f"() => {lists}.innerText.includes('Saturday Threes')"
    assert not page.evaluate(shows)
    held[0].continue_()
    page.wait_for_function(WATCHING)
    page.wait_for_function(shows, timeout=BEFORE_THE_POLL)
    assert errors == []
