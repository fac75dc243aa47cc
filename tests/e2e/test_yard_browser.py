"""In a real browser at 360 x 640: with the yard open (the player must draw), the board's bones
stay a readable size (not 15 px) and the page does not scroll."""

from __future__ import annotations

import random
from typing import Any

from engine import GameState
from house.services import practice_start
from tests.e2e.conftest import log_in, screenshot
from tests.e2e.test_table_layout_browser import live, move, players_of


def test_the_board_stays_readable_with_the_yard_open(
    live_server_url: str, browser: Any, alice: Any
) -> None:
    rng = random.Random(1)
    for _attempt in range(40):
        table = practice_start(user=alice, mode="fives", level="rookie", players=2)
        players = players_of(table)
        state = GameState.from_json(live(table).state)
        for _ in range(60):
            if state.is_over:
                break
            if (
                state.to_act == 0
                and any(a.to_dict()["type"] == "draw" for a in state.legal_actions())
                and len(state.board.to_json() or []) >= 3
            ):
                break
            state = move(table, players, rng)
        if (
            not state.is_over
            and state.to_act == 0
            and any(a.to_dict()["type"] == "draw" for a in state.legal_actions())
        ):
            break
    else:
        raise AssertionError("no position with a draw to make")
    context = browser.new_context(viewport={"width": 360, "height": 640})
    context.set_default_timeout(30_000)
    page = context.new_page()
    log_in(page, live_server_url, alice)
    page.goto(f"{live_server_url}/tables/{table.pk}/")
    page.wait_for_function("() => window.wsReady === true")
    page.wait_for_selector("#yard .yard-bone")
    page.wait_for_function(
        "() => document.getElementById('table-app').dataset.fitted === '360x640'"
    )
    screenshot(page, "yard-open-360x640", full_page=False)
    widths = page.eval_on_selector_all(
        "#board .bone",
        "ns => ns.map(n => { const r = n.getBoundingClientRect();"
        " return Math.min(r.width, r.height); })",
    )
    assert widths and min(widths) >= 20, widths
    assert page.evaluate("document.scrollingElement.scrollHeight") <= 640
    context.close()
