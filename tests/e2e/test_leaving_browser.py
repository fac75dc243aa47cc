"""In the browser: chat that stays plain text and can be muted, a player who drops and comes back
within the grace, and the game played on to its end."""

from __future__ import annotations

from typing import Any

from tables import services
from tests.e2e.conftest import log_in, screenshot
from tests.e2e.test_table_browser import drawn_seq, game, take_turn


def open_table(page: Any, url: str, table_id: int) -> None:
    page.goto(f"{url}/tables/{table_id}/")
    page.wait_for_function("() => window.wsReady === true")


def test_a_player_drops_comes_back_and_the_game_goes_on_to_its_end(
    live_server_url: str, new_page: Any, alice: Any, bob: Any
) -> None:
    url = live_server_url
    table = services.table_create(host=alice, mode="fives", players=2, limit=50)
    services.seat_take(table_id=table.pk, user=bob, number=1)
    alice_page, bob_page = new_page("desktop"), new_page("phone")
    log_in(alice_page, url, alice)
    log_in(bob_page, url, bob)
    for page in (alice_page, bob_page):
        open_table(page, url, table.pk)
        page.locator(".seat.me").get_by_role("button", name="Ready", exact=True).click()
    alice_page.wait_for_function("window.dominologistTable.state.game !== null")

    # Chat: what Bob types arrives as text, never as HTML; Alice can mute him. The chat is a tab
    # of the drawer: a column beside the table on Alice's wide screen, behind a button on Bob's.
    alice_page.locator("#tab-chat").click()
    bob_page.locator("#drawer-toggle").click()
    bob_page.locator("#tab-chat").click()
    bob_page.get_by_label("Your message").fill('<img src=x onerror="window.hacked=1">hello')
    bob_page.get_by_label("Your message").press("Enter")
    line = alice_page.locator("#chat-log .chat-line").last
    line.wait_for()
    assert line.locator(".chat-text").inner_text() == '<img src=x onerror="window.hacked=1">hello'
    assert alice_page.locator("#chat-log img").count() == 0
    assert alice_page.evaluate("window.hacked") is None
    alice_page.get_by_role("button", name="Mute Bob").click()
    assert alice_page.locator("#chat-log .chat-muted").count() == 1
    alice_page.get_by_role("button", name="Unmute Bob").click()
    assert alice_page.locator("#chat-log .chat-text").count() == 1
    bob_page.get_by_role("button", name="Good game!").click()
    alice_page.locator("#chat-log .chat-line").nth(1).wait_for()

    # Bob's page closes: Alice sees his seat held, with a countdown.
    bob_context = bob_page.context
    bob_page.close()
    away = alice_page.locator('.seat[data-seat="1"] .tag.away')
    away.wait_for()
    assert "seat held" in away.inner_text()
    screenshot(alice_page, "player-away-desktop")
    # He comes back within the grace: the seat is his, the countdown goes.
    bob_page = bob_context.new_page()
    open_table(bob_page, url, table.pk)
    alice_page.wait_for_selector('.seat[data-seat="1"] .tag.away', state="detached")
    assert "is back" in alice_page.locator("#move-log").inner_text()
    assert bob_page.locator("#chat-log .chat-line").count() == 2  # the chat came back too

    # ...and they play on to the end of the game.
    players = {0: alice_page, 1: bob_page}
    for _ in range(800):
        state = game(alice_page)
        if state["phase"] == "game_over":
            break
        before = drawn_seq(alice_page)
        take_turn(players[state["to_act"]])
        alice_page.wait_for_function(f"() => (window.lastDrawnSeq ?? -1) > {before}")
        bob_page.wait_for_function(f"() => (window.lastDrawnSeq ?? -1) >= {drawn_seq(alice_page)}")
    else:
        raise AssertionError("the game did not end in 800 turns")
    for page in (alice_page, bob_page):
        page.locator("#game-over-dialog").wait_for()
        assert page.locator("#game-over-dialog [data-rematch]").is_visible()
        assert page.locator("#game-over-dialog [data-game-link]").count() == 1
    screenshot(bob_page, "game-over-phone")
    assert max(game(alice_page)["scores"]) >= 50
