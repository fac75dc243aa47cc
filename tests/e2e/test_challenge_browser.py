"""A challenge across two browsers: Alice finds Bob online, challenges him, Bob's notice appears on
the page he has open, he accepts by keyboard, and both browsers end up at the same new table."""

from __future__ import annotations

import re
from typing import Any

from social.models import Challenge
from tables.models import Seat
from tests.e2e.conftest import SCREENSHOTS, log_in, screenshot

TABLE_URL = re.compile(r".*/tables/(\d+)/$")


def test_a_challenge_sent_and_accepted_across_two_browsers(
    live_server_url: str, new_page: Any, alice: Any, bob: Any
) -> None:
    url = live_server_url
    alice_page = new_page("desktop")
    bob_page = new_page("phone")  # 375 px
    log_in(alice_page, url, alice)
    log_in(bob_page, url, bob)

    # Bob is in the lobby: his notices socket marks him online.
    bob_page.goto(url + "/lobby/")
    bob_page.wait_for_function("window.noticesReady === true")

    alice_page.goto(url + "/players/online/")
    alice_page.wait_for_function("window.noticesReady === true")
    row = alice_page.locator("#online-players li", has_text="Bob")
    row.wait_for()
    screenshot(alice_page, "social-online-desktop")
    row.get_by_role("link", name="Challenge").click()

    # The challenge form is the create-table form: the lobby's script hides what Fives skips.
    alice_page.wait_for_function("document.body.dataset.createFormReady === 'true'")
    alice_page.get_by_label("Mode").select_option("fives")
    assert alice_page.locator('[data-rules-for="house"]').is_hidden()
    alice_page.get_by_label("Stake (Dominologist Dollars)").fill("5")
    alice_page.get_by_role("button", name="Send the challenge").click()
    alice_page.wait_for_url(re.compile(r".*/challenges/\d+/$"))
    alice_page.get_by_text("Waiting for Bob to answer").wait_for()
    challenge = Challenge.objects.get()
    assert challenge.mode == "fives" and challenge.stake_dollars == 5
    screenshot(alice_page, "social-challenge-waiting-desktop")

    # Bob's page shows the notice, focused, in its own dialog; he answers by keyboard.
    card = bob_page.locator(f'#notices [data-challenge="{challenge.pk}"]')
    card.wait_for()
    assert card.get_attribute("role") == "alertdialog"
    assert "Alice challenges you" in card.inner_text()
    assert bob_page.evaluate("document.activeElement.dataset.challenge") == str(challenge.pk)
    box = card.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)  # what Bob sees: the screen, not the page
    screenshot(bob_page, "social-notice-phone", full_page=False)
    bob_page.keyboard.press("Tab")
    assert bob_page.evaluate("document.activeElement.textContent.trim()") == "Accept"
    bob_page.keyboard.press("Enter")

    # Both browsers go to the same new table: Alice hosts it in seat 0, Bob sits in seat 1.
    bob_page.wait_for_url(TABLE_URL)
    alice_page.wait_for_url(TABLE_URL)
    assert bob_page.url == alice_page.url
    table_id = int(TABLE_URL.match(alice_page.url).group(1))  # type: ignore[union-attr]
    seats = {s.number: s.user_id for s in Seat.objects.filter(table_id=table_id)}
    assert seats == {0: alice.pk, 1: bob.pk}
    challenge.refresh_from_db()
    assert challenge.status == "accepted" and challenge.table_id == table_id


def test_a_declined_challenge_is_told_to_the_challenger(
    live_server_url: str, new_page: Any, alice: Any, bob: Any
) -> None:
    url = live_server_url
    alice_page = new_page("desktop")
    bob_page = new_page("phone")
    log_in(alice_page, url, alice)
    log_in(bob_page, url, bob)
    bob_page.goto(url + f"/players/{alice.pk}/")
    bob_page.wait_for_function("window.noticesReady === true")

    alice_page.goto(url + f"/players/{bob.pk}/challenge/")
    alice_page.get_by_label("Stake (Dominologist Dollars)").fill("0")
    alice_page.get_by_role("button", name="Send the challenge").click()
    alice_page.wait_for_url(re.compile(r".*/challenges/\d+/$"))
    alice_page.wait_for_function("window.noticesReady === true")

    card = bob_page.locator("#notices [data-challenge]")
    card.get_by_role("button", name="Decline").click()
    card.wait_for(state="detached")
    assert bob_page.url.endswith(f"/players/{alice.pk}/")  # he stayed where he was
    # Alice's page of the challenge says how it ended.
    alice_page.get_by_text("Bob declined your challenge").wait_for()
    alice_page.set_viewport_size({"width": 1280, "height": 900})
    screenshot(alice_page, "social-challenge-declined-1280")
