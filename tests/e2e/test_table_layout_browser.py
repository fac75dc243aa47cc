"""The table page fits the screen: at six sizes, from a 360 px phone to 1440 x 900, everything a
seated player needs (the board, every bone of the hand, the turn prompt, the Gym clock, the other
players' names and bone counts) is inside the viewport without scrolling, and so are the hand
summary and the game-over dialog with their buttons. One game (Partners, Gym, three house
players) is reused; the page is resized in place. Screenshots go to var/screenshots/.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from django.conf import settings

from engine import GameState
from house.services import practice_start
from tables import services
from tables.models import Game, Table
from tests.e2e.conftest import log_in, screenshot

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
SIZES = [(360, 640), (375, 812), (390, 844), (812, 375), (1280, 720), (1440, 900)]
#: Half a pixel of rounding either way.
SLACK = 0.5


def shoot(page: Any, state: str) -> None:
    size = page.viewport_size
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    screenshot(page, f"{state}-{size['width']}x{size['height']}", full_page=False)


def live(table: Table) -> Game:
    return Game.objects.filter(table=table).order_by("-number").first()  # type: ignore[return-value]


def players_of(table: Table) -> list[Any]:
    return [seat.user for seat in table.seats.select_related("user").order_by("number")]


def move(table: Table, players: list[Any], rng: random.Random) -> GameState:
    """One legal move for whoever is to act, through the services, as that player."""
    game = live(table)
    state = GameState.from_json(game.state)
    action = rng.choice(state.legal_actions()).to_dict()
    seat = action.pop("seat")
    try:
        services.game_act(
            table_id=table.pk, user=players[seat], version=game.version, action=action
        )
    except services.TableError as exc:  # a slow machine: the turn's clock ran out first
        assert exc.code in ("clock_ran_out", "stale"), exc.code
    return GameState.from_json(live(table).state)


def wait_fitted(page: Any) -> None:
    """Until the page has fitted itself to the screen as it is now."""
    page.wait_for_function(
        "() => document.getElementById('table-app').dataset.fitted"
        " === `${innerWidth}x${innerHeight}`"
    )


def alice_can_play(state: GameState) -> bool:
    """Alice (seat 0) is to act and has a bone to play (a deal may leave her only a pass)."""
    return state.to_act == 0 and any(a.to_dict()["type"] == "play" for a in state.legal_actions())


def resize(page: Any, width: int, height: int) -> None:
    page.set_viewport_size({"width": width, "height": height})
    wait_fitted(page)


def outside(page: Any, selector: str) -> list[str]:
    """Every element matching `selector` that is not wholly inside the viewport, described."""
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    boxes = page.eval_on_selector_all(
        selector,
        """nodes => nodes.map(n => {
            const r = n.getBoundingClientRect();
            return {x: r.left, y: r.top, r: r.right, b: r.bottom, w: r.width, h: r.height,
                    what: n.outerHTML.slice(0, 80)};
        })""",
    )
    assert boxes, f"nothing matches {selector}"
    bad = []
    for box in boxes:
        inside = (
            box["w"] > 0
            and box["h"] > 0
            and box["x"] >= -SLACK
            and box["y"] >= -SLACK
            and box["r"] <= width + SLACK
            and box["b"] <= height + SLACK
        )
        if not inside:
            bad.append(f"{selector} at {box} in {width}x{height}")
    return bad


def assert_inside(page: Any, *selectors: str) -> None:
    """Everything in view, once the page has fitted itself to the screen: an update that came
    in meanwhile (the house players' table goes on) may make it fit again, so the check is made
    again after each fit, for a few seconds, before it fails."""
    for _ in range(20):
        wait_fitted(page)
        scrolled = page.evaluate("window.scrollY + document.scrollingElement.scrollTop")
        bad = [problem for selector in selectors for problem in outside(page, selector)]
        if not bad and scrolled == 0:
            return
        page.wait_for_timeout(250)
    assert scrolled == 0
    assert bad == []


def test_the_table_fits_every_screen_during_play_at_a_summary_and_at_game_over(
    live_server_url: str, new_page: Any, alice: Any
) -> None:
    url = live_server_url
    table = practice_start(
        user=alice, mode="citizen_gym", level="regular", players=4, partners=True, clock=60
    )
    players = players_of(table)
    rng = random.Random(7)
    state = GameState.from_json(live(table).state)
    while not alice_can_play(state):  # the others move (and Alice passes) until she can play
        state = move(table, players, rng)

    page = new_page("desktop")
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    log_in(page, url, alice)
    page.goto(f"{url}/tables/{table.pk}/")
    page.wait_for_function("() => window.wsReady === true")
    page.wait_for_selector("#hand .hand-bone.playable")

    # During play, Alice to act: a few moves first, so the board has a line to scale.
    for _ in range(9):
        state = move(table, players, rng)
    while not alice_can_play(state):
        state = move(table, players, rng)
    page.wait_for_function(
        "n => window.dominologistTable.state.game.version === n", arg=live(table).version
    )
    page.wait_for_selector("#hand .hand-bone.playable")
    for width, height in SIZES:
        resize(page, width, height)
        shoot(page, "play")
        assert_inside(
            page,
            "#board",
            "#board .bone",
            "#hand .hand-bone",
            "#turn-status",
            ".seat.me [data-clock]",
            "#others .seat .name",
            "#others .seat .count",
        )
        # Every name whole (no "Regul…" three times), the partner marked, "(house)" said once.
        cut = page.eval_on_selector_all(
            ".seat .name",
            "ns => ns.filter(n => n.scrollWidth > n.clientWidth + 1"
            " || n.scrollHeight > n.clientHeight + 1).map(n => n.textContent)",
        )
        assert cut == []
    names = page.locator("#others .seat .name").all_inner_texts()
    assert sorted(names) == ["Regular Reggie", "Regular Rex", "Regular Rhonda"]
    assert page.locator('#others .seat[data-seat="2"] .tag.partner').count() == 1
    assert page.locator("#others .seat .tag.partner").count() == 1
    assert page.locator("#others .seat .tag.house").count() == 3

    # The drawer: a button in the bar, keyboard and Escape; emotes drawn as the site's icons.
    resize(page, 375, 812)
    toggle = page.locator("#drawer-toggle")
    assert toggle.get_attribute("aria-expanded") == "false"
    assert not page.locator("#table-drawer").is_visible()
    toggle.click()
    assert toggle.get_attribute("aria-expanded") == "true"
    page.locator("#tab-moves").focus()
    page.keyboard.press("ArrowRight")
    assert page.locator("#tab-chat").get_attribute("aria-selected") == "true"
    assert page.locator("#panel-chat").is_visible()
    emotes = page.locator("#chat-quick .emote")
    assert emotes.count() == 8
    assert emotes.locator("svg").count() == 8
    assert all(not text.strip() for text in emotes.all_inner_texts())  # no emoji glyph
    page.get_by_role("button", name="Send Thumbs up").click()
    line = page.locator("#chat-log .chat-line .chat-text.emote")
    line.wait_for()
    assert line.locator("svg[role=img]").get_attribute("aria-label") == "Thumbs up"
    assert not line.inner_text().strip()
    shoot(page, "drawer-chat")
    page.keyboard.press("Escape")
    assert toggle.get_attribute("aria-expanded") == "false"
    assert not page.locator("#table-drawer").is_visible()
    assert page.evaluate("document.activeElement.id") == "drawer-toggle"

    # A hand ends: the summary explains the count and fits, its button in sight.
    deal = state.deal_number
    while state.deal_number == deal and not state.is_over:
        state = move(table, players, rng)
    summary = page.locator("#hand-summary")
    summary.wait_for()
    # Under the summary the finished hand's board stays, and the prompt says the hand is over
    # (not "Your lead"); the next hand's clock waits for the summary (a Gym table).
    assert page.evaluate("!!window.dominologistTable.state.summaryBoard")
    assert "empty" not in (page.locator("#board-wrap").get_attribute("class") or "")
    page.wait_for_function(
        "document.getElementById('turn-status').textContent.includes('The hand is over')"
    )
    clock = page.evaluate("window.dominologistTable.state.game.clock")
    assert (
        clock["starts"] is not None
        and clock["deadline"] == clock["starts"] + clock["seconds"] * 1000
    )
    for width, height in SIZES:
        resize(page, width, height)
        shoot(page, "summary")
        assert_inside(page, "#hand-summary", "#hand-summary [data-summary-close]")
    text = summary.inner_text()
    if "dominoed" in text:  # at Partners the partner's pips are not counted, and it says why
        assert "partner: not counted" in text and "Partners only the opponents" in text

    # The game ends (Alice's side needs only a few points): the result fits, buttons in sight.
    game = live(table)
    near = dict(game.state, scores=[145, 0], on_board=[True, False])
    assert Game.objects.filter(pk=game.pk, version=game.version).update(state=near) == 1
    state = GameState.from_json(near)
    while not state.is_over:
        state = move(table, players, rng)
    dialog = page.locator("#game-over-dialog")
    dialog.wait_for()
    for width, height in SIZES:
        resize(page, width, height)
        shoot(page, "gameover")
        assert_inside(page, "#game-over-dialog", "#game-over-dialog .actions button")
    assert page.locator("#game-over-dialog [data-workout-seat]").count() >= 1
    if state.result and state.result.skunked:
        assert "owes double" in dialog.inner_text()

    # Reloaded: the move list is there, and the result, with no error.
    moves_before = page.locator("#move-log li").count()
    assert moves_before > 5
    page.reload()
    page.wait_for_function("() => window.wsReady === true")
    dialog.wait_for()
    assert page.locator("#move-log li").count() >= min(moves_before, 40)
    assert "Game over" in page.locator("#move-log").text_content()
    assert page.locator("#table-error").text_content() == ""
    shoot(page, "reloaded")

    # In Spanish: the mode and the house players in the page's language.
    page.context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": "es", "url": url}])
    page.reload()
    page.wait_for_function("() => window.wsReady === true")
    facts = page.locator("#table-facts").text_content()
    assert "Ciudadano" in facts and "Citizen" not in facts
    seats = page.locator("#others").text_content()
    assert "(house)" not in seats and "Habitual" in seats and "casa" in seats
    assert "(casa)" in page.locator("#move-log").text_content()
    assert errors == []


def test_a_finished_staked_table_opens_on_its_result_with_what_each_player_won_or_paid(
    live_server_url: str, new_page: Any, alice: Any, bob: Any
) -> None:
    from ledger.services import StakeSpec
    from tests.ledger.helpers import staked_game

    staked = staked_game([alice, bob], stake=StakeSpec(dollars=10))
    table, players = staked.table, [alice, bob]
    game = live(table)
    near = dict(game.state, scores=[140, 135], on_board=[True, True])  # nobody skunked
    assert Game.objects.filter(pk=game.pk, version=game.version).update(state=near) == 1
    rng = random.Random(3)
    state = GameState.from_json(near)
    while not state.is_over:
        state = move(table, players, rng)
    assert state.result is not None
    winner = state.result.winner

    page = new_page("phone")
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(str(payload))))
    log_in(page, live_server_url, alice)
    page.goto(f"{live_server_url}/tables/{table.pk}/")
    page.wait_for_function("() => window.wsReady === true")
    dialog = page.locator("#game-over-dialog")
    dialog.wait_for()
    shoot(page, "finished-staked")
    assert_inside(page, "#game-over-dialog", "#game-over-dialog .actions button")
    mine = page.locator('#game-over-dialog [data-net-seat="0"]').inner_text()
    theirs = page.locator('#game-over-dialog [data-net-seat="1"]').inner_text()
    assert (mine, theirs) == (
        ("won 10 Dollars", "paid 10 Dollars")
        if winner == 0
        else ("paid 10 Dollars", "won 10 Dollars")
    )
    assert "owes double" not in dialog.inner_text()  # nobody was skunked
    # No wash for a hand that will never be dealt (it was answered "no game in progress").
    assert not [frame for frame in sent if '"wash"' in frame]
    assert page.locator("#table-error").text_content() == ""
    assert page.locator("#commitment").is_hidden()
    assert errors == []
