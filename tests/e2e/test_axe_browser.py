"""axe-core in Chromium: no accessibility violation on any main page of the site, signed out and
signed in, in English and Spanish; the table page open, while a game is played (in the
screen-reader mode too, with its Keys dialog open) and with its game-over dialog.

axe-core is vendored in tests/e2e/vendor/ (CI reaches no site but the package registries). It is
added to each page as an init script, which the page's Content-Security-Policy does not apply to.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from pathlib import Path
from typing import Any

from django.contrib.auth.models import Group
from django.utils import timezone

from engine import GameState
from tests.e2e.conftest import log_in

AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
#: What axe found, in full, for reading after a failure.
REPORT = Path(__file__).resolve().parents[2] / "var" / "axe-report.json"

#: Every rule axe runs by default (WCAG 2.0, 2.1 and 2.2 A and AA, and its best practices).
RUN = """async () => {
  const result = await window.axe.run(document, {resultTypes: ["violations"]});
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 5).map((n) => ({target: n.target.join(" "), html: n.html.slice(0, 160),
                                             why: n.failureSummary})),
  }));
}"""


def axe_page(new_page: Any, width: str = "desktop") -> tuple[Any, list[str]]:
    page = new_page(width)
    page.add_init_script(path=str(AXE))
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return page, errors


def check(page: Any, where: str, found: dict[str, Any]) -> None:
    """Run axe on the page as it is now; what it finds is kept under `where`."""
    page.wait_for_function("() => !!window.axe")
    violations = page.evaluate(RUN)
    if violations:
        found[where] = violations


def report(found: dict[str, Any]) -> str:
    return json.dumps(found, indent=1, ensure_ascii=False)


def _to_my_turn(table: Any, user: Any) -> None:
    """Moves for everyone until the player in seat 0 is to play a bone (the house by hand)."""
    from tables import services
    from tables.models import Game

    players = [s.user for s in table.seats.select_related("user").order_by("number")]
    rng = random.Random(5)
    for _ in range(300):
        game = Game.objects.get(table=table)
        state = GameState.from_json(game.state)
        acts = state.legal_actions()
        playing = acts and acts[0].to_dict()["type"] == "play"
        if state.to_act == 0 and state.board.lead is not None and playing:
            return
        action = rng.choice(acts).to_dict()
        seat = action.pop("seat")
        services.game_act(
            table_id=table.pk, user=players[seat], version=game.version, action=action
        )
    raise AssertionError("never Alice's turn to play")


def test_axe_finds_nothing_on_the_main_pages(
    live_server_url: str, new_page: Any, alice: Any, bob: Any, warden: Any
) -> None:
    from house.services import practice_start
    from tables import services as tables
    from tests.history.helpers import play, start_table
    from tests.tournaments.conftest import make_event
    from tournaments.models import ORGANIZERS_GROUP

    url = live_server_url
    finished = start_table([alice, bob], "fives", limit=50)
    game = play(finished, [alice, bob], seed=3)
    open_table = tables.table_create(host=alice, mode="fives")
    practice = practice_start(user=alice, mode="citizen", level="rookie", players=2)
    _to_my_turn(practice, alice)
    warden.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    event = make_event(warden, starts_at=timezone.now() + dt.timedelta(hours=2))
    found: dict[str, Any] = {}

    # Signed out.
    page, errors = axe_page(new_page, "phone")
    for path in ("/", "/rules/", "/accounts/signup/", "/accounts/login/", "/leaderboards/"):
        page.goto(url + path)
        check(page, f"signed out {path}", found)

    # Signed in, on a desktop and on a phone.
    for width in ("desktop", "phone"):
        page, errors = axe_page(new_page, width)
        log_in(page, url, alice)
        pages = [
            "/",
            "/lobby/",
            "/rules/",
            "/profile/",
            f"/players/{bob.pk}/",
            "/profile/edit/",
            "/accounts/email/",
            "/accounts/password/change/",
            f"/games/{game.pk}/",
            "/tournaments/",
            f"/tournaments/{event.pk}/",
            "/leaderboards/",
            "/leaderboards/fives/",
            "/locker/",
            "/commissary/",
            "/challenges/",
            "/players/online/",
            "/players/friends/",
        ]
        for path in pages:
            page.goto(url + path)
            if path == "/lobby/":
                page.wait_for_function("() => window.lobbyReady === true")
            if path.startswith("/games/"):
                page.wait_for_selector("#replay[data-ready='true']")
            check(page, f"{width} {path}", found)

        # Waiting in a quick-pairing pool ("Play now").
        page.goto(url + "/")
        page.locator(".play-cell").first.click()
        leave = page.get_by_role("button", name="Leave the pool")
        leave.wait_for()
        check(page, f"{width} / waiting in a pool", found)
        leave.click()
        page.locator(".play-cell").first.wait_for()

        # Tables: one waiting for players, one in play (Alice to move), a finished game.
        page.goto(f"{url}/tables/{open_table.pk}/")
        page.wait_for_function("() => window.wsReady === true")
        check(page, f"{width} table open", found)
        page.goto(f"{url}/tables/{practice.pk}/")
        page.wait_for_function("() => window.wsReady === true")
        page.wait_for_selector("#hand .hand-bone.playable")
        check(page, f"{width} table playing", found)
        page.get_by_role("button", name="Screen-reader mode").click()
        page.get_by_role("log", name="Announcements").get_by_role("paragraph").first.wait_for()
        check(page, f"{width} table playing, screen-reader mode", found)
        page.get_by_role("button", name="Keys").click()
        page.get_by_role("dialog", name="Screen-reader mode: keys and commands").wait_for()
        check(page, f"{width} table, the Keys dialog", found)
        page.keyboard.press("Escape")
        page.get_by_role("button", name="Screen-reader mode").click()
        page.goto(f"{url}/tables/{finished.pk}/")
        page.wait_for_function("() => window.wsReady === true")
        page.wait_for_selector("#game-over-dialog[open]")
        check(page, f"{width} table game over", found)
        assert errors == [], errors

    # In Spanish.
    alice.language = "es"
    alice.save(update_fields=["language"])
    page, errors = axe_page(new_page, "desktop")
    log_in(page, url, alice)
    for path in ("/", "/lobby/", "/profile/", "/rules/"):
        page.goto(url + path)
        check(page, f"es {path}", found)
    page.goto(f"{url}/tables/{practice.pk}/")
    page.wait_for_function("() => window.wsReady === true")
    check(page, "es table playing", found)
    assert errors == [], errors
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(report(found))
    assert found == {}, report(found)
