"""In a real browser: a club's leader (not a tournament organizer) makes the club's own event
from the club's page and publishes it; a member registers on a phone, a player outside the club
is told why they can't; the leader sends everyone in the event a message from the manage page,
and the member's open page shows it at once. Pictured at both sizes
(var/screenshots/club-events-*.png)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.utils import timezone
from playwright.sync_api import expect

from clubs import services as club_services
from clubs.models import Policy
from tests.e2e.conftest import WIDTHS, log_in, screenshot
from tournaments.models import Entry, Tournament, TournamentMessage

FORMAT = "%Y-%m-%dT%H:%M"


def fits(page: Any, name: str) -> None:
    """The page at the phone and the desktop size, no sideways scroll at either."""
    for width, (w, h) in WIDTHS.items():
        page.set_viewport_size({"width": w, "height": h})
        page.evaluate(
            "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"
        )
        assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0, (
            name,
            width,
        )
        screenshot(page, f"club-events-{name}-{width}")


def test_a_club_night_from_the_clubs_page_to_a_message_to_its_players(
    live_server_url: str, new_page: Any, alice: Any, bob: Any, make_user: Any
) -> None:
    url = live_server_url
    carol = make_user("Carol")
    club = club_services.club_found(
        user=alice, name="Los Tranques", description="Fridays.", policy=Policy.OPEN
    )
    club_services.club_join(club_id=club.pk, user=bob)

    leader = new_page("desktop")
    errors: list[str] = []
    leader.on("pageerror", lambda exc: errors.append(str(exc)))
    log_in(leader, url, alice)
    leader.goto(f"{url}/clubs/{club.slug}/")
    leader.get_by_role("link", name="New club event").click()
    leader.wait_for_selector("#id_club")
    assert leader.locator("#id_club").input_value() == club.slug
    fits(leader, "form")
    now = timezone.localtime(timezone.now())
    leader.fill("#id_name", "Tranques Friday")
    leader.fill("#id_rules_text", "Fives to 50, one game a match.")
    leader.select_option("#id_mode", "fives")
    leader.fill("#id_registration_opens", (now - dt.timedelta(minutes=5)).strftime(FORMAT))
    leader.fill("#id_registration_closes", (now + dt.timedelta(hours=1)).strftime(FORMAT))
    leader.fill("#id_starts_at", (now + dt.timedelta(hours=2)).strftime(FORMAT))
    leader.get_by_role("button", name="Save as a draft").click()
    leader.get_by_role("button", name="Publish").click()
    expect(leader.locator(".t-status")).to_contain_text("Published")
    event = Tournament.objects.get(name="Tranques Friday")
    assert event.club == club and event.organizer == alice

    # Bob, a member, registers on his phone; the club's page lists the event.
    member = new_page("phone")
    log_in(member, url, bob)
    member.goto(f"{url}/clubs/{club.slug}/")
    fits(member, "club-page")
    member.set_viewport_size({"width": 375, "height": 812})
    member.get_by_role("link", name="Tranques Friday").click()
    member.get_by_role("button", name="Register").click()
    expect(member.get_by_text("You are registered.").first).to_be_visible()
    assert Entry.objects.filter(tournament=event, player=bob).exists()
    member.wait_for_function("() => window.noticesReady === true")

    # Carol is not in the club: told so, with the way in.
    outsider = new_page("phone")
    log_in(outsider, url, carol)
    outsider.goto(f"{url}/tournaments/{event.pk}/")
    expect(outsider.locator(".t-me")).to_contain_text("Only members of Los Tranques may register")
    assert outsider.get_by_role("button", name="Register").count() == 0
    fits(outsider, "outsider")

    # The leader tells everyone in the event; Bob's open page shows it.
    leader.goto(f"{url}/tournaments/{event.pk}/manage/")
    leader.get_by_label("Message to everyone in the event").fill("We start at 20:15 tonight.")
    leader.get_by_role("button", name="Send to everyone in the event").click()
    expect(leader.get_by_text("Sent to the 1 player in the event.")).to_be_visible()
    assert TournamentMessage.objects.get().recipients == 1
    fits(leader, "manage")
    card = member.locator(
        f"[data-notice='tournament-{event.pk}-message-{TournamentMessage.objects.get().pk}']"
    )
    expect(card).to_contain_text("We start at 20:15 tonight.")
    screenshot(member, "club-events-message-card-phone", full_page=False)
    member.reload()
    expect(member.locator(".t-event-messages")).to_contain_text("We start at 20:15 tonight.")
    fits(member, "event")
    assert errors == []
