"""A finished game's page in the browser: the replay steps by keyboard and slider on the table's
board, and the deal check runs in the page (Web Crypto), passing, then failing once tampered."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from tests.e2e.conftest import screenshot
from tests.history.helpers import play, start_table


def log_in(page: Any, url: str, user: Any) -> None:
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    page.context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": cookie.value, "url": url}]
    )


def test_replay_and_deal_check_in_the_browser(
    live_server_url: str, new_page: Any, alice: Any, bob: Any
) -> None:
    table = start_table([alice, bob], "fives", limit=50)
    game = play(table, [alice, bob], seed=5)
    for width in ("phone", "desktop"):
        page = new_page(width)
        errors: list[str] = []
        page.on("pageerror", lambda exc, errors=errors: errors.append(str(exc)))
        log_in(page, live_server_url, bob)
        page.goto(f"{live_server_url}/games/{game.pk}/")
        page.wait_for_selector("#replay[data-ready='true']")
        replay = page.locator("#replay")
        assert replay.get_attribute("data-frame") == "0"
        # The keyboard: arrows step, End and Home jump.
        page.locator("#replay [data-go='forward']").focus()
        for _ in range(3):
            page.keyboard.press("ArrowRight")
        assert replay.get_attribute("data-frame") == "3"
        page.keyboard.press("ArrowLeft")
        assert replay.get_attribute("data-frame") == "2"
        page.keyboard.press("ArrowLeft")
        assert replay.get_attribute("data-frame") == "1"
        # The lead alone on the board (the second step may be a draw or a pass: the deal is
        # random, so only the first is known to put a bone down).
        expect(page.locator("#replay-board .bone")).to_have_count(1)
        last = int(page.locator("#replay-step").get_attribute("max") or 0)
        page.keyboard.press("End")
        assert replay.get_attribute("data-frame") == str(last)
        page.keyboard.press("Home")
        assert replay.get_attribute("data-frame") == "0"
        # The slider.
        page.locator("#replay-step").fill("5")
        assert replay.get_attribute("data-frame") == "5"
        assert page.locator("#replay-text").inner_text().strip()
        # The deal check passes with the published values, and fails with a tampered seed.
        check = page.locator("details.verify").first
        check.locator("summary").click()
        check.locator("[data-verify]").click()
        page.wait_for_selector("details.verify[data-verified='ok']")
        seed = check.locator("[data-field='seed']")
        value = seed.input_value()
        seed.fill(value[:-1] + ("1" if value[-1] == "0" else "0"))
        check.locator("[data-verify]").click()
        page.wait_for_selector("details.verify[data-verified='bad']")
        # Nothing wider than the screen.
        assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
        assert errors == []
        screenshot(page, f"history-game-{width}")
