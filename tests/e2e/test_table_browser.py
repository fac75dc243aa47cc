"""Two players in two browsers sign up, open and join a table, and play a whole hand by clicking."""

from __future__ import annotations

import re
from typing import Any

from tests.e2e.conftest import screenshot


def sign_up(page: Any, url: str, email: str, name: str) -> None:
    page.goto(url + "/accounts/signup/")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Display name").fill(name)
    page.get_by_label("Date of birth").fill("1991-03-14")
    page.get_by_label("Password", exact=True).fill("bones-on-the-table-7")
    page.get_by_label("Password (again)").fill("bones-on-the-table-7")
    page.get_by_label("I confirm that I am 18 or older").check()
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url(url + "/")


def drawn_seq(page: Any) -> int:
    return int(page.evaluate("window.lastDrawnSeq ?? -1"))


def game(page: Any) -> dict[str, Any] | None:
    return page.evaluate("window.dominologistTable && window.dominologistTable.state.game")


def take_turn(page: Any) -> None:
    """Whatever this player's turn asks for, done by clicking like a person."""
    doubles = page.locator("#doubles-dialog [data-choice=play]")
    if doubles.is_visible():
        doubles.click()
        return
    playable = page.locator("#hand .hand-bone.playable")
    if playable.count():
        playable.first.click()
        lit = page.locator("#board .end-target.lit")
        if lit.count():  # the bone fits more than one end: pick the first lit one
            lit.first.click()
        return
    yard = page.locator("#yard-bones .yard-bone")
    if yard.count():
        yard.first.click()


def test_two_players_play_a_whole_hand_by_clicking(live_server_url: str, new_page: Any) -> None:
    url = live_server_url
    alice = new_page("desktop")
    bob = new_page("phone")
    sign_up(alice, url, "alice@example.com", "Alice")
    sign_up(bob, url, "bob@example.com", "Bob")

    # Alice opens a one-on-one Citizen table from the lobby.
    alice.goto(url + "/lobby/")
    alice.get_by_label("Mode").first.select_option("citizen")
    alice.get_by_label("Players", exact=True).select_option("one_on_one")
    screenshot(alice, "lobby-desktop")
    alice.get_by_role("button", name="Open the table").click()
    alice.wait_for_url(re.compile(r"/tables/\d+/$"))
    alice.wait_for_function("window.wsReady === true")
    table_url = alice.url

    # Bob finds it in the lobby and sits down.
    bob.goto(url + "/lobby/")
    screenshot(bob, "lobby-phone")
    # "Sit" in the lobby seats him at once and opens the table.
    bob.get_by_role("button", name=re.compile(r"Sit \(1 seat free\)")).first.click()
    bob.wait_for_url(table_url)
    bob.wait_for_function("window.wsReady === true")
    alice.wait_for_function("document.querySelectorAll('.seat.empty').length === 0")

    for page in (alice, bob):
        page.locator(".seat.me").get_by_role("button", name="Ready", exact=True).click()
    for page in (alice, bob):
        page.wait_for_function(
            "window.dominologistTable.state.game"
            " && window.dominologistTable.state.game.phase !== 'awaiting_deal'"
        )
    screenshot(alice, "table-start-desktop")
    screenshot(bob, "table-start-phone")

    first_deal = game(alice)["deal"]
    players = {0: alice, 1: bob}
    for _ in range(200):
        state = game(alice)
        if state["phase"] == "game_over" or state["deal"] != first_deal:
            break
        mover = players[state["to_act"]]
        before = drawn_seq(alice)
        take_turn(mover)
        alice.wait_for_function(f"(window.lastDrawnSeq ?? -1) > {before}")
        bob.wait_for_function(f"(window.lastDrawnSeq ?? -1) >= {drawn_seq(alice)}")
    else:
        raise AssertionError("the hand did not end in 200 turns")

    # The hand is over: both browsers show the summary, and the next hand follows by itself.
    for page in (alice, bob):
        page.wait_for_function(
            f"window.dominologistTable.state.game.deal !== {first_deal}"
            " || window.dominologistTable.state.game.phase === 'game_over'"
        )
        assert page.locator("#hand-summary").is_visible()
    screenshot(alice, "hand-over-desktop")
    screenshot(bob, "hand-over-phone")
    # Neither browser ever held the other's bones.
    alice_hand = set(game(alice)["hand"])
    bob_hand = set(game(bob)["hand"])
    assert not alice_hand & bob_hand
    assert "hand" in game(alice) and len(game(bob)["hand_sizes"]) == 2
