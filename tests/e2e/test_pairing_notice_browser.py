"""In a real browser: a player waiting in a "Play now" pool reads another page meanwhile. When
the pool seats them, that page says so at once: a card with the table and a live countdown to
the Ready time, the tab's title marked, the turn sound; and the table page counts the time down
too."""

from __future__ import annotations

import re
from typing import Any

from pairing import services
from pairing.cells import cell_parse
from tests.e2e.conftest import log_in, screenshot

CELL = "Citizen, 1 on 1"

#: Counts the tones the page's sounds make (static/js/sounds.js draws each with an oscillator).
COUNT_TONES = """
window.tonesPlayed = 0;
if (window.AudioContext) {
  const make = AudioContext.prototype.createOscillator;
  AudioContext.prototype.createOscillator = function () {
    window.tonesPlayed += 1;
    return make.call(this);
  };
}
"""


def test_a_player_on_another_page_is_told_the_table_is_ready(
    live_server_url: str, new_page: Any, alice: Any, bob: Any
) -> None:
    url = live_server_url
    for width, height in ((360, 640), (1280, 720)):
        page = new_page("desktop")
        page.set_viewport_size({"width": width, "height": height})
        log_in(page, url, alice)
        services.pool_join(user=alice, cell=cell_parse("citizen:1v1:0"))
        # Alice reads the rules while she waits: no waiting panel on this page. She has touched
        # the page (a browser plays no sound before that), and her sounds are on (the default).
        page.add_init_script(COUNT_TONES)
        page.goto(url + "/rules/")
        page.wait_for_function("window.noticesReady === true")
        page.keyboard.press("Shift")
        title = page.title()
        other = new_page("desktop")
        log_in(other, url, bob)
        other.goto(url + "/lobby/")
        other.wait_for_function(
            "document.getElementById('play-now').dataset.pairingReady === 'true'"
        )
        other.get_by_role("button", name=CELL).click()
        other.wait_for_url(re.compile(r"/tables/\d+/$"))
        table_url = other.url

        card = page.locator("#notices [data-notice^='pairing-']")
        card.wait_for()
        assert "Your table is ready" in card.inner_text()
        assert page.title().startswith("(!) Your table is ready")
        page.wait_for_function("window.tonesPlayed > 0")  # the turn sound, once
        assert page.evaluate("window.tonesPlayed") == 1  # one notice, one sound
        countdown = card.locator("[data-expires]")
        first = countdown.inner_text()
        assert re.fullmatch(r"0:[0-3]\d", first), first
        page.wait_for_function(
            "(t) => document.querySelector('#notices [data-expires]').textContent !== t", arg=first
        )
        link = card.get_by_role("link", name="Go to the table")
        assert link.get_attribute("href") == table_url.removeprefix(url)
        screenshot(page, f"pairing-notice-{width}")
        screenshot(page, f"pairing-notice-{width}-screen", full_page=False)
        # A key pressed on the page: seen; the title is the page's again, the card stays.
        page.keyboard.press("Shift")
        assert page.title() == title
        link.click()
        page.wait_for_url(table_url)
        page.wait_for_function("window.wsReady === true")
        status = page.locator("#turn-status")
        assert re.search(r"Press Ready within \d+ s", status.inner_text()), status.inner_text()
        screenshot(page, f"pairing-ready-countdown-{width}")
        assert page.locator("#notices [data-notice^='pairing-']").count() == 0
        # The next round: both leave the table so that they may join again.
        from tables import services as tables

        for user in (alice, bob):
            tables.seat_leave(table_id=int(table_url.rstrip("/").rsplit("/", 1)[1]), user=user)
        page.close()
        other.close()
