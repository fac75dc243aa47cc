"""A Gym table at a 3 s clock in the browser: the countdown runs from the server's deadline, and
when nobody moves a real Celery worker gives the dumbbell, which pops up on the seat."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tables import services
from tests.conftest import broker_purge
from tests.e2e.conftest import log_in, screenshot


@pytest.fixture
def celery_worker() -> Iterator[None]:
    """A real Celery worker on the real (filesystem) broker, in a thread of this process, so it
    shares the test database with the forked daphne."""
    from celery.contrib.testing.worker import start_worker

    from dominoes_site.celery import app

    broker_purge()  # tasks queued by earlier tests, long gone
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        yield


def test_the_clock_counts_down_and_gives_a_dumbbell(
    live_server_url: str, new_page: Any, celery_worker: None, alice: Any, bob: Any
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
    alice_page.wait_for_function(
        "window.dominologistTable.state.game && window.dominologistTable.state.game.clock"
        " && window.dominologistTable.state.game.clock.deadline"
    )
    to_act = alice_page.evaluate("window.dominologistTable.state.game.to_act")
    clock = alice_page.locator(f'.seat[data-seat="{to_act}"] [data-clock]')
    clock.wait_for()
    assert clock.get_attribute("role") == "timer"
    first = clock.inner_text()
    assert first.endswith("s") and 1 <= int(first.split()[0]) <= 3
    for page, name in ((alice_page, "desktop"), (pages["bob"], "phone")):
        screenshot(page, f"gym-clock-{name}")
    # The bar runs down (and turns colour near the end) without any message from the server.
    alice_page.wait_for_function(
        f"document.querySelector('.seat[data-seat=\"{to_act}\"] [data-clock]')"
        ".classList.contains('danger')"
    )

    # Nobody moves: the worker's timer gives the dumbbell, and both pages show it on the seat.
    for page in pages.values():
        page.wait_for_selector(
            f'.seat[data-seat="{to_act}"] .tag.dumbbells[data-dumbbells="1"]', timeout=10_000
        )
        tag = page.locator(f'.seat[data-seat="{to_act}"] .tag.dumbbells').inner_text()
        assert "1 this turn" in tag and "1 this game" in tag
    assert alice_page.locator(".dumbbell-pop").count() >= 1
    screenshot(alice_page, "gym-dumbbell-desktop")
    log = alice_page.locator("#move-log").inner_text()
    assert "ran out of time" in log
    # ...and the clock started over, full.
    restarted = alice_page.locator(f'.seat[data-seat="{to_act}"] [data-clock]').inner_text()
    assert int(restarted.split()[0]) >= 2
