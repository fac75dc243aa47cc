"""Ratings in the browser: the game-over dialog with each player's change, the seats' ratings,
the profile's chart and the leaderboard, at 375 px and 1280 px, in English and Spanish."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from playwright.sync_api import expect

from accounts.models import User
from ratings.models import RatingChange
from ratings.pools import Pool
from ratings.services import game_rate
from tests.e2e.conftest import log_in, screenshot
from tests.history.helpers import play, start_table
from tests.ratings.helpers import finished_game, set_rating

SIZES = {"phone": (375, 812), "wide": (1280, 800), "narrow": (360, 740)}


def _page(browser: Any, size: str, pages: list[Any], **options: Any) -> Any:
    from tests.e2e.conftest import _csp_safe_waits

    w, h = SIZES[size]
    context = browser.new_context(viewport={"width": w, "height": h}, **options)
    context.set_default_timeout(30_000)
    pages.append(context)
    page = _csp_safe_waits(context.new_page())
    page.on("pageerror", lambda exc: pages.append(exc))
    return page


def _no_sideways_scroll(page: Any) -> None:
    wider = page.evaluate(
        """() => [...document.querySelectorAll("body *")]
            .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
            .filter((e) => !e.closest(".table-scroll, .visually-hidden"))
            .map((e) => `${e.tagName}.${e.className}`)"""
    )
    fits = "() => document.documentElement.scrollWidth <= window.innerWidth + 1"
    assert page.evaluate(fits), wider


def test_the_game_over_dialog_shows_the_rating_change(
    live_server_url: str, browser: Any, alice: User, bob: User
) -> None:
    table = start_table([alice, bob], "fives", limit=50)
    game = play(table, [alice, bob], seed=5)
    change = RatingChange.objects.get(rated_game__game=game, user=alice)
    shown = f"+{change.delta}" if change.delta > 0 else f"\u2212{-change.delta}"
    pages: list[Any] = []
    try:
        for size in ("phone", "wide"):
            page = _page(browser, size, pages)
            log_in(page, live_server_url, alice)
            page.goto(f"{live_server_url}/tables/{table.pk}/")
            dialog = page.locator("#game-over-dialog")
            expect(dialog.locator("[data-rating-changes]")).to_be_visible()
            mine = dialog.locator("[data-rating-seat='0']")
            expect(mine).to_contain_text(f"{round(change.rating_after)}")
            expect(mine).to_contain_text(shown)
            # Each seat shows its rating; a first game leaves the deviation high: "?".
            expect(page.locator(".seat .tag.rating").first).to_contain_text("?")
            screenshot(page, f"ratings-game-over-{size}")
            _no_sideways_scroll(page)
        assert not [p for p in pages if isinstance(p, Exception)]
    finally:
        for context in pages:
            if not isinstance(context, Exception):
                context.close()


def test_profile_chart_and_leaderboard(
    live_server_url: str, browser: Any, alice: User, bob: User, make_user: Any
) -> None:
    others = [make_user(f"Rival{n}") for n in range(11)]
    for n, rival in enumerate(others):
        set_rating(rival, Pool.FIVES, 1380 + 31 * n, 55 + n, games=10 + n)
    # Each rated as tables rates a game: inside its final transaction (it locks the ratings).
    for n in range(14):
        opponent = others[n % len(others)]
        with transaction.atomic():
            game_rate(game=finished_game([alice, opponent], winner=0 if n % 3 else 1))
    for n in range(3):
        with transaction.atomic():
            game_rate(game=finished_game([bob, others[n]], winner=0))
    pages: list[Any] = []
    try:
        for size in SIZES:
            for language in ("en", "es"):
                page = _page(browser, size, pages, locale=language)
                log_in(page, live_server_url, alice)
                page.context.add_cookies(
                    [{"name": "django_language", "value": language, "url": live_server_url}]
                )
                page.goto(f"{live_server_url}/players/{alice.pk}/#ratings")
                chart = page.locator("svg.rating-chart")
                expect(chart).to_have_count(1)
                expect(chart.locator("circle")).to_have_count(15)
                screenshot(
                    page.locator("#ratings"), f"ratings-profile-{size}-{language}", full_page=False
                )
                _no_sideways_scroll(page)
                page.goto(f"{live_server_url}/leaderboards/fives/")
                expect(page.locator("table.board tbody tr")).to_have_count(12)
                expect(page.locator(".climbers li").first).to_be_visible()
                expect(page.locator(".my-standing")).to_be_visible()
                screenshot(page, f"ratings-leaderboard-{size}-{language}")
                _no_sideways_scroll(page)
        assert not [p for p in pages if isinstance(p, Exception)]
    finally:
        for context in pages:
            if not isinstance(context, Exception):
                context.close()


def test_a_tap_explains_the_rating_chip_and_the_bone_count_on_a_phone(
    live_server_url: str, browser: Any, alice: User, bob: User
) -> None:
    """Phones show no hover titles: a tap on "1500?" or on the other player's bone count shows
    what it means, and a tap elsewhere puts it away; in English and in Spanish."""
    table = start_table([alice, bob], "fives", limit=50)
    pages: list[Any] = []
    try:
        for language, provisional, bones in (
            ("en", "provisional", "bones in hand"),
            ("es", "provisional", "fichas en la mano"),
        ):
            page = _page(browser, "narrow", pages, has_touch=True, is_mobile=True, locale=language)
            page.context.add_cookies(
                [{"name": "django_language", "value": language, "url": live_server_url}]
            )
            log_in(page, live_server_url, alice)
            page.goto(f"{live_server_url}/tables/{table.pk}/")
            bubble = page.locator(".tip-bubble")
            chip = page.locator(".seat .tag.rating").first
            expect(chip).to_contain_text("?")
            chip.tap()
            expect(bubble).to_be_visible()
            expect(bubble).to_contain_text(provisional)
            inside = page.evaluate(
                """() => { const r = document.querySelector('.tip-bubble').getBoundingClientRect();
                           return r.left >= 0 && r.right <= innerWidth && r.top >= 0
                                  && r.bottom <= innerHeight; }"""
            )
            assert inside
            screenshot(page, f"tip-rating-{language}")
            page.locator(".seat .count").first.tap()
            expect(bubble).to_contain_text(bones)
            chip.tap()  # from one mark to another: the bubble follows
            expect(bubble).to_contain_text(provisional)
            chip.tap()  # the same mark again: put away
            expect(bubble).to_have_count(0)
        assert not [p for p in pages if isinstance(p, Exception)]
    finally:
        for context in pages:
            if not isinstance(context, Exception):
                context.close()
