"""The coach in the browser: a player asks for the review of a finished game, watches its
progress while a real Celery worker works it out, and steps through the decisions by keyboard
with the replay, the Shark's move drawn on a board; the review is there at once on the next
visit, in Spanish too. At a practice table the Hint button marks the Shark's bone in the hand.
Screenshots at 375 and 1280 px go to var/screenshots/."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from coach.models import Review
from engine import GameState
from house.services import practice_start
from tables import services
from tables.models import Game
from tests.conftest import broker_purge
from tests.e2e.conftest import SCREENSHOTS, log_in, screenshot
from tests.history.helpers import play, start_table

WORKER_WAIT_MS = 120_000


@pytest.fixture
def celery_worker(settings: Any) -> Iterator[Callable[[], None]]:
    """A real worker on the real (filesystem) broker, in a thread of this process (so it shares
    the test database with the forked daphne), started when the test says so; fewer sampled
    deals per decision than the default, to keep the test short on a loaded machine."""
    from celery.contrib.testing.worker import start_worker

    from dominoes_site.celery import app

    settings.COACH_WORLDS = 16
    broker_purge()
    with contextlib.ExitStack() as stack:

        def start() -> None:
            stack.enter_context(
                start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=60)
            )

        yield start


def shot(target: Any, name: str) -> None:
    """A screenshot of one element (the review, the table), or of the page's viewport."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    screenshot(target, name, full_page=False)


def fits(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]


def test_asking_for_a_review_and_stepping_through_it(
    live_server_url: str,
    new_page: Any,
    celery_worker: Callable[[], None],
    alice: Any,
    bob: Any,
) -> None:
    url = live_server_url
    table = start_table([alice, bob], "fives", limit=100)
    game = play(table, [alice, bob], seed=9)
    assert game.status == Game.Status.FINISHED
    page = new_page("phone")
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    log_in(page, url, alice)
    page.goto(f"{url}/games/{game.pk}/")
    page.wait_for_selector("#replay[data-ready='true']")
    review = page.locator("#review")
    assert review.get_attribute("data-status") == "none"
    page.get_by_role("button", name="Ask the Shark for a review").click()
    # No worker yet: the progress bar waits, and says so.
    page.wait_for_selector("#review[data-status='queued'] #review-progress:not([hidden])")
    assert "Waiting for a worker" in page.locator("#review-count").inner_text()
    shot(review, "coach-review-waiting-375")
    celery_worker()
    page.wait_for_selector("#review[data-ready='true']", timeout=WORKER_WAIT_MS)
    stored = Review.objects.get(game=game, user=alice)
    assert stored.status == Review.Status.DONE and stored.total == stored.done > 0
    decisions = stored.result["decisions"]
    assert page.locator("#review-progress").is_hidden()
    assert page.locator(".review-jump").count() == len(decisions)
    assert "Accuracy" in page.locator("#review-summary").inner_text()

    # The keyboard: ↓ and ↑ go from decision to decision, the replay following.
    page.locator('[data-decision="next"]').focus()
    page.keyboard.press("ArrowDown")
    assert review.get_attribute("data-decision") == "0"
    frames = page.evaluate("window.dominologistReplay.frames.map(f => [f.hand, f.step])")
    at = int(page.locator("#replay").get_attribute("data-frame") or -1)
    assert frames[at] == [decisions[0]["hand"], decisions[0]["step"]]
    words = page.locator("#review-words").inner_text()
    assert "You played" in words and "Over 16 deals" in words
    page.keyboard.press("ArrowDown")
    assert review.get_attribute("data-decision") == "1"
    page.keyboard.press("ArrowUp")
    assert review.get_attribute("data-decision") == "0"
    # ← and → still step the replay; a step that is no decision of Alice's says so.
    page.keyboard.press("ArrowRight")
    text = page.locator("#review-words").inner_text()
    assert review.get_attribute("data-decision") == "" or "You played" in text
    # A decision where the Shark would have played otherwise: its move drawn on a board.
    other = next(i for i, d in enumerate(decisions) if d["best"] != d["played"])
    page.locator(f'.review-jump[data-decision-index="{other}"]').click()
    assert review.get_attribute("data-decision") == str(other)
    assert page.locator("#review-alt").is_visible()
    best = decisions[other]["options"][decisions[other]["best"]]["action"]["bone"]
    board = page.locator("#review-board")
    assert board.locator(f'.bone.last-play[data-bone="{best}"]').count() == 1
    assert "The Shark:" in page.locator("#review-words").inner_text()
    fits(page)
    shot(review, "coach-review-375")
    page.set_viewport_size({"width": 1280, "height": 800})
    page.locator(f'.review-jump[data-decision-index="{other}"]').click()
    fits(page)
    shot(page.locator("#replay"), "coach-replay-review-1280")
    assert errors == []

    # The next visit shows the stored review at once, in the reader's language.
    alice.language = "es"
    alice.save(update_fields=["language"])
    again = new_page("phone")
    log_in(again, url, alice)
    again.goto(f"{url}/games/{game.pk}/")
    again.wait_for_selector("#review[data-ready='true']")
    assert again.locator("#review").get_attribute("data-status") == "done"
    assert "Decisión siguiente" in again.locator("#review").inner_text()
    # By keyboard (focus, Enter): a click at a pointer position can miss while the bar docks
    # at the bottom of the window (coach.js dockNav) as the page scrolls to the button.
    again.locator('[data-decision="next"]').focus()
    again.keyboard.press("Enter")
    again.wait_for_selector("#review[data-decision='0']")
    assert "Jugaste" in again.locator("#review-words").inner_text()
    fits(again)
    shot(again.locator("#review"), "coach-review-es-375")


def test_the_hint_marks_the_sharks_bone_at_a_practice_table(
    live_server_url: str, new_page: Any, alice: Any
) -> None:
    url = live_server_url
    table = practice_start(user=alice, mode="citizen", level="rookie", players=2)
    players = [s.user for s in table.seats.select_related("user").order_by("number")]
    rng = random.Random(3)

    def live() -> Game:
        return Game.objects.get(table=table)

    # The house player moves by hand here (no worker): on to Alice's turn with a choice.
    for _ in range(300):
        game = live()
        state = GameState.from_json(game.state)
        plays = [a for a in state.legal_actions() if a.to_dict()["type"] == "play"]
        if state.to_act == 0 and len(plays) >= 2 and len(plays) == len(state.legal_actions()):
            break
        action = rng.choice(state.legal_actions()).to_dict()
        seat = action.pop("seat")
        services.game_act(
            table_id=table.pk, user=players[seat], version=game.version, action=action
        )
    else:
        raise AssertionError("Alice never had a choice")
    for width, name in ((375, "phone"), (1280, "desktop")):
        page = new_page(name)
        page.set_viewport_size({"width": width, "height": 800})
        log_in(page, url, alice)
        page.goto(f"{url}/tables/{table.pk}/")
        page.wait_for_function("window.wsReady === true")
        page.wait_for_selector("#coach-hint[data-turn='true']")
        hint = page.get_by_role("button", name="Hint", exact=True)
        hint.click()
        page.wait_for_selector("#hand .hand-bone.hinted")
        bone = page.locator("#coach-hint").get_attribute("data-hinted")
        assert page.locator(f'#hand .hand-bone.hinted[data-bone="{bone}"]').count() == 1
        assert page.locator("#hint-text li").count() >= 1
        shot(page, f"coach-hint-{width}")
