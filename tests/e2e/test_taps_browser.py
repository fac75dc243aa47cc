"""A tap is a press and a release: an update drawn between the two must not lose it.

The page draws the table anew on every update (a player joining, readying, a chat line). It
used to replace every seat panel and every bone of the hand with new nodes, so a press on the
old Ready button or bone and a release on the new one made no click: the tap was lost, and the
player (at a Gym table, on the clock) had to tap again. Here the press and the release are
Playwright's mouse, and the update comes from the other player's page while the button is held.
"""

from __future__ import annotations

from typing import Any

from tables import services
from tests.e2e.conftest import log_in

STATE = "window.dominologistTable.state"


def hold(page: Any, selector: str) -> None:
    """Press the mouse on the element (and keep it pressed)."""
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()


def seated(url: str, new_page: Any, alice: Any, bob: Any, bob_width: str) -> tuple[Any, Any]:
    """Alice's and Bob's pages at a new one-on-one table where both are seated."""
    table = services.table_create(host=alice, mode="citizen", players=2)
    services.seat_take(table_id=table.pk, user=bob, number=1)
    pages = (new_page("desktop"), new_page(bob_width))
    for page, user in zip(pages, (alice, bob), strict=True):
        log_in(page, url, user)
        page.goto(f"{url}/tables/{table.pk}/")
        page.wait_for_function("window.wsReady === true")
    return pages


def test_a_tap_on_ready_held_across_an_update_still_counts(
    live_server_url: str, new_page: Any, alice: Any, bob: Any
) -> None:
    alice_page, bob_page = seated(live_server_url, new_page, alice, bob, "phone")
    ready = ".seat.me .seat-actions button[aria-pressed]"
    alice_page.evaluate(
        "() => { window.readyPresses = 0;"
        " document.addEventListener('click', (ev) => {"
        "   if (ev.target.closest && ev.target.closest('.seat.me [aria-pressed]'))"
        "     window.readyPresses += 1; }, true); }"
    )
    seq = alice_page.evaluate(f"{STATE}.lastSeq")

    # Alice presses Ready and holds it; meanwhile Bob readies, and Alice's page draws it.
    hold(alice_page, ready)
    bob_page.locator(ready).click()
    alice_page.wait_for_function(
        f"{STATE}.lastSeq > {seq} && {STATE}.table.seats.find((s) => s.number === 1).ready"
    )
    alice_page.wait_for_selector('.seat[data-seat="1"] .tag.ready')
    alice_page.mouse.up()

    # The release makes the click: Alice is ready, and with both ready the game starts.
    assert alice_page.evaluate("window.readyPresses") == 1
    alice_page.wait_for_function(f"{STATE}.game !== null && {STATE}.game.phase !== undefined")
    bob_page.wait_for_function(f"{STATE}.game !== null")


def test_a_bone_held_across_an_update_is_still_chosen(
    live_server_url: str, new_page: Any, alice: Any, bob: Any
) -> None:
    pages = seated(live_server_url, new_page, alice, bob, "desktop")
    for page in pages:
        page.locator(".seat.me .seat-actions button[aria-pressed]").click()
    for page in pages:
        page.wait_for_function(f"{STATE}.game && Array.isArray({STATE}.game.hand)")
    # The player to act holds a bone while the other's socket drops: the page draws them away.
    to_act = pages[0].evaluate(f"{STATE}.game.to_act")
    mover, other = pages if to_act == 0 else pages[::-1]
    mover.wait_for_selector("#hand .hand-bone.playable")
    bone = mover.locator("#hand .hand-bone.playable").first.get_attribute("data-bone")
    seq = mover.evaluate(f"{STATE}.lastSeq")
    version = mover.evaluate(f"{STATE}.game.version")
    mover.evaluate(
        "() => { window.bonePresses = 0;"
        " document.addEventListener('click', (ev) => {"
        "   if (ev.target.closest && ev.target.closest('#hand .hand-bone'))"
        "     window.bonePresses += 1; }, true); }"
    )
    hold(mover, f'#hand .hand-bone[data-bone="{bone}"]')
    other.evaluate("() => window.dominologistTable.state.ws.close()")
    mover.wait_for_function(f"{STATE}.lastSeq > {seq}")  # the other is away: drawn anew
    mover.mouse.up()
    # The tap chose the bone (or, where it fits one end only, played it).
    assert mover.evaluate("window.bonePresses") == 1
    mover.wait_for_function(
        f"{STATE}.selected === {bone!r} || {STATE}.pending !== null"
        f" || {STATE}.game.version > {version}"
    )
