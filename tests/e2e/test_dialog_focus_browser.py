"""In a real browser, by keyboard: each dialog of the table page takes the focus when it opens and
gives it back, when it closes, to the control that had it. The game-over dialog (the game ends
on the other player's move while the player is on the Sound button), the five-doubles dialog
(dealt over the last hand's summary: back to its Continue, and from there to the hand) and the
chat's report dialog (closed by Escape, by Cancel and by sending the report; Escape closes the
dialog and not the drawer behind it). axe-core finds nothing in the last two either."""

from __future__ import annotations

import random
import secrets
from typing import Any

from chat.models import ChatReport
from chat.services import chat_send
from engine import GameState
from house.services import practice_start
from tables import services
from tables.fairdeal import commitment_of, shuffled_set
from tables.models import Game, Hand
from tests.e2e.conftest import log_in, screenshot
from tests.e2e.test_axe_browser import AXE, check, report
from tests.e2e.test_table_layout_browser import live, move, players_of
from tests.history.helpers import start_table

#: What has the focus: enough to say which control it is.
ACTIVE = """() => { const a = document.activeElement;
    return {tag: a.tagName, id: a.id, cls: a.getAttribute('class') || '',
            text: a.textContent.trim().slice(0, 40),
            dialog: a.closest('dialog') ? a.closest('dialog').id : null,
            summary: a.hasAttribute('data-summary-close')}; }"""


def active(page: Any) -> dict[str, Any]:
    return page.evaluate(ACTIVE)


def open_table(page: Any, url: str, user: Any, table: Any) -> list[str]:
    page.add_init_script(path=str(AXE))  # axe-core too, to read each dialog with
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    log_in(page, url, user)
    page.goto(f"{url}/tables/{table.pk}/")
    page.wait_for_function("() => window.wsReady === true")
    return errors


def test_the_game_over_dialog_takes_the_focus_and_gives_it_back(
    live_server_url: str, new_page: Any, alice: Any
) -> None:
    table = practice_start(user=alice, mode="citizen", level="rookie", players=2)
    players = players_of(table)
    game = live(table)
    # Both sides five short of the target: the first hand that scores ends the game.
    near = dict(game.state, scores=[145, 145], on_board=[True, True])
    assert Game.objects.filter(pk=game.pk, version=game.version).update(state=near) == 1
    page = new_page("phone")
    errors = open_table(page, live_server_url, alice, table)
    page.wait_for_selector("#hand .hand-bone")
    # The player is on the Sound button while the game goes on, and ends.
    page.locator("#sound-toggle").focus()
    rng = random.Random(3)
    state = GameState.from_json(near)
    while not state.is_over:
        deal = state.deal_number
        state = move(table, players, rng)
        if not state.is_over and state.deal_number != deal:
            # A hand that scored nothing (rare): its summary is read, and the player goes back
            # to the Sound button for the next hand.
            page.wait_for_selector("#hand-summary:not([hidden]) [data-summary-close]")
            page.locator("#hand-summary [data-summary-close]").click()
            page.wait_for_selector("#hand-summary", state="hidden")
            page.locator("#sound-toggle").focus()
    page.wait_for_selector("#game-over-dialog[open]")
    page.wait_for_function("() => !!document.activeElement.closest('#game-over-dialog')")
    assert active(page)["dialog"] == "game-over-dialog"
    screenshot(page, "focus-game-over", full_page=False)
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.getElementById('game-over-dialog').open")
    assert active(page)["id"] == "sound-toggle", active(page)
    assert errors == []


def deal_five_doubles_next(table: Any, players: list[Any], alice: Any, rng: random.Random) -> Any:
    """Moves until one more ends the hand; then the next hand's seed is chosen (and committed to
    anew) so that it deals Alice (seat 0) five doubles or more. The move that ends the hand is
    returned, to be made when the page is ready for it."""
    for _ in range(200):
        game = live(table)
        state = GameState.from_json(game.state)
        for action in state.legal_actions():
            after = GameState.from_json(game.state)
            after.apply(action)
            if after.phase.value == "awaiting_deal":
                break
        else:
            move(table, players, rng)
            continue
        break
    else:
        raise AssertionError("the hand never came to its last move")
    pending = Hand.objects.get(game=game, dealt_at=None)
    # Alice's wash first (the first one counts: her page's own is then refused, changing nothing).
    services.hand_wash(
        table_id=table.pk, user=alice, hand=pending.number, entropy=secrets.token_hex(32)
    )
    pending.refresh_from_db()
    washes = {
        int(seat): wash
        for seat, wash in pending.contributions.items()
        if int(seat) in after.wash_seats
    }
    dealt = after.settings.deal  # seat 0's hand is the first slice of the order
    for _ in range(100_000):  # about one seed in 260 does
        seed = secrets.token_hex(32)
        order = shuffled_set(seed, washes, after.settings.max_pip)
        if sum(1 for bone in order[:dealt] if bone.is_double) >= 5:
            break
    else:
        raise AssertionError("no seed deals five doubles")
    Hand.objects.filter(pk=pending.pk).update(server_seed=seed, commitment=commitment_of(seed))
    return game, action


def test_the_five_doubles_dialog_takes_the_focus_and_gives_it_back(
    live_server_url: str, new_page: Any, alice: Any
) -> None:
    table = practice_start(user=alice, mode="citizen", level="rookie", players=2)
    players = players_of(table)
    page = new_page("desktop")
    errors = open_table(page, live_server_url, alice, table)
    page.wait_for_selector("#hand .hand-bone")
    game, last = deal_five_doubles_next(table, players, alice, random.Random(3))
    page.locator("#sound-toggle").focus()
    action = last.to_dict()
    seat = action.pop("seat")
    services.game_act(table_id=table.pk, user=players[seat], version=game.version, action=action)
    # The hand is over: its summary takes the focus; the next hand deals Alice five doubles,
    # and their dialog takes it from there.
    dialog = page.locator("#doubles-dialog")
    page.wait_for_selector("#doubles-dialog[open]")
    page.wait_for_function("() => !!document.activeElement.closest('#doubles-dialog')")
    assert active(page)["text"] == "Play for +100"
    assert not page.locator("#hand-summary").is_hidden()
    screenshot(page, "focus-five-doubles", full_page=False)
    found: dict[str, Any] = {}
    check(page, "the five-doubles dialog", found)
    assert found == {}, report(found)
    page.keyboard.press("Enter")  # play them for +100
    page.wait_for_function("() => !document.getElementById('doubles-dialog').open")
    # Back to the control that had it when the dialog opened: the summary's Continue (the
    # browser gives it back just after the dialog has closed) ...
    page.wait_for_function("() => document.activeElement.hasAttribute('data-summary-close')")
    page.wait_for_function("() => window.dominologistTable.state.game.phase === 'playing'")
    assert not dialog.is_visible()
    # ... which gives it to the hand.
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement.classList.contains('hand-bone')")
    assert errors == []


def test_the_report_dialog_takes_the_focus_and_gives_it_back(
    live_server_url: str, new_page: Any, alice: Any, bob: Any
) -> None:
    table = start_table([alice, bob], "fives")
    chat_send(table_id=table.pk, user=bob, content={"text": "Hurry up"})
    page = new_page("phone")
    errors = open_table(page, live_server_url, alice, table)
    page.locator("#drawer-toggle").click()
    page.locator("#tab-chat").click()
    report = page.get_by_role("button", name="Report Bob")
    dialog = page.get_by_role("dialog", name="Report a player")
    field = page.locator("#report-dialog textarea")
    for close in ("Escape", "Cancel", "Report"):
        report.focus()
        page.keyboard.press("Enter")
        dialog.wait_for()
        page.wait_for_function("() => !!document.activeElement.closest('#report-dialog')")
        assert active(page)["tag"] == "TEXTAREA"
        if close == "Escape":  # axe reads it once
            found: dict[str, Any] = {}
            check(page, "the report dialog", found)
            assert found == {}, report(found)
        if close == "Escape":
            page.keyboard.press("Escape")
        else:
            field.fill("Rude words")
            dialog.get_by_role("button", name=close, exact=True).focus()
            page.keyboard.press("Enter")
        dialog.wait_for(state="hidden")
        # The very button that opened it, and the drawer still open around it.
        assert report.evaluate("(button) => document.activeElement === button"), (
            close,
            active(page),
        )
        assert page.locator("#table-drawer").is_visible()
    # Sent once: Escape and Cancel send nothing.
    page.locator("#move-log").get_by_text("Thank you: your report was sent to staff.").wait_for(
        state="attached"
    )
    assert ChatReport.objects.filter(reporter=alice).count() == 1
    assert errors == []
