"""In a real browser: the site header on a phone is one slim row with a menu button (keyboard,
aria-expanded, Escape), and "My games" is one tap from any page, at every standard size, in
English and Spanish."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from house import services as house
from tables import services
from tests.e2e.conftest import log_in, screenshot

SIZES = [(360, 640), (375, 812), (390, 844), (812, 375), (1280, 720), (1440, 900)]


def open_page(browser: Any, url: str, user: Any, size: tuple[int, int], language: str) -> Any:
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    context.set_default_timeout(30_000)
    page = context.new_page()
    context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": url}])
    if user is not None:
        log_in(page, url, user)
    return page


def test_phone_header_is_slim_with_a_keyboard_menu(
    live_server_url: str, browser: Any, alice: Any
) -> None:
    services.table_create(host=alice, mode="fives", private=True)
    house.practice_start(user=alice, mode="citizen", level="rookie", players=2)
    page = open_page(browser, live_server_url, alice, (375, 812), "en")
    page.goto(live_server_url + "/rules/")
    header = page.locator(".site-header").bounding_box()
    assert header["height"] <= 64, header
    toggle = page.get_by_role("button", name="Menu")
    assert toggle.get_attribute("aria-expanded") == "false"
    assert not page.get_by_role("link", name="Lobby").is_visible()
    my_games = page.locator(".my-games-link")
    assert my_games.is_visible() and my_games.get_attribute("data-my-games") == "2"
    # keyboard: Tab to the button, Enter opens, focus moves in, Escape closes and returns
    toggle.focus()
    page.keyboard.press("Enter")
    assert toggle.get_attribute("aria-expanded") == "true"
    assert page.get_by_role("link", name="Lobby").is_visible()
    assert page.get_by_role("link", name="History").is_visible()
    assert page.evaluate("document.activeElement.closest('#site-menu') !== null")
    page.keyboard.press("Escape")
    assert toggle.get_attribute("aria-expanded") == "false"
    assert not page.get_by_role("link", name="Lobby").is_visible()
    assert page.evaluate("document.activeElement.classList.contains('menu-toggle')")
    # one tap to the games in progress
    my_games.click()
    page.wait_for_url("**/my-games/")
    assert page.locator(".my-table").count() == 2
    screenshot(page, "header-phone-my-games")


def test_header_at_every_size_in_both_languages(
    live_server_url: str, browser: Any, alice: Any
) -> None:
    """One row at every width: the full header where all of it fits, compact (brand, My games,
    Menu) where it would wrap: in between the phone and the wide desktop, Spanish's longer words
    need the menu sooner than English."""
    services.table_create(host=alice, mode="fives", private=True)
    full_at: dict[str, list[int]] = {"en": [], "es": []}
    for language in ("en", "es"):
        for width, height in [*SIZES, (900, 700), (1024, 768), (1100, 800), (1366, 768)]:
            page = open_page(browser, live_server_url, alice, (width, height), language)
            page.goto(live_server_url + "/")
            assert page.locator(".my-games-link").is_visible()
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            header = page.locator(".site-header").bounding_box()
            screenshot(page, f"home-{language}-{width}x{height}")
            assert header["height"] <= 68, (language, width, header)  # one row
            lobby = page.get_by_role(
                "link", name="Lobby" if language == "en" else "Salón", exact=True
            )
            if page.locator(".site-header.compact").count():
                assert width < 1440, "the widest screen has room for the whole header"
                assert not lobby.is_visible()
                page.locator(".menu-toggle").click()
                assert page.locator("#site-menu").is_visible() and lobby.is_visible()
                screenshot(page, f"menu-{language}-{width}x{height}", full_page=False)
            else:
                assert width >= 900, "a phone gets the compact header"
                full_at[language].append(width)
                assert not page.locator(".menu-toggle").is_visible()
                assert lobby.is_visible()
                last = page.locator(".site-tools > *").last.bounding_box()
                assert last["x"] + last["width"] <= width
            page.context.close()
    assert 1440 in full_at["en"] and 1440 in full_at["es"], full_at
