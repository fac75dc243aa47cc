"""A Gym table at a 3 s clock in the browser: the countdown runs from the server's deadline, and
when nobody moves a real Celery worker gives the dumbbell, which pops up on the seat.

Nothing here races the clock, however slow the machine: the worker starts only once the pages
have shown the clock run out (until then nobody can give a dumbbell), the next turn's clock is a
minute (so no second dumbbell comes while the pages are looked at), and the pop, which the page
shows for under two seconds, is counted by the page itself as it appears.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.utils import timezone

from tables import services
from tables.models import Game
from tests.conftest import broker_purge
from tests.e2e.conftest import log_in, screenshot

#: Playwright's wait for what the worker does: generous, it only costs time when it fails.
WORKER_WAIT_MS = 60_000

#: Counts every `.dumbbell-pop` the page adds (it removes each after 1.9 s).
COUNT_POPS = """() => {
  window.dumbbellPops = 0;
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.classList && node.classList.contains("dumbbell-pop")) window.dumbbellPops += 1;
      }
    }
  }).observe(document.body, { childList: true, subtree: true });
}"""


@pytest.fixture
def celery_worker() -> Iterator[Callable[[], None]]:
    """Start, when the test says so, a real Celery worker on the real (filesystem) broker, in a
    thread of this process, so it shares the test database with the forked daphne. The queue is
    emptied now (tasks queued by earlier tests, long gone); what the test queues waits for it."""
    from celery.contrib.testing.worker import start_worker

    from dominoes_site.celery import app

    broker_purge()
    with contextlib.ExitStack() as stack:

        def start() -> None:
            stack.enter_context(
                start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=60)
            )

        yield start


def test_the_clock_counts_down_and_gives_a_dumbbell(
    live_server_url: str,
    new_page: Any,
    celery_worker: Callable[[], None],
    alice: Any,
    bob: Any,
) -> None:
    url = live_server_url
    table = services.table_create(host=alice, mode="citizen_gym", players=2, clock=3)
    services.seat_take(table_id=table.pk, user=bob, number=1)
    pages = {"alice": new_page("desktop"), "bob": new_page("phone")}
    for name, user in (("alice", alice), ("bob", bob)):
        page = pages[name]
        log_in(page, url, user)
        page.goto(f"{url}/tables/{table.pk}/")
        page.wait_for_function("window.wsReady === true")
        # The workout is shown before the game starts.
        assert "20 reps" in page.locator("#table-facts").inner_text()
    for page in pages.values():
        page.locator(".seat.me").get_by_role("button", name="Ready", exact=True).click()

    alice_page = pages["alice"]
    alice_page.evaluate(COUNT_POPS)
    alice_page.wait_for_function(
        "window.dominologistTable.state.game && window.dominologistTable.state.game.clock"
        " && window.dominologistTable.state.game.clock.deadline"
    )
    game = Game.objects.get(table=table)
    if game.clock_starts_at is not None and game.clock_starts_at > timezone.now():
        # Nobody was dealt a double (about one deal in 350): the bones were washed and dealt
        # again, and the clock waits behind that "Redeal" summary until both players read it.
        for page in pages.values():
            page.locator("#hand-summary [data-summary-close]").click()
        for _ in range(600):
            game.refresh_from_db()
            if game.clock_starts_at is None or game.clock_starts_at <= timezone.now():
                break
            time.sleep(0.05)
        alice_page.wait_for_function(
            "window.dominologistTable.state.game.clock.deadline"
            f" === {int(game.deadline.timestamp() * 1000)}"
        )
    assert game.deadline is not None
    shown = alice_page.evaluate("window.dominologistTable.state.game.clock")
    assert shown["deadline"] == int(game.deadline.timestamp() * 1000)  # the server's deadline
    assert shown["seconds"] == 3
    to_act = alice_page.evaluate("window.dominologistTable.state.game.to_act")
    clock = alice_page.locator(f'.seat[data-seat="{to_act}"] [data-clock]')
    clock.wait_for()
    assert clock.get_attribute("role") == "timer"
    # Up to 3 s left, or none on a machine slow enough to have taken them all to get here.
    first = clock.inner_text()
    assert first == "Time!" or (first.endswith(" s") and 1 <= int(first.split()[0]) <= 3), first
    for page, name in ((alice_page, "desktop"), (pages["bob"], "phone")):
        screenshot(page, f"gym-clock-{name}")
    # The bar runs down (and turns colour near the end) without any message from the server;
    # with no worker yet, nothing ends the turn before the page has shown it.
    alice_page.wait_for_function(
        f"document.querySelector('.seat[data-seat=\"{to_act}\"] [data-clock]')"
        ".classList.contains('danger')"
    )

    # Only this turn needs to run out: the clock restarts at a minute, so no second dumbbell
    # comes while the pages are looked at.
    state = dict(game.state, settings={**game.state["settings"], "clock": 60})
    assert Game.objects.filter(pk=game.pk, version=game.version).update(state=state) == 1

    # Nobody moves: the worker's timer gives the dumbbell, and both pages show it on the seat.
    celery_worker()
    for page in pages.values():
        page.wait_for_selector(
            f'.seat[data-seat="{to_act}"] .tag.dumbbells[data-dumbbells="1"]',
            timeout=WORKER_WAIT_MS,
        )
        tag = page.locator(f'.seat[data-seat="{to_act}"] .tag.dumbbells').inner_text()
        assert "1 this turn" in tag and "1 this game" in tag
    alice_page.wait_for_function("window.dumbbellPops >= 1")
    screenshot(alice_page, "gym-dumbbell-desktop")
    log = alice_page.locator("#move-log").inner_text()
    assert "ran out of time" in log
    # ...and the clock started over, full: a minute after the dumbbell, where the first turn
    # never had more than 3 s.
    restarted = alice_page.evaluate("window.dominologistTable.state.game.clock")
    assert restarted["seconds"] == 60
    assert restarted["deadline"] >= shown["deadline"] + 60_000
    text = alice_page.locator(f'.seat[data-seat="{to_act}"] [data-clock]').inner_text()
    assert text.endswith(" s") and int(text.split()[0]) > 3, text


def test_a_halved_clock_is_drawn_against_the_seat_s_own_clock(
    live_server_url: str, new_page: Any, alice: Any, bob: Any
) -> None:
    """A seat that halved its own clock (a 60 s table: 30 s) has its bar drawn against its own
    30 s: nearly full at the start of its turn, where against the table's 60 s it would be at
    half and already warn. Every page hears it, in the move log too."""
    url = live_server_url
    table = services.table_create(host=alice, mode="citizen_gym", players=2, clock=60)
    services.seat_take(table_id=table.pk, user=bob, number=1)
    for user in (alice, bob):
        services.seat_ready(table_id=table.pk, user=user, ready=True)
    game = Game.objects.get(table=table)
    if game.clock_starts_at is not None:  # a redeal's summary: both have read it
        for user in (alice, bob):
            services.summary_seen(table_id=table.pk, user=user, hand=game.state["deal"])
    page = new_page("desktop")
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    log_in(page, url, alice)
    page.goto(f"{url}/tables/{table.pk}/")
    page.wait_for_function("() => window.wsReady === true")
    to_act = page.evaluate("() => window.dominologistTable.state.game.to_act")
    bar = page.locator(f'.seat[data-seat="{to_act}"] [data-clock]')
    bar.wait_for()
    assert bar.get_attribute("data-seconds") == "60"
    services.seat_clock_halve(table_id=table.pk, user=[alice, bob][to_act])
    page.wait_for_function(
        "(seat) => { const c = window.dominologistTable.state.game.clock;"
        " return c.seats && c.seats[String(seat)] === 30; }",
        arg=to_act,
    )
    bar = page.locator(f'.seat[data-seat="{to_act}"] [data-clock]')
    bar.wait_for()
    assert bar.get_attribute("data-seconds") == "30"
    clock = page.evaluate("() => window.dominologistTable.state.game.clock")
    left_ms = page.evaluate(
        "() => { const s = window.dominologistTable.state;"
        " return s.game.clock.deadline - (Date.now() + (s.clockOffset || 0)); }"
    )
    assert clock["seconds"] == 60 and left_ms <= 30_000
    width = page.evaluate(
        f"() => parseFloat(document.querySelector('.seat[data-seat=\"{to_act}\"] .clock-fill')"
        ".style.width)"
    )
    # Drawn against its own 30 s (less what the machine took since the turn began), not 60 s.
    assert abs(width - left_ms / 300) < 5, (width, left_ms)
    assert "halved their own turn clock: 30 s a turn" in page.locator("#move-log").inner_text()
    assert errors == [], errors
