"""The screen-reader mode in Chromium, played as a blind player plays: through the accessibility
tree only (roles and names: the "Announcements" log, the "Your move" field, buttons, dialogs) and
the keyboard. Alice turns the mode on, reads her hand, the ends, the board, the scores and the
clock, makes mistakes and hears why, then plays a whole All Fives game against a house player by
reading each announcement and typing her moves, until the game is over. The house moves at once
(Celery tasks run inline, in the server process, with no pace). Screenshots at 360 x 640 and
1280 x 720 go to var/screenshots/.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from house.services import practice_start
from tables.services import seat_clock_halve
from tests.e2e.conftest import SCREENSHOTS, log_in, screenshot

PIPS = {
    "blank": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
}
PIPS_ES = {
    "blanca": 0,
    "uno": 1,
    "dos": 2,
    "tres": 3,
    "cuatro": 4,
    "cinco": 5,
    "seis": 6,
    "siete": 7,
    "ocho": 8,
    "nueve": 9,
}
ENDS = ("left", "right", "up", "down")


@pytest.fixture
def eager(settings: Any) -> Iterator[None]:
    """House players move at once, inline: in this process while the test sets up, and in the
    server's (forked after this, so it inherits the setting) when Alice's move reaches it."""
    from dominoes_site.celery import app

    settings.HOUSE_PLAYER_PACE_SECONDS = 0
    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


@pytest.fixture
def house_server(eager: None, live_server_url: str) -> str:
    return live_server_url


def shot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    screenshot(page, name, full_page=False)


class Listener:
    """Reads the announcements one line after another, as a screen reader says them."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.log = page.get_by_role("log", name="Announcements")
        self.lines = self.log.get_by_role("paragraph")
        self.heard: list[str] = []

    def next(self) -> str:
        line = self.lines.nth(len(self.heard))
        try:
            line.wait_for()
        except Exception as exc:  # say what was heard and where the game stands
            game = self.page.evaluate(
                "() => { const g = window.dominologistTable.state.game;"
                " return g && {phase: g.phase, to_act: g.to_act, version: g.version,"
                " legal: g.legal_actions, seq: window.dominologistTable.state.lastSeq}; }"
            )
            raise AssertionError(f"nothing more was said after {self.heard}; game {game}") from exc
        text = line.inner_text()
        self.heard.append(text)
        return text

    def type(self, words: str) -> str:
        """Type into the focused field and press Enter: what is said in answer."""
        field = self.page.get_by_label("Your move")
        expect(field).to_be_focused()
        self.page.keyboard.type(words)
        self.page.keyboard.press("Enter")
        return self.next()


def bones_in(text: str, pips: dict[str, int]) -> list[tuple[int, int]]:
    """The bones named in words in `text` ("five-three", "double six"), in order."""
    names = "|".join(pips)
    found = []
    for m in re.finditer(rf"(?:double|doble) ({names})|({names})-({names})", text):
        if m.group(1):
            found.append((pips[m.group(1)], pips[m.group(1)]))
        else:
            found.append((pips[m.group(2)], pips[m.group(3)]))
    return found


def fits(turn: str) -> list[tuple[tuple[int, int], list[str]]]:
    """What the turn's line says fits: each bone, with the ends it may go on."""
    listed = re.search(r"(?:Fits:|You may lead) (.*)\.$", turn)
    assert listed, turn
    out = []
    for item in listed.group(1).split("; "):
        bone = bones_in(item, PIPS)
        assert len(bone) == 1, item
        out.append((bone[0], [end for end in ENDS if re.search(rf"\b{end}\b", item)]))
    return out


def typed(bone: tuple[int, int], ends: list[str], rng: random.Random) -> str:
    """The move as a player might type it, in one of the ways the field understands."""
    a, b = bone
    end = rng.choice(ends) if ends else ""
    if len(ends) == 1 and rng.random() < 0.3:
        end = ""  # only one end fits: it may be left out
    style = rng.randrange(5)
    if style == 0:
        words = f"{a} {b} {end}"
    elif style == 1:
        words = f"{a}{b} {end[:1]}"
    elif style == 2:
        words = f"{b}-{a} on the {end} end" if end else f"{b}-{a}"
    elif style == 3 and a == b:
        words = f"double {a} {end}"
    else:
        words = f"{a}{b} spinner {end}" if end else f"{a}{b}"
    return words.strip()


def test_a_blind_player_plays_a_whole_game_by_ear_and_keyboard(
    house_server: str, new_page: Any, alice: Any
) -> None:
    url = house_server
    table = practice_start(user=alice, mode="citizen", level="rookie", players=2)
    page = new_page("phone")
    page.set_viewport_size({"width": 360, "height": 640})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    log_in(page, url, alice)
    page.goto(f"{url}/tables/{table.pk}/")

    # The mode is off until turned on; its button says so, and the move field is not there.
    toggle = page.get_by_role("button", name="Screen-reader mode")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    expect(page.get_by_label("Your move")).to_be_hidden()
    toggle.focus()
    page.keyboard.press("Enter")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    me = Listener(page)
    assert me.next().startswith("Screen-reader mode on.")

    # The page says whose turn it is; until it is Alice's, she listens.
    first = me.next()
    while "Your turn." not in first and "Your lead." not in first:
        first = me.next()

    # Reading the table: the hand, the ends, the board, the scores, the clock, the turn, help.
    hand = me.type("h")
    assert hand.startswith("Your hand, 7 bones: ") or hand.startswith("Your hand, "), hand
    held = bones_in(hand.split(".")[0], PIPS)
    assert len(held) >= 7
    ends = me.type("e")
    assert ends.startswith("Ends: ") or ends == "The board is empty.", ends
    board = me.type("b")
    assert board.startswith("The board, ") or board == "The board is empty.", board
    assert re.match(r"Scores: Alice \d+, Rookie \w+ \(house\) \d+\. Game to 150\.", me.type("s"))
    assert me.type("c") == "This table has no turn clock."
    assert me.type("t").startswith(("Your turn.", "Your lead."))
    assert me.type("?").startswith("Type a bone and an end")

    # Mistakes are said, and nothing is sent.
    assert me.type("xyz").startswith("I did not understand \u201cxyz\u201d")
    missing = next(
        (a, b) for a in range(7) for b in range(a + 1) if (a, b) not in held and (b, a) not in held
    )
    assert me.type(f"{missing[0]} {missing[1]}") == (f"You do not hold {bones_in_words(missing)}.")
    options = fits(first) if ("Fits:" in first or "You may lead" in first) else []
    if options:
        assert me.type("d") == "You cannot draw now."
    wrong = next(
        ((bone, end) for bone, ok in options for end in ENDS if ok and end not in ok), None
    )
    if wrong:
        said = me.type(f"{wrong[0][0]} {wrong[0][1]} {wrong[1]}")
        assert "does not fit" in said and "it fits" in said, said
    several = next((bone for bone, ok in options if len(ok) > 1), None)
    if several:
        said = me.type(f"{several[0]}{several[1]}")
        assert "say which" in said, said

    # Keys outside the field read too; m comes back to the field. The Keys dialog lists them.
    keys = page.get_by_role("button", name="Keys")
    keys.focus()
    page.keyboard.press("s")
    assert me.next().startswith("Scores: ")
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="Screen-reader mode: keys and commands")
    expect(dialog).to_be_visible()
    assert "Draw from the yard" in dialog.aria_snapshot()
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    page.keyboard.press("m")
    expect(page.get_by_label("Your move")).to_be_focused()

    shot(page, "reader-turn-360x640")
    page.set_viewport_size({"width": 1280, "height": 720})
    shot(page, "reader-turn-1280x720")
    page.set_viewport_size({"width": 360, "height": 640})

    # The whole game, by ear: each line is heard; on Alice's turn she types her move.
    rng = random.Random(7)
    field = page.get_by_label("Your move")
    turn = first
    moves = draws = 0
    while "Game over:" not in turn:
        assert len(me.heard) < 990, "the game went on too long"
        if "You were dealt five doubles" in turn:
            choose = page.get_by_role("dialog", name="Five doubles!")
            choose.get_by_role("button", name="Play for +100").focus()
            page.keyboard.press("Enter")
            expect(choose).to_be_hidden()
            field.focus()
            turn = me.next()
        elif "Your turn." in turn or "Your lead." in turn:
            if "type d to draw" in turn:
                turn = me.type("d")
                assert turn.startswith("You drew "), turn
                draws += 1
            elif "type p to pass" in turn:
                turn = me.type("p")
                assert turn.startswith("You passed."), turn
            else:
                bone, ends_ok = rng.choice(fits(turn))
                turn = me.type(typed(bone, ends_ok, rng))
                assert turn.startswith(("You played ", "You led ")), turn
                moves += 1
        else:
            turn = me.next()

    (SCREENSHOTS / "reader-heard.txt").write_text("\n".join(me.heard) + "\n")  # to read over
    assert moves > 10
    heard = " ".join(me.heard)
    assert "Final scores: " in turn
    assert "Rookie" in heard and " played " in heard  # the house's moves, in words
    assert re.search(r"scored \d+", heard)
    game_over = page.get_by_role("dialog", name="Game over")
    expect(game_over).to_be_visible()
    shot(page, "reader-game-over-360x640")
    assert errors == [], errors


def bones_in_words(bone: tuple[int, int]) -> str:
    words = {v: k for k, v in PIPS.items()}
    a, b = max(bone), min(bone)
    return f"double {words[a]}" if a == b else f"{words[a]}-{words[b]}"


def test_the_mode_speaks_spanish(house_server: str, new_page: Any, alice: Any) -> None:
    alice.language = "es"
    alice.save(update_fields=["language"])
    table = practice_start(user=alice, mode="citizen", level="rookie", players=2)
    page = new_page("desktop")
    log_in(page, house_server, alice)
    page.goto(f"{house_server}/tables/{table.pk}/")
    page.get_by_role("button", name="Modo lector de pantalla").click()
    log = page.get_by_role("log", name="Anuncios")
    lines = log.get_by_role("paragraph")
    expect(lines.first).to_contain_text("Modo lector de pantalla activado")
    expect(lines.nth(1)).to_contain_text(re.compile(r"Tu turno|Sales tú"))
    field = page.get_by_label("Tu jugada")
    field.fill("h")
    page.keyboard.press("Enter")
    expect(lines.nth(2)).to_contain_text("Tu mano, 7 fichas: ")
    assert bones_in(lines.nth(2).inner_text(), PIPS_ES)
    field.fill("xyz")
    page.keyboard.press("Enter")
    expect(lines.nth(3)).to_contain_text("No entendí")
    # A move with the end in Spanish ("5 3 izq"), when something fits on a named end.
    turn = lines.nth(1).inner_text()
    listed = re.search(r"Caben: (.*)\.$", turn)
    named = [item for item in (listed.group(1).split("; ") if listed else []) if ": " in item]
    if named:
        bone = bones_in(named[0], PIPS_ES)[0]
        end = named[0].split(": ")[1].split(" o ")[0]
        field.fill(f"{bone[0]} {bone[1]} {end[:3]}")
        page.keyboard.press("Enter")
        expect(lines.nth(4)).to_contain_text(re.compile(r"^Jugaste la "))


def test_the_clock_key_says_the_time_left_at_a_gym_table(
    house_server: str, new_page: Any, alice: Any
) -> None:
    """At a Citizen Gym table (a 60 s clock), c says whose clock runs and the seconds left on it,
    as the server's deadline has it: counting down, never past the table's 60 s."""
    table = practice_start(user=alice, mode="citizen_gym", level="rookie", players=2, clock=60)
    page = new_page("phone")
    page.set_viewport_size({"width": 360, "height": 640})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    log_in(page, house_server, alice)
    page.goto(f"{house_server}/tables/{table.pk}/")
    page.get_by_role("button", name="Screen-reader mode").click()
    me = Listener(page)
    assert me.next().startswith("Screen-reader mode on.")
    turn = me.next()
    chose = False
    while "Your turn." not in turn and "Your lead." not in turn:
        if "You were dealt five doubles" in turn:  # her choice first (a deal of about 1 in 260)
            chose = True
            choose = page.get_by_role("dialog", name="Five doubles!")
            choose.get_by_role("button", name="Play for +100").focus()
            page.keyboard.press("Enter")
            expect(choose).to_be_hidden()
        turn = me.next()
    # Alice's clock runs (the house moved at once): her turn, and a deadline from the server.
    page.wait_for_function(
        "() => { const g = window.dominologistTable.state.game;"
        " return g.to_act === 0 && g.clock && typeof g.clock.deadline === 'number'; }"
    )
    page.get_by_label("Your move").focus()
    said = me.type("c")
    first = re.fullmatch(r"You: (\d+) seconds left\.", said)
    assert first, said
    assert 1 <= int(first.group(1)) <= 60, said
    again = re.fullmatch(r"You: (\d+) seconds left\.", me.type("clock"))
    assert again and int(again.group(1)) <= int(first.group(1)), me.heard[-1]
    shot(page, "reader-gym-clock-360x640")
    # Alice halves her own clock on her turn (an arena's berserk): she hears it, and c counts
    # down from her own 30 s, the deadline having come forward. (Not after a doubles choice:
    # that was her first move.)
    if not chose:
        seat_clock_halve(table_id=table.pk, user=alice)
        assert me.next() == "Alice halved their own turn clock: 30 s a turn.", me.heard
        page.get_by_label("Your move").focus()
        halved = re.fullmatch(r"You: (\d+) seconds left\.", me.type("c"))
        assert halved and int(halved.group(1)) <= 30, me.heard[-1]
    assert errors == [], errors
