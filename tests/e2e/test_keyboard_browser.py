"""In a real browser, by keyboard only: a skip link straight to the hand, keys H (hand) and B
(board), and focus moved into the hand summary (Continue) and back to the hand when it goes."""

from __future__ import annotations

import random
from typing import Any

from engine import GameState
from house.services import practice_start
from tests.e2e.conftest import log_in, screenshot
from tests.e2e.test_table_layout_browser import live, move, players_of


def active(page: Any) -> dict[str, Any]:
    return page.evaluate(
        """() => { const a = document.activeElement;
            return {cls: a.getAttribute('class') || '', id: a.id,
                    skip: a.hasAttribute('data-skip-hand'),
                    summary: a.hasAttribute('data-summary-close')}; }"""
    )


def test_the_hand_and_board_by_keyboard(live_server_url: str, new_page: Any, alice: Any) -> None:
    table = practice_start(user=alice, mode="fives", level="rookie", players=2)
    players = players_of(table)
    rng = random.Random(3)
    state = GameState.from_json(live(table).state)
    while state.to_act != 0:
        state = move(table, players, rng)
    page = new_page("phone")
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    log_in(page, live_server_url, alice)
    page.goto(f"{live_server_url}/tables/{table.pk}/")
    page.wait_for_function("() => window.wsReady === true")
    page.wait_for_selector("#hand .hand-bone")

    # Two Tabs from the top: the skip link, and Enter lands on a bone of the hand.
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    assert active(page)["skip"], active(page)
    screenshot(page, "keyboard-skip-link", full_page=False)
    page.keyboard.press("Enter")
    assert "hand-bone" in active(page)["cls"]
    # B: the board (an end, or the board itself); H: back to the hand.
    page.keyboard.press("b")
    assert "end-target" in active(page)["cls"] or active(page)["id"] == "board-wrap"
    page.keyboard.press("h")
    assert "hand-bone" in active(page)["cls"]

    # A hand ends while the player is on the hand: focus goes to the summary's Continue, and
    # Enter gives it back to the hand.
    deal = state.deal_number
    while state.deal_number == deal and not state.is_over:
        state = move(table, players, rng)
    page.wait_for_selector("#hand-summary [data-summary-close]")
    page.wait_for_function("() => document.activeElement.hasAttribute('data-summary-close')")
    screenshot(page, "keyboard-summary-focus", full_page=False)
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.getElementById('hand-summary').hidden")
    if not state.is_over:
        page.wait_for_selector("#hand .hand-bone")
        page.wait_for_function("() => document.activeElement.classList.contains('hand-bone')")
    assert errors == []
