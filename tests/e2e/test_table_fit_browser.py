"""In a real browser: a Cut Throat Gym practice table on phones. The score chips say whole
names (no "Y…", "Re…"); in phone landscape the hand covers neither the player's own bar nor
its clock, with a dumbbell tag on it; nothing on the page scrolls. In Spanish (longer words) the
same table fits all six sizes: during play, with a hand's summary and at game over.
Screenshots in var/screenshots/."""

from __future__ import annotations

import random
from typing import Any

from engine import GameState
from house.services import practice_start
from tables.models import Game
from tests.e2e.conftest import log_in, screenshot
from tests.e2e.test_table_layout_browser import (
    SIZES,
    assert_inside,
    live,
    move,
    players_of,
    resize,
)


def overlaps(page: Any, a: str, b: str) -> bool:
    return page.evaluate(
        """([a, b]) => {
            const r = document.querySelector(a).getBoundingClientRect();
            const s = document.querySelector(b).getBoundingClientRect();
            return r.left < s.right - 0.5 && s.left < r.right - 0.5
                && r.top < s.bottom - 0.5 && s.top < r.bottom - 0.5;
        }""",
        [a, b],
    )


def cut(page: Any, selector: str) -> list[str]:
    """The texts of those elements that do not show whole (cut with an ellipsis, or hidden)."""
    return page.eval_on_selector_all(
        selector,
        "ns => ns.filter(n => n.scrollWidth > n.clientWidth + 1"
        " || n.scrollHeight > n.clientHeight + 1).map(n => n.textContent)",
    )


def cut_throat_gym(alice: Any, seed: int) -> tuple[Any, list[Any], random.Random]:
    """A Cut Throat Gym practice table (60 s clock), two dumbbells on Alice; she is to act with
    a long hand (five more bones from the yard): two rows of bones beside the board in
    landscape."""
    table = practice_start(user=alice, mode="citizen_gym", level="regular", players=3, clock=60)
    players = players_of(table)
    rng = random.Random(seed)
    game = live(table)
    dumbbells = dict(game.state, dumbbells=[2, 1, 0])
    assert Game.objects.filter(pk=game.pk, version=game.version).update(state=dumbbells) == 1
    state = None
    while state is None or state.to_act != 0:
        state = move(table, players, rng)
    game = live(table)
    grown = dict(game.state)
    grown["hands"] = [list(h) for h in game.state["hands"]]
    grown["hands"][0] += game.state["yard"][:5]
    grown["yard"] = game.state["yard"][5:]
    assert Game.objects.filter(pk=game.pk, version=game.version).update(state=grown) == 1
    return table, players, rng


def test_cut_throat_gym_fits_phones(live_server_url: str, new_page: Any, alice: Any) -> None:
    table, _, _ = cut_throat_gym(alice, 11)
    page = new_page("phone")
    log_in(page, live_server_url, alice)
    page.goto(f"{live_server_url}/tables/{table.pk}/")
    page.wait_for_function("() => window.wsReady === true")
    page.wait_for_selector("#hand .hand-bone.playable")
    page.wait_for_selector(".me-bar .seat .tag.dumbbells")
    for width, height in SIZES:
        resize(page, width, height)
        screenshot(page, f"cutthroat-{width}x{height}", full_page=False)
        chips = page.eval_on_selector_all(
            "#score-strip .score-chip .who",
            "ns => ns.filter(n => n.scrollWidth > n.clientWidth + 1).map(n => n.textContent)",
        )
        assert chips == [], (width, height, chips)
        assert not overlaps(page, "#rack", ".me-bar .seat"), (width, height)
        assert not overlaps(page, "#rack", ".me-bar .seat [data-clock]"), (width, height)
        assert page.evaluate("document.scrollingElement.scrollHeight") <= height, (width, height)


def test_the_site_bar_at_a_wide_table_is_one_row_with_a_menu(
    live_server_url: str, new_page: Any, alice: Any
) -> None:
    table = practice_start(user=alice, mode="fives", level="rookie", players=2)
    page = new_page("desktop")
    log_in(page, live_server_url, alice)
    page.goto(f"{live_server_url}/tables/{table.pk}/")
    page.wait_for_function("() => window.wsReady === true")
    for width, height in [(1280, 720), (1440, 900)]:
        resize(page, width, height)
        header = page.locator(".site-header").bounding_box()
        assert header["height"] <= 60, header
        # every link of the bar inside it: nothing wrapped out of sight
        bottoms = page.eval_on_selector_all(
            ".site-header a:visible, .site-header button:visible",
            "ns => ns.map(n => n.getBoundingClientRect().bottom)",
        )
        assert max(bottoms) <= header["y"] + header["height"] + 0.5
        toggle = page.locator(".menu-toggle")
        toggle.click()
        assert page.get_by_role("link", name="Watch", exact=True).is_visible()
        screenshot(page, f"table-menu-{width}x{height}", full_page=False)
        page.keyboard.press("Escape")
        assert toggle.get_attribute("aria-expanded") == "false"


def test_the_table_fits_every_size_in_spanish(
    live_server_url: str, new_page: Any, alice: Any
) -> None:
    """The checks of both files, once in Spanish: while Alice is to play, everything she needs
    in view, no name or score chip cut, the hand clear of her own bar and clock, no scrolling;
    a hand's summary and the game-over dialog in view with their buttons."""
    alice.language = "es"
    alice.save(update_fields=["language"])
    table, players, rng = cut_throat_gym(alice, 11)
    page = new_page("phone")
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    log_in(page, live_server_url, alice)
    page.goto(f"{live_server_url}/tables/{table.pk}/")
    page.wait_for_function("() => window.wsReady === true")
    page.wait_for_selector("#hand .hand-bone.playable")
    page.wait_for_selector(".me-bar .seat .tag.dumbbells")
    assert page.locator("html").get_attribute("lang") == "es"
    assert "Tu " in page.locator("#turn-status").inner_text()  # "Tu turno", "Tu salida"
    for width, height in SIZES:
        resize(page, width, height)
        screenshot(page, f"es-play-{width}x{height}", full_page=False)
        assert_inside(
            page,
            "#board",
            "#board .bone",
            "#hand .hand-bone",
            "#turn-status",
            ".seat.me [data-clock]",
            "#others .seat .name",
            "#others .seat .count",
        )
        assert cut(page, ".seat .name") == [], (width, height)
        assert cut(page, "#score-strip .score-chip .who") == [], (width, height)
        assert not overlaps(page, "#rack", ".me-bar .seat"), (width, height)
        assert not overlaps(page, "#rack", ".me-bar .seat [data-clock]"), (width, height)
        assert page.evaluate("document.scrollingElement.scrollHeight") <= height, (width, height)

    # A hand ends: its summary (in Spanish, longer) in view with its button.
    state = GameState.from_json(live(table).state)
    deal = state.deal_number
    while state.deal_number == deal and not state.is_over:
        state = move(table, players, rng)
    page.wait_for_selector("#hand-summary [data-summary-close]")
    for width, height in SIZES:
        resize(page, width, height)
        screenshot(page, f"es-summary-{width}x{height}", full_page=False)
        assert_inside(page, "#hand-summary", "#hand-summary [data-summary-close]")

    # The game ends (Alice needs a few points): the result in view with its buttons.
    game = live(table)
    near = dict(game.state, scores=[145, 0, 0], on_board=[True, False, False])
    assert Game.objects.filter(pk=game.pk, version=game.version).update(state=near) == 1
    state = GameState.from_json(near)
    while not state.is_over:
        state = move(table, players, rng)
    page.wait_for_selector("#game-over-dialog[open]")
    for width, height in SIZES:
        resize(page, width, height)
        screenshot(page, f"es-gameover-{width}x{height}", full_page=False)
        assert_inside(page, "#game-over-dialog", "#game-over-dialog .actions button")
    assert errors == []
