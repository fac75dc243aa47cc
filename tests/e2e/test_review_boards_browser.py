"""The Shark's review in a real browser, on a phone (375x812) and a desktop (1440x900): a decision
where the Shark would have played otherwise shows two labelled boards, the board after the
player's move and the board after the Shark's, each with its bone glowing (stacked on the phone,
side by side on the desktop); Previous and Next decision stay in the window after scrolling to
the end of the page, cover nothing there, and are reached and pressed by keyboard; axe-core finds
no violation. Screenshots go to var/screenshots/ (review-boards-*)."""

from __future__ import annotations

from typing import Any

import pytest

from coach import services
from coach.models import Review
from tables.models import Game
from tests.e2e.conftest import log_in, screenshot
from tests.e2e.test_axe_browser import AXE, RUN
from tests.history.helpers import play, start_table


def reviewed_game(alice: Any, bob: Any) -> Game:
    """A finished game of Alice's with her review worked out here (no worker): few sampled
    deals, the same decisions."""
    table = start_table([alice, bob], "fives", limit=100)
    game = play(table, [alice, bob], seed=9)
    assert game.status == Game.Status.FINISHED
    review = Review.objects.create(game=game, user=alice, seat=0, method=services.METHOD)
    done = services.review_compute(review_id=review.pk, worlds=8)
    while done is not None:
        done = services.review_compute(review_id=review.pk, done=done, worlds=8)
    review.refresh_from_db()
    assert review.status == Review.Status.DONE, review.error
    return game


def box(page: Any, selector: str) -> dict[str, float]:
    found = page.locator(selector).bounding_box()
    assert found is not None, selector
    return found


def in_window(page: Any, selector: str) -> None:
    b = box(page, selector)
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    assert b["y"] >= 0 and b["y"] + b["height"] <= height + 0.5, (selector, b, height)
    assert b["x"] >= 0 and b["x"] + b["width"] <= width + 0.5, (selector, b, width)


@pytest.mark.parametrize(("width", "height"), [(375, 812), (1440, 900)])
def test_both_boards_labelled_and_the_nav_in_sight(
    live_server_url: str, new_page: Any, alice: Any, bob: Any, width: int, height: int
) -> None:
    url = live_server_url
    game = reviewed_game(alice, bob)
    page = new_page("phone" if width < 800 else "desktop")
    page.set_viewport_size({"width": width, "height": height})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.add_init_script(path=str(AXE))
    log_in(page, url, alice)
    page.goto(f"{url}/games/{game.pk}/")
    page.wait_for_selector("#review[data-ready='true']")
    payload = page.evaluate("JSON.parse(document.getElementById('review-data').textContent)")
    decisions = payload["decisions"]
    other = next(
        i
        for i, d in enumerate(decisions[:-1])
        if not d["same"] and d["board"] and d["played_board"] and d["played_bone"]
    )
    d = decisions[other]
    page.locator(f'.review-jump[data-decision-index="{other}"]').click()
    review = page.locator("#review")
    assert review.get_attribute("data-decision") == str(other)

    # Two boards, each labelled with its move, each with its bone glowing.
    yours, sharks = page.locator("#review-yours"), page.locator("#review-sharks")
    assert yours.is_visible() and sharks.is_visible()
    assert page.locator("#review-yours-title").inner_text() == f"Your play: {d['played']}"
    assert page.locator("#review-sharks-title").inner_text() == f"The Shark's play: {d['best']}"
    assert yours.get_attribute("aria-labelledby") == "review-yours-title"
    played = page.locator(f'#review-board-yours .bone.last-play[data-bone="{d["played_bone"]}"]')
    best = page.locator(f'#review-board .bone.last-play[data-bone="{d["best_bone"]}"]')
    assert played.count() == 1 and best.count() == 1
    assert page.locator("#review-board-yours .bone.last-play").count() == 1
    assert page.locator("#review-board .bone.last-play").count() == 1
    a, b = box(page, "#review-yours"), box(page, "#review-sharks")
    if width < 800:  # stacked
        assert b["y"] >= a["y"] + a["height"] - 0.5
    else:  # side by side
        assert abs(a["y"] - b["y"]) < 1 and b["x"] >= a["x"] + a["width"] - 0.5
    for figure in (a, b):
        assert figure["x"] >= 0 and figure["x"] + figure["width"] <= width + 0.5
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.wait_for_function("() => !!window.axe")
    assert page.evaluate(RUN) == []

    # Scrolled so the boards end at the window's foot: the docked nav covers neither.
    page.evaluate("document.getElementById('review-alt').scrollIntoView({block: 'end'})")
    page.wait_for_selector("#review-nav.docked")
    nav = box(page, "#review-nav")
    assert box(page, "#review-alt")["y"] + box(page, "#review-alt")["height"] <= nav["y"] + 0.5
    screenshot(page, f"review-boards-{width}x{height}", full_page=False)

    # The end of the page: the nav is still in the window, and the page's foot is above it.
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    page.wait_for_function(
        "Math.ceil(window.scrollY + window.innerHeight) >= document.documentElement.scrollHeight"
    )
    in_window(page, "#review-nav")
    nav = box(page, "#review-nav")
    foot = page.evaluate(
        "Math.max(...[...document.body.children].filter(e => getComputedStyle(e).position"
        " !== 'fixed' && e.offsetParent !== null).map(e => e.getBoundingClientRect().bottom))"
    )
    assert foot <= nav["y"] + 0.5, (foot, nav)
    screenshot(page, f"review-boards-end-{width}x{height}", full_page=False)

    # By keyboard: Tab from the review's heading reaches Previous, then Next; Enter steps on.
    page.locator("#review").focus()
    for _ in range(12):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.dataset.decision") == "prev":
            break
    else:
        raise AssertionError("Tab never reached Previous decision")
    in_window(page, '[data-decision="prev"]')
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.dataset.decision") == "next"
    in_window(page, '[data-decision="next"]')
    page.keyboard.press("Enter")
    assert review.get_attribute("data-decision") == str(other + 1)
    in_window(page, "#review-nav")
    assert errors == []
    if width < 800:
        page.set_viewport_size({"width": 360, "height": 640})
        page.evaluate("document.getElementById('review-alt').scrollIntoView({block: 'end'})")
        in_window(page, "#review-nav")
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        screenshot(page, "review-boards-360x640", full_page=False)


def test_a_decision_chosen_before_the_replay_started_is_shown_when_it_has(
    live_server_url: str, new_page: Any, alice: Any, bob: Any
) -> None:
    """The review can be on the page before the replay it steps (game.js) has started: a
    decision pressed then is shown once the replay starts, and the review is marked ready only
    then (not before: a press would have done nothing)."""
    url = live_server_url
    game = reviewed_game(alice, bob)
    page = new_page("desktop")
    log_in(page, url, alice)
    held: list[Any] = []
    page.route("**/js/game*.js", lambda route: held.append(route))
    page.goto(f"{url}/games/{game.pk}/", wait_until="commit")
    page.wait_for_selector(".review-jump")
    while not held:
        page.wait_for_event("request", predicate=lambda r: "/js/game" in r.url)
    review = page.locator("#review")
    assert review.get_attribute("data-ready") != "true"  # nothing to step yet
    payload = page.evaluate("JSON.parse(document.getElementById('review-data').textContent)")
    chosen = next(i for i, d in enumerate(payload["decisions"]) if i > 0 and d["board"])
    # Pressed as a keyboard user presses it (focus, Enter): no pointer position that a layout
    # still settling could move under the press.
    jump = page.locator(f'.review-jump[data-decision-index="{chosen}"]')
    jump.focus()
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.dataset.decisionIndex") == str(chosen)
    for route in held:  # game.js is asked for once
        route.continue_()
    page.wait_for_selector("#review[data-ready='true']")
    page.wait_for_function(
        "(i) => document.getElementById('review').dataset.decision === String(i)", arg=chosen
    )
    assert (
        page.locator(f'.review-jump[data-decision-index="{chosen}"]').get_attribute("aria-current")
        == "true"
    )
