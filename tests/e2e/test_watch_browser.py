"""In a real browser: the Watch page and the watching preference fit every standard size in
English and Spanish (screenshots in var/screenshots/)."""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import screenshot
from tests.e2e.test_header_browser import SIZES, open_page
from tests.ratings.helpers import set_rating
from tests.social.test_watch import challenge_table, play_now_table


def test_the_watch_page_at_every_size(live_server_url: str, browser: Any, make_user: Any) -> None:
    a, b, c, d, viewer = (make_user(n) for n in ("Annabelle Longname", "Bo", "Cy", "Di", "Vi"))
    play_now_table([a, b])
    challenge_table([c, d])
    set_rating(a, "fives", 1850, 60)
    for language in ("en", "es"):
        for width, height in SIZES:
            page = open_page(browser, live_server_url, viewer, (width, height), language)
            page.goto(live_server_url + "/watch/")
            rows = page.locator(".watch-list .table-row")
            assert rows.count() == 2
            assert "Annabelle" in rows.first.inner_text()
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            screenshot(page, f"watch-{language}-{width}x{height}")
            page.goto(live_server_url + "/challenges/settings/")
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            screenshot(page, f"watch-setting-{language}-{width}x{height}")
            page.context.close()
