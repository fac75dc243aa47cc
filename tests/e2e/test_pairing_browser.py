"""In a real browser: two players press the same "Play now" cell, one from the home page (by
keyboard, on a 360 px phone) and one from the lobby, and end up at one table, playing."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pairing.models import PoolEntry
from tables.models import GameAction
from tests.e2e.conftest import log_in, screenshot
from tests.e2e.test_table_browser import take_turn

CELL = "Citizen, 1 on 1"


def test_two_players_press_the_same_cell_and_play_at_one_table(
    live_server_url: str, browser: Any, new_page: Any, alice: Any, bob: Any
) -> None:
    url = live_server_url
    phone = browser.new_context(viewport={"width": 360, "height": 740})
    phone.set_default_timeout(30_000)
    try:
        _play(url, phone, new_page, alice, bob)
    finally:
        phone.close()


def _play(url: str, phone: Any, new_page: Any, alice: Any, bob: Any) -> None:
    from tests.e2e.conftest import _csp_safe_waits

    first = _csp_safe_waits(phone.new_page())
    second = new_page("desktop")
    log_in(first, url, alice)
    log_in(second, url, bob)

    # Alice, on her phone, chooses the cell by keyboard and waits in the pool.
    first.goto(url + "/")
    first.wait_for_function("document.getElementById('play-now').dataset.pairingReady === 'true'")
    width = first.evaluate("document.documentElement.scrollWidth")
    assert width <= 360, f"{width} px wide"
    first.get_by_role("button", name=CELL).focus()
    first.keyboard.press("Enter")
    first.wait_for_function("document.getElementById('pool-panel') !== null")
    first.wait_for_function("document.getElementById('play-now').dataset.pairingReady === 'true'")
    panel = first.locator("#pool-panel")
    assert "Citizen, one on one, for nothing" in panel.inner_text()
    assert first.locator("#pool-size").inner_text() == "1"
    first.wait_for_function("document.getElementById('pool-wait').textContent !== '0:00'")
    screenshot(first, "pairing-waiting-phone")
    assert first.evaluate("document.documentElement.scrollWidth") <= 360

    # Bob presses the same cell in the lobby: both are seated at one new table.
    second.goto(url + "/lobby/")
    second.wait_for_function("document.getElementById('play-now').dataset.pairingReady === 'true'")
    screenshot(second, "pairing-lobby-desktop")
    second.get_by_role("button", name=CELL).click()
    second.wait_for_url(re.compile(r"/tables/\d+/$"))
    table_url = second.url
    first.wait_for_url(table_url)  # the notice (or the status poll) takes Alice there
    entries = PoolEntry.objects.filter(user__in=[alice, bob], status="seated")
    assert entries.count() == 2 and len({e.match_id for e in entries}) == 1

    for page in (first, second):
        page.wait_for_function("window.wsReady === true")
        page.locator(".seat.me").get_by_role("button", name="Ready", exact=True).click()
    for page in (first, second):
        page.wait_for_function(
            "window.dominologistTable.state.game"
            " && window.dominologistTable.state.game.phase !== 'awaiting_deal'"
        )
    screenshot(first, "pairing-table-phone")

    # The player to act makes the first move, by clicking.
    game = second.evaluate("window.dominologistTable.state.game")
    mover = {0: first, 1: second}[game["to_act"]]
    version = game["version"]
    take_turn(mover)
    for page in (first, second):
        page.wait_for_function(f"window.dominologistTable.state.game.version > {version}")
    assert GameAction.objects.filter(game__table__pairing_match__isnull=False, by_server=False)


def test_the_waiting_panel_in_spanish_on_a_phone(
    live_server_url: str, browser: Any, alice: Any
) -> None:
    from pairing import services

    alice.language = "es"
    alice.save(update_fields=["language"])
    services.pool_join(user=alice, cell="citizen:partners:10")
    context = browser.new_context(viewport={"width": 360, "height": 740}, locale="es-ES")
    context.set_default_timeout(30_000)
    try:
        page = context.new_page()
        log_in(page, live_server_url, alice)
        page.goto(live_server_url + "/lobby/")
        page.wait_for_function(
            "() => document.getElementById('play-now').dataset.pairingReady === 'true'"
        )
        panel = page.locator("#pool-panel").inner_text()
        assert "Buscando jugadores: Ciudadano, Parejas, 2 contra 2, por $10" in panel
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        screenshot(page, "pairing-waiting-phone-es")
        page.get_by_role("button", name="Salir de la cola").click()
        page.wait_for_function("() => document.getElementById('pool-panel') === null")
        assert "Saliste de la cola." in page.locator(".messages").inner_text()
    finally:
        context.close()


@pytest.fixture
def no_notices(monkeypatch: pytest.MonkeyPatch) -> None:
    """No notice is ever sent (patched before the server is forked, so in it too): the waiting
    page must learn it was seated from its status poll alone."""
    from social import notices

    monkeypatch.setattr(notices, "notify_users", lambda batch: None)


def test_without_the_notices_socket_the_status_poll_finds_the_table(
    no_notices: None, live_server_url: str, new_page: Any, alice: Any, bob: Any
) -> None:
    from pairing import services

    page = new_page("desktop")
    log_in(page, live_server_url, alice)
    page.goto(live_server_url + "/")
    page.get_by_role("button", name="Fives, 1 on 1").click()
    page.wait_for_function("() => document.getElementById('pool-panel') !== null")
    page.wait_for_function(
        "() => document.getElementById('play-now').dataset.pairingReady === 'true'"
    )
    at_table = re.compile(r"/tables/\d+/$")
    with page.expect_response(lambda response: bool(at_table.search(response.url))) as landed:
        services.pool_join(user=bob, cell="fives:1v1:0")
    table = PoolEntry.objects.get(user=bob).match.table
    assert landed.value.url == f"{live_server_url}/tables/{table.pk}/"
    # the page the status poll led to says how long is left to press Ready
    assert "Your table is ready: press Ready within" in landed.value.text()
