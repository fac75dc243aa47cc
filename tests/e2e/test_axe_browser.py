"""axe-core in Chromium: no accessibility violation on any page of the site, signed out and signed
in, in English (on a desktop and a phone) and in Spanish (the same pages): the password reset
pages, the challenge form, the Watch page, My games, closing an account; the table page open,
while a game is played (in the screen-reader mode too, with its Keys dialog open), with a hand's
summary and with its game-over dialog; and the Play now card that tells a player on another page
that a table is ready.

axe-core is vendored in tests/e2e/vendor/ (CI reaches no site but the package registries). It is
added to each page as an init script, which the page's Content-Security-Policy does not apply to.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import Group
from django.utils import timezone

from engine import GameState
from tests.e2e.conftest import log_in, screenshot

AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
#: What axe found, in full, for reading after a failure (one file per language).
REPORT = Path(__file__).resolve().parents[2] / "var" / "axe-report-{}.json"

#: Every rule axe runs by default (WCAG 2.0, 2.1 and 2.2 A and AA, and its best practices).
RUN = """async () => {
  const result = await window.axe.run(document, {resultTypes: ["violations"]});
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 5).map((n) => ({target: n.target.join(" "), html: n.html.slice(0, 160),
                                             why: n.failureSummary})),
  }));
}"""


def axe_page(new_page: Any, width: str = "desktop", spanish_at: str = "") -> tuple[Any, list[str]]:
    """A page with axe in it; in Spanish at the site `spanish_at` (the language cookie)."""
    page = new_page(width)
    page.add_init_script(path=str(AXE))
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    if spanish_at:
        page.context.add_cookies(
            [{"name": settings.LANGUAGE_COOKIE_NAME, "value": "es", "url": spanish_at}]
        )
    return page, errors


def check(page: Any, where: str, found: dict[str, Any]) -> None:
    """Run axe on the page as it is now; what it finds is kept under `where`."""
    page.wait_for_function("() => !!window.axe")
    violations = page.evaluate(RUN)
    if violations:
        found[where] = violations


def report(found: dict[str, Any]) -> str:
    return json.dumps(found, indent=1, ensure_ascii=False)


def finish(found: dict[str, Any], name: str) -> None:
    path = Path(str(REPORT).format(name))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(report(found))
    assert found == {}, report(found)


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


@dataclass
class Site:
    """What the pages show: games, tables, a tournament, a challenge, a reset link."""

    url: str
    alice: Any
    bob: Any
    game: Any
    finished: Any
    open_table: Any
    practice: Any
    event: Any
    series: Any
    challenge: Any
    reset_key: str
    #: A club Alice leads, by request: a member, and Bob asking to join.
    club: Any = None
    #: The club's own event, Flo in it, with a message from Alice.
    club_event: Any = None


def site(url: str, alice: Any, bob: Any, warden: Any, make_user: Any) -> Site:
    from allauth.account.forms import default_token_generator
    from allauth.account.utils import user_pk_to_url_str

    from clubs import services as club_services
    from house.services import practice_start
    from social import services as social
    from tables import services as tables
    from tests.history.helpers import play, start_table
    from tests.social.test_watch import play_now_table
    from tests.tournaments.conftest import make_event
    from tests.tournaments.test_series import series_data
    from tournaments.models import ORGANIZERS_GROUP
    from tournaments.series import series_create

    finished = start_table([alice, bob], "fives", limit=50)
    game = play(finished, [alice, bob], seed=3)
    open_table = tables.table_create(host=alice, mode="fives")
    practice = practice_start(user=alice, mode="citizen", level="rookie", players=2)
    _to_my_turn(practice, alice)
    warden.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    event = make_event(warden, starts_at=timezone.now() + dt.timedelta(hours=2))
    series = series_create(organizer=warden, **series_data())
    # A live game for the Watch page; a challenge Alice sent, waiting for its answer.
    play_now_table([make_user("Cy"), make_user("Di")])
    challenge = social.challenge_send(
        challenger=alice,
        challenged=make_user("Eve"),
        mode="citizen",
        options={"players": 2, "partners": False, "deal": 7, "target": 150},
    )
    # A password reset link, as the e-mail gives it (the server shares the secret key).
    reset_key = f"{user_pk_to_url_str(alice)}-{default_token_generator.make_token(alice)}"
    flo = make_user("Flo")
    club = club_services.club_found(user=alice, name="Los Tranques", policy="request")
    club_services.club_join(club_id=club.pk, user=flo)
    club_services.membership_approve(club_id=club.pk, member_id=flo.pk, by=alice)
    club_services.club_join(club_id=club.pk, user=bob)
    made = Site(
        url, alice, bob, game, finished, open_table, practice, event, series, challenge, reset_key
    )
    made.club = club
    # The club's own event, with a message to its players (its page and its manage page).
    from tests.tournaments.conftest import event_settings
    from tournaments import organizer as event_tools
    from tournaments import services as tournament_services

    club_event = tournament_services.tournament_create(
        organizer=alice, club=club, **event_settings(name="Tranques Friday")
    )
    tournament_services.tournament_publish(tournament_id=club_event.pk, by=alice)
    tournament_services.entry_register(tournament_id=club_event.pk, user=flo)
    event_tools.entrants_message(tournament_id=club_event.pk, by=alice, text="We start at 20:15.")
    made.club_event = club_event
    return made


def signed_out(s: Site, page: Any, found: dict[str, Any], where: str) -> None:
    """Every page a visitor sees, the password reset ones too."""
    paths = [
        "/",
        "/rules/",
        "/accounts/signup/",
        "/accounts/login/",
        "/leaderboards/",
        "/accounts/password/reset/",
        "/accounts/password/reset/done/",
        f"/accounts/password/reset/key/{s.reset_key}/",  # the new password's form
        "/accounts/password/reset/key/0-nonsense/",  # "This link does not work"
        "/accounts/password/reset/key/done/",
    ]
    for path in paths:
        page.goto(s.url + path)
        if path.endswith(f"{s.reset_key}/"):  # the key was good: the form is there
            page.locator("input[name=password1]").wait_for()
        check(page, f"{where} {path}", found)
    # The reset form sent empty: its errors are read too.
    page.goto(s.url + "/accounts/password/reset/")
    page.locator("#reset-form [type=submit]").click()
    page.locator("#reset-form .errorlist").wait_for()
    check(page, f"{where} /accounts/password/reset/ sent empty", found)


def signed_in(s: Site, page: Any, found: dict[str, Any], where: str) -> None:
    """Every page of a player's, then the table page in each of its states."""
    url, bob = s.url, s.bob
    pages = [
        "/",
        "/lobby/",
        "/rules/",
        "/my-games/",
        "/watch/",
        "/profile/",
        f"/players/{bob.pk}/",
        "/profile/edit/",
        "/profile/close/",
        "/accounts/email/",
        "/accounts/password/change/",
        f"/games/{s.game.pk}/",
        "/tournaments/",
        f"/tournaments/{s.event.pk}/",
        "/series/",
        f"/series/{s.series.pk}/",
        "/clubs/",
        f"/clubs/{s.club.slug}/",
        f"/clubs/{s.club.slug}/edit/",
        f"/tournaments/{s.club_event.pk}/",
        f"/tournaments/{s.club_event.pk}/manage/",
        f"/tournaments/new/?club={s.club.slug}",
        "/leaderboards/",
        "/leaderboards/fives/",
        "/locker/",
        "/commissary/",
        "/challenges/",
        "/challenges/settings/",
        f"/players/{bob.pk}/challenge/",
        f"/challenges/{s.challenge.pk}/",
        "/players/online/",
        "/players/friends/",
    ]
    for path in pages:
        page.goto(url + path)
        if path == "/lobby/":
            page.wait_for_function("() => window.lobbyReady === true")
        if path.startswith("/games/"):
            page.wait_for_selector("#replay[data-ready='true']")
        if path == "/watch/":  # the live game is listed
            page.locator(".watch-list .table-row").first.wait_for()
        check(page, f"{where} {path}", found)

    # The form to found a club, sent empty: its errors are read too.
    page.goto(url + "/clubs/")
    page.locator("#found summary").click()
    page.locator("#found [type=submit]").click()
    page.locator("#found .errorlist").first.wait_for()
    check(page, f"{where} /clubs/ founding refused", found)

    # Waiting in a quick-pairing pool ("Play now").
    page.goto(url + "/")
    page.locator(".play-cell").first.click()
    leave = page.locator("#pool-panel form[action$='/play/leave/'] button")
    leave.wait_for()
    check(page, f"{where} / waiting in a pool", found)
    leave.click()
    page.locator(".play-cell").first.wait_for()

    seated_card(s, page, found, where)

    # Tables: one waiting for players, one in play (Alice to move), a finished game.
    page.goto(f"{url}/tables/{s.open_table.pk}/")
    page.wait_for_function("() => window.wsReady === true")
    check(page, f"{where} table open", found)
    page.goto(f"{url}/tables/{s.practice.pk}/")
    page.wait_for_function("() => window.wsReady === true")
    page.wait_for_selector("#hand .hand-bone.playable")
    check(page, f"{where} table playing", found)
    page.locator("#reader-toggle").click()
    page.locator("#reader-log p").first.wait_for()
    check(page, f"{where} table playing, screen-reader mode", found)
    page.locator("#reader-help-open").click()
    page.wait_for_selector("#reader-help[open]")
    check(page, f"{where} table, the Keys dialog", found)
    page.keyboard.press("Escape")
    page.locator("#reader-toggle").click()
    hand_summary(s, page, found, where)
    page.goto(f"{url}/tables/{s.finished.pk}/")
    page.wait_for_function("() => window.wsReady === true")
    page.wait_for_selector("#game-over-dialog[open]")
    check(page, f"{where} table game over", found)


def seated_card(s: Site, page: Any, found: dict[str, Any], where: str) -> None:
    """Play now seats Alice while she reads another page: the card that tells her so."""
    from pairing import services as pairing
    from pairing.cells import cell_parse
    from tables import services as tables

    cell = cell_parse("citizen:1v1:0")
    pairing.pool_join(user=s.alice, cell=cell)
    page.goto(s.url + "/rules/")
    page.wait_for_function("() => window.noticesReady === true")
    pairing.pool_join(user=s.bob, cell=cell)
    card = page.locator("#notices [data-notice^='pairing-']")
    card.wait_for()
    card.locator("[data-go]").wait_for()
    check(page, f"{where} /rules/ with the Play now card", found)
    screenshot(page, f"axe-seated-card-{where}", full_page=False)
    table_id = int(card.get_attribute("data-notice").removeprefix("pairing-"))
    # The home page's Play now panel says so too, with a link to the table.
    page.goto(s.url + "/")
    page.locator("#play-now a[href$='/play/table/']").wait_for()
    check(page, f"{where} / seated by Play now", found)
    for user in (s.alice, s.bob):  # both leave, so that the next pass may be seated again
        tables.seat_leave(table_id=table_id, user=user)


def hand_summary(s: Site, page: Any, found: dict[str, Any], where: str) -> None:
    """A hand ends at a practice table with Alice's page open: its summary over the felt."""
    from house.services import practice_start
    from tests.e2e.test_table_layout_browser import live, move, players_of

    table = practice_start(user=s.alice, mode="fives", level="rookie", players=2)
    players = players_of(table)
    rng = random.Random(3)
    page.goto(f"{s.url}/tables/{table.pk}/")
    page.wait_for_function("() => window.wsReady === true")
    page.wait_for_selector("#hand .hand-bone")
    state = GameState.from_json(live(table).state)
    deal = state.deal_number
    while state.deal_number == deal and not state.is_over:
        state = move(table, players, rng)
    page.wait_for_selector("#hand-summary [data-summary-close]")
    check(page, f"{where} table, a hand's summary", found)


def test_axe_finds_nothing_on_the_main_pages(
    live_server_url: str, new_page: Any, alice: Any, bob: Any, warden: Any, make_user: Any
) -> None:
    s = site(live_server_url, alice, bob, warden, make_user)
    found: dict[str, Any] = {}

    page, errors = axe_page(new_page, "phone")
    signed_out(s, page, found, "phone signed out")
    assert errors == [], errors
    for width in ("desktop", "phone"):
        page, errors = axe_page(new_page, width)
        log_in(page, s.url, alice)
        signed_in(s, page, found, width)
        assert errors == [], errors
    finish(found, "en")


def test_axe_finds_nothing_on_the_same_pages_in_spanish(
    live_server_url: str, new_page: Any, alice: Any, bob: Any, warden: Any, make_user: Any
) -> None:
    s = site(live_server_url, alice, bob, warden, make_user)
    found: dict[str, Any] = {}

    page, errors = axe_page(new_page, "desktop", spanish_at=s.url)
    signed_out(s, page, found, "es signed out")
    assert page.locator("html").get_attribute("lang") == "es"
    assert errors == [], errors
    alice.language = "es"
    alice.save(update_fields=["language"])
    page, errors = axe_page(new_page, "desktop", spanish_at=s.url)
    log_in(page, s.url, alice)
    signed_in(s, page, found, "es")
    assert page.locator("html").get_attribute("lang") == "es"
    assert errors == [], errors
    finish(found, "es")
