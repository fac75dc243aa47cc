"""In a real browser: the game-over dialog at a finished Gym practice table, on a phone
(portrait and landscape): the Shark's review is offered in its footer, in sight; a body that
scrolls shows a shadow where it goes on; the house's rematch offer is answered ("Accept the
rematch", not "Offer a rematch"); an unrated game says why without a ratings heading."""

from __future__ import annotations

import random
from typing import Any

from engine import GameState
from house.services import practice_start
from tables.models import Game, Seat
from tests.e2e.conftest import log_in, screenshot
from tests.e2e.test_table_layout_browser import (
    assert_inside,
    live,
    move,
    players_of,
)


def finished_gym_practice(alice: Any) -> Any:
    table = practice_start(user=alice, mode="citizen_gym", level="rookie", players=2, clock=60)
    players = players_of(table)
    game = live(table)
    near = dict(game.state, scores=[145, 0], on_board=[True, False])
    assert Game.objects.filter(pk=game.pk, version=game.version).update(state=near) == 1
    rng = random.Random(5)
    state = GameState.from_json(near)
    while not state.is_over:
        state = move(table, players, rng)
    return table


def test_the_game_over_dialog_offers_the_review_in_sight(
    live_server_url: str, new_page: Any, alice: Any
) -> None:
    table = finished_gym_practice(alice)
    game = live(table)
    # The house offers the rematch as soon as a game is over (house/services.py).
    Seat.objects.filter(table=table).exclude(user=alice).update(rematch=True)
    page = new_page("phone")
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    log_in(page, live_server_url, alice)
    page.goto(f"{live_server_url}/tables/{table.pk}/")
    page.wait_for_function("() => window.wsReady === true")
    dialog = page.locator("#game-over-dialog")
    dialog.wait_for()
    for width, height in [(375, 812), (360, 640), (812, 375)]:
        page.set_viewport_size({"width": width, "height": height})
        screenshot(page, f"gameover-review-{width}x{height}", full_page=False)
        assert_inside(page, "#game-over-dialog [data-review-link]")
    # The body scrolls at 360 x 640: its background has the shadows that say so.
    layers = page.eval_on_selector(
        "#game-over-dialog .dialog-body", "n => getComputedStyle(n).backgroundAttachment"
    )
    assert "local" in layers and "scroll" in layers
    # Not rated (practice is casual): the reason, and no "Ratings · ..." heading.
    rated = dialog.locator("[data-rating-changes]")
    assert rated.inner_text() == "Not rated: the table was casual."
    assert dialog.locator("h3").count() == 0 or "Ratings" not in dialog.inner_text()
    # The house already wants a rematch: the button answers it.
    assert dialog.locator("[data-rematch]").inner_text() == "Accept the rematch"
    link = dialog.locator("[data-review-link]")
    assert link.get_attribute("href") == f"/games/{game.pk}/#review"
    assert link.inner_text() == "The Shark's review of your play"
    assert errors == []


def test_the_game_over_dialog_offers_a_challenge_to_each_person(
    live_server_url: str, new_page: Any, alice: Any, bob: Any
) -> None:
    from tests.history.helpers import play, start_table

    table = start_table([alice, bob], "fives", limit=50)
    play(table, [alice, bob], seed=6)
    page = new_page("phone")
    log_in(page, live_server_url, alice)
    page.goto(f"{live_server_url}/tables/{table.pk}/")
    dialog = page.locator("#game-over-dialog")
    dialog.wait_for()
    challenge = dialog.locator(f'[data-challenge="{bob.pk}"]')
    assert challenge.inner_text() == "Challenge Bob"
    assert challenge.get_attribute("href") == f"/players/{bob.pk}/challenge/"
    assert dialog.locator("[data-challenge]").count() == 1  # not oneself
    screenshot(page, "gameover-challenge-375x812", full_page=False)
