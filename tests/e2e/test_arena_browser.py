"""In a real browser: an arena from join to prizes. Two players, one on a phone and one at a
desk, join a paid arena from its page (one by mouse, one by keyboard); the sweep, driven here
with a chosen clock, starts it and pairs them; each follows the link the page gives to their
table, presses Ready and plays the game out by clicking. Back on the event page (and on the
organizer's, open all along), a standings frame arrives: the winner leads with 2 points and a
run of one win, and each player's own panel follows. The loser pauses and comes back; the
arena ends and pays its prizes once, by the standings, which the page shows. At a Gym arena on
the clock, the panel offers berserk once the game is on, and a player berserks by keyboard. No
page scrolls sideways at either size, and the page reads in Spanish. Screenshots of each stage
go to var/screenshots/."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

from tables import services as tables
from tables.fairdeal import commitment_of
from tables.models import Game, Hand
from tests.e2e.conftest import WIDTHS, log_in, screenshot
from tests.e2e.test_axe_browser import AXE, check, report
from tests.tournaments.conftest import event_settings, quick_user
from tests.tournaments.test_money import dollars, give
from tournaments import arenas, services
from tournaments.models import ORGANIZERS_GROUP, Entry, Match, Tournament

MS = Match.Status
#: Hand 1's deal at the arena table: a fixed server seed, and both seats' washes made here
#: before the pages can make theirs (the first wash counts), so it deals the same every run.
SEED = "5e" * 32
WASHES = ("a1" * 32, "b2" * 32)
TWO_FRAMES = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"
#: The page is watching its event on the notices socket (static/js/tournament.js).
WATCHING = "() => window.tournamentReady === true"
#: The last standings frame the page drew (0: none yet).
FRAME_SEQ = "Number(document.body.dataset.arenaSeq || 0)"


def organizer() -> Any:
    user = quick_user("Olga")
    user.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    return user


def make_arena(by: Any, **overrides: Any) -> Tournament:
    """An arena of 30 minutes starting in 3, registration open now: Fives to 50 (the shortest
    game a table plays), $10 to enter, 70% and 30% of the pool to the first two."""
    now = timezone.now()
    data = event_settings(
        now,
        name="Lunchtime Arena",
        format="arena",
        arena_minutes=30,
        max_entrants=20,
        table_options={"players": 2, "limit": 50},
        fee_kind="dollars",
        fee_dollars=10,
        prize_split=[70, 30],
        registration_closes=now + dt.timedelta(minutes=2),
        starts_at=now + dt.timedelta(minutes=3),
    )
    data.update(overrides)
    tournament = services.tournament_create(organizer=by, **data)
    tournament = services.tournament_publish(tournament_id=tournament.pk, by=by)
    services.tournament_sweep(now=now)  # registration opens
    tournament.refresh_from_db()
    return tournament


def beat(now: dt.datetime, page: Any, until: str) -> None:
    """The sweep, as the beat runs it every few seconds, until `page` shows what it should
    (`until`: a function for the page). A standings frame goes out at most once a second; a
    change inside that second goes out with the next sweep."""
    from playwright.sync_api import TimeoutError as Timeout

    for _ in range(30):
        services.tournament_sweep(now=now)
        try:
            page.wait_for_function(until, timeout=1500)
            return
        except Timeout:
            continue
    raise AssertionError(f"the page never showed {until}")


def no_sideways_scroll(page: Any, what: str, found: list[str]) -> None:
    """At each size, nothing wider than the screen (noted in `found`); back to the page's own
    size after."""
    own = page.viewport_size
    for size, (width, height) in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate(TWO_FRAMES)  # the header re-fits on the next frame
        extra = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        if extra > 0:
            found.append(f"{what} scrolls sideways by {extra}px at the {size} size")
    page.set_viewport_size(own)
    page.evaluate(TWO_FRAMES)


def scroll_to(page: Any, selector: str) -> None:
    """Scroll the live part's `selector` into view in one call in the page: a frame may re-draw
    the live part at any moment, and a located element can be replaced before a second step
    (Playwright's own scroll) reaches it."""
    page.wait_for_function(
        """selector => {
            const found = document.querySelector(selector);
            if (!found) return false;
            found.scrollIntoView({block: "nearest"});
            return true;
        }""",
        arg=selector,
    )


def open_event(page: Any, url: str, tournament: Tournament) -> None:
    page.goto(f"{url}/tournaments/{tournament.pk}/")
    page.wait_for_function(WATCHING)


def join_by_keyboard(page: Any) -> None:
    """Tab through the page, as a keyboard user does, to the Register button; Enter."""
    for _ in range(120):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement && document.activeElement.id") == "register":
            break
    else:
        raise AssertionError("Tab never reached the Register button")
    page.keyboard.press("Enter")


def seed_first_hand(match: Match, players: list[Any]) -> None:
    game = Game.objects.get(table_id=match.table_id, number=1)
    Hand.objects.filter(game=game, number=1).update(
        server_seed=SEED, commitment=commitment_of(SEED)
    )
    for user, wash in zip(players, WASHES, strict=True):
        tables.hand_wash(table_id=match.table_id, user=user, hand=1, entropy=wash)


def game_of(page: Any) -> dict[str, Any]:
    return page.evaluate("() => window.dominologistTable.state.game")


def drawn_seq(page: Any) -> int:
    return int(page.evaluate("() => window.lastDrawnSeq ?? -1"))


def take_turn(page: Any) -> None:
    """Whatever this player's turn asks for, done with the page's own controls."""
    summary = page.locator("#hand-summary [data-summary-close]")
    if summary.is_visible():  # the last hand's summary, read: Continue
        summary.click()
    doubles = page.locator("#doubles-dialog [data-choice=play]")
    if doubles.is_visible():
        doubles.click()
        return
    playable = page.locator("#hand .hand-bone.playable")
    if playable.count():
        playable.first.click()
        lit = page.locator("#board .end-target.lit")
        if lit.count():  # the bone fits more than one end: the first lit one
            lit.first.click()
        return
    yard = page.locator("#yard-bones .yard-bone")
    if yard.count():
        yard.first.click()


def play_out(by_seat: dict[int, Any]) -> None:
    """Both players play their turns by clicking until the game is over: after each move,
    both pages have drawn it before the next."""
    first, second = by_seat[0], by_seat[1]
    for _ in range(400):
        state = game_of(first)
        if state["phase"] == "game_over":
            return
        before = drawn_seq(first)
        take_turn(by_seat[state["to_act"]])
        first.wait_for_function(f"(window.lastDrawnSeq ?? -1) > {before}")
        second.wait_for_function(f"(window.lastDrawnSeq ?? -1) >= {drawn_seq(first)}")
    raise AssertionError("the game did not end in 400 turns")


def row_texts(page: Any) -> list[list[str]]:
    """The standings as the page shows them, cell by cell."""
    return page.eval_on_selector_all(
        "#arena-rows tr", "rows => rows.map(r => [...r.cells].map(c => c.innerText.trim()))"
    )


def test_an_arena_from_join_to_prizes_in_two_browsers(
    live_server_url: str, new_page: Any, alice: Any, bob: Any
) -> None:
    url = live_server_url
    olga = organizer()
    for user in (alice, bob):
        give(user, 100)
    start = {user.pk: dollars(user) for user in (alice, bob)}
    tournament = make_arena(olga)
    errors: list[str] = []
    wide: list[str] = []
    found: dict[str, Any] = {}  # what axe-core finds
    phone = new_page("phone")  # Alice
    desk = new_page("desktop")  # Bob
    for page, user in ((phone, alice), (desk, bob)):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.add_init_script(path=str(AXE))
        log_in(page, url, user)
        open_event(page, url, tournament)

    # Both join from the event page: Alice taps Register, Bob tabs to it and presses Enter.
    assert phone.locator("#arena-rows").inner_text() == "Nobody has joined yet."
    phone.get_by_role("button", name="Join the arena").click()
    phone.wait_for_selector("#arena-players:text-is('1')")
    phone.wait_for_function(WATCHING)
    join_by_keyboard(desk)
    desk.wait_for_selector("#arena-players:text-is('2')")
    desk.wait_for_function(WATCHING)
    phone.wait_for_selector("#arena-players:text-is('2')")  # live, on the other page too
    assert [dollars(u) - start[u.pk] for u in (alice, bob)] == [-10, -10]  # the fees, held
    for page in (phone, desk):
        assert page.locator("#register").count() == 0
        assert page.locator("#me-title + p").inner_text().startswith("You are registered.")
    check(phone, "the arena before it starts, on a phone", found)
    screenshot(phone, "arena-before-phone")
    screenshot(desk, "arena-before-desktop")
    no_sideways_scroll(phone, "the arena's page before it starts", wide)

    # The organizer watches the standings at her desk (a page of her own: a tab in a player's
    # window would be a background tab, which the browser slows down).
    standings = new_page("desktop")
    standings.on("pageerror", lambda exc: errors.append(str(exc)))
    standings.add_init_script(path=str(AXE))
    log_in(standings, url, olga)
    open_event(standings, url, tournament)

    # The arena starts; the first wave pairs them; their table opens, and the page says so.
    services.tournament_sweep(now=tournament.starts_at)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    (match,) = tournament.matches.select_related("entry_a__player", "entry_b__player")
    assert match.status == MS.WAITING and match.table_id is not None
    seed_first_hand(match, [match.entry_a.player, match.entry_b.player])  # type: ignore[union-attr]
    for page in (phone, desk):
        page.locator("#arena-game").wait_for()
        page.locator("#go-to-table").wait_for()
        assert "Your table is ready." in page.locator("#arena-me").inner_text()
        assert [row[1] for row in row_texts(page)] == ["Alice", "Bob"]  # who joined first
    screenshot(phone, "arena-running-phone")
    screenshot(desk, "arena-running-desktop")
    scroll_to(desk, "#arena-me")
    screenshot(desk, "arena-me-game-desktop", full_page=False)

    # Each goes to their table: Alice by her arena panel's link, Bob by the page's notice.
    phone.locator("#arena-game").click()
    desk.locator("#go-to-table").click()
    for page in (phone, desk):
        page.wait_for_url(f"**/tables/{match.table_id}/**")
        page.wait_for_function("window.wsReady === true")
    for page in (phone, desk):
        page.locator(".seat.me").get_by_role("button", name="Ready", exact=True).click()
    for page in (phone, desk):
        page.wait_for_function(
            "window.dominologistTable.state.game"
            " && window.dominologistTable.state.game.phase !== 'awaiting_deal'"
        )
    # The beat, meanwhile: the game is on, and the standings offer it to watch.
    beat(
        tournament.starts_at + dt.timedelta(minutes=1),
        standings,
        "() => !document.getElementById('arena-watch').hidden",
    )
    match.refresh_from_db()
    assert match.status == MS.PLAYING
    watch = standings.locator("#arena-watch a")
    assert watch.get_attribute("href") == (
        f"/tables/{match.table_id}/?code={match.table.invite_code}"  # type: ignore[union-attr]
    )
    check(standings, "the running arena, to its organizer", found)
    screenshot(standings, "arena-live-game-desktop")
    game = Game.objects.get(table_id=match.table_id, number=1)
    seats = {i: (alice if pk == alice.pk else bob) for i, pk in enumerate(game.players)}
    play_out({i: (phone if user == alice else desk) for i, user in seats.items()})
    for page in (phone, desk):
        page.wait_for_selector("#game-over-dialog[open]")
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    winner = seats[int(game.result["winner"])]
    loser = bob if winner == alice else alice
    pages = {alice.pk: phone, bob.pk: desk}

    # The players go back to the event page; the beat counts the game; a standings frame
    # draws it everywhere, and each player's own panel follows.
    for page in (phone, desk):
        open_event(page, url, tournament)
    seen = {id(page): page.evaluate(FRAME_SEQ) for page in (phone, desk, standings)}
    scored = "() => document.querySelector('#arena-rows tr td:nth-child(3)')?.textContent === '2'"
    beat(tournament.starts_at + dt.timedelta(minutes=4), standings, scored)
    match.refresh_from_db()
    assert match.status == MS.DONE and match.winner.player_id == winner.pk  # type: ignore[union-attr]
    for page in (phone, desk, standings):
        page.wait_for_function(f"() => {FRAME_SEQ} > {seen[id(page)]}")  # a frame came
        page.wait_for_function(scored)
        # Place, player, points, streak, games, performance, recent results (with points).
        assert row_texts(page) == [
            ["1", winner.display_name, "2", "1", "1", "1900", "W2"],
            ["2", loser.display_name, "0", "0", "1", "1100", "L0"],
        ]
    top = pages[winner.pk]
    top.wait_for_selector("#arena-me:has-text('Your place: 1, with 2 points.')")
    assert top.locator("#arena-streak").inner_text() == (
        "Wins in a row: 1. Two in a row put you on fire: each win after that scores 4."
    )
    assert top.locator("#arena-game").count() == 0 and top.locator("#go-to-table").count() == 0
    bottom = pages[loser.pk]
    bottom.wait_for_selector("#arena-me:has-text('Your place: 2, with 0 points.')")
    assert bottom.locator("#arena-streak").count() == 0
    assert "Waiting for your next game" in bottom.locator("#arena-me").inner_text()
    check(phone, "the standings drawn by a frame, on a phone", found)
    check(desk, "the standings drawn by a frame, at a desk", found)
    screenshot(phone, "arena-scored-phone")
    screenshot(desk, "arena-scored-desktop")
    for page in (phone, desk):
        scroll_to(page, "#arena")
    screenshot(phone, "arena-standings-phone", full_page=False)
    scroll_to(top, "#arena-me")
    screenshot(top, "arena-me-winner", full_page=False)
    no_sideways_scroll(desk, "the running arena's page", wide)

    # The loser takes a break (the standings say so), and comes back.
    bottom.locator("#arena-pause").click()
    bottom.locator("#arena-back").wait_for()
    assert Entry.objects.get(tournament=tournament, player=loser).paused
    beat(
        tournament.starts_at + dt.timedelta(minutes=5),
        standings,
        "() => !!document.querySelector('#arena-rows tr.paused')",
    )
    assert "paused" in row_texts(standings)[1][1]
    scroll_to(bottom, "#arena-me")
    screenshot(bottom, "arena-me-paused", full_page=False)
    screenshot(standings, "arena-paused-row-desktop")
    bottom.locator("#arena-back").click()
    bottom.locator("#arena-pause").wait_for()
    assert not Entry.objects.get(tournament=tournament, player=loser).paused

    # The end: the clock goes past it; the placings, and the prizes, paid once.
    services.tournament_sweep(now=arenas.ends_at(tournament) + dt.timedelta(seconds=1))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    entry_of = dict(tournament.entries.values_list("player_id", "pk"))
    assert tournament.placings == [[entry_of[winner.pk]], [entry_of[loser.pk]]]
    assert tournament.prizes == {
        str(entry_of[winner.pk]): {"dollars": 14},
        str(entry_of[loser.pk]): {"dollars": 6},
    }
    paid = (dollars(winner) - start[winner.pk], dollars(loser) - start[loser.pk])
    assert paid == (4, -4)  # 14 - 10 and 6 - 10
    services.tournament_sweep(now=arenas.ends_at(tournament) + dt.timedelta(minutes=5))
    assert services._finish(tournament, arenas.ends_at(tournament)) == 0
    assert (dollars(winner) - start[winner.pk], dollars(loser) - start[loser.pk]) == paid
    for page in (phone, desk, standings):
        page.locator("#placings-title").wait_for()
        places = page.locator(".t-placing-list li")
        assert places.count() == 2
        assert places.nth(0).inner_text() == f"1 {winner.display_name} 14 Dollars"
        assert places.nth(1).inner_text() == f"2 {loser.display_name} 6 Dollars"
        assert page.locator("#arena-me").count() == 0  # nothing left to do
    check(phone, "the finished arena, on a phone", found)
    screenshot(phone, "arena-ended-phone")
    screenshot(desk, "arena-ended-desktop")
    no_sideways_scroll(phone, "the finished arena's page", wide)

    # In Spanish.
    spanish = new_page("phone", locale="es-ES")
    spanish.on("pageerror", lambda exc: errors.append(str(exc)))
    spanish.context.add_cookies([{"name": "django_language", "value": "es", "url": url}])
    log_in(spanish, url, winner)
    open_event(spanish, url, tournament)
    assert spanish.locator("#arena-title").inner_text() == "Clasificación de la arena"
    assert spanish.locator("#placings-title").inner_text() == "Clasificación final"
    assert "14 dólares" in spanish.locator(".t-placing-list li").first.inner_text()
    screenshot(spanish, "arena-ended-phone-es")
    no_sideways_scroll(spanish, "the finished arena's page in Spanish", wide)
    assert wide == []
    assert found == {}, report(found)
    assert errors == []


def test_the_panel_offers_berserk_at_a_gym_arena_on_the_clock(
    live_server_url: str, new_page: Any, alice: Any, bob: Any
) -> None:
    url = live_server_url
    tournament = make_arena(
        organizer(),
        name="Gym Arena",
        mode="citizen_gym",
        table_options={"players": 2, "clock": 20},
        fee_kind="free",
        fee_dollars=0,
        prize_split=[100],
    )
    for user in (alice, bob):
        services.entry_register(tournament_id=tournament.pk, user=user)
    services.tournament_sweep(now=tournament.starts_at)
    (match,) = tournament.matches.all()
    assert match.status == MS.WAITING
    errors: list[str] = []
    pages = {}
    for size in ("phone", "desktop"):
        page = pages[size] = new_page(size)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        log_in(page, url, alice)
        open_event(page, url, tournament)
    # The table waits for Ready: no game to berserk yet (the site would refuse it), and the
    # panel says when it can be done.
    with pytest.raises(services.TournamentError) as refused:
        arenas.arena_berserk(tournament_id=tournament.pk, user=alice)
    assert refused.value.code == "no_game"
    panel = pages["phone"].locator("#arena-me")
    assert panel.locator("#berserk").count() == 0
    assert panel.locator("#berserk-later").inner_text() == (
        "Once you have both pressed Ready, you can berserk here, before your first move."
    )
    scroll_to(pages["phone"], "#arena-me")
    screenshot(pages["phone"], "arena-me-berserk-waiting-phone", full_page=False)

    # The game is on (both pressed Ready; the beat saw it): the panel offers berserk.
    for user in (alice, bob):
        tables.seat_ready(table_id=match.table_id, user=user, ready=True)  # type: ignore[arg-type]
    services.tournament_sweep(now=tournament.starts_at + dt.timedelta(seconds=30))
    match.refresh_from_db()
    assert match.status == MS.PLAYING
    for size, page in pages.items():
        open_event(page, url, tournament)
        panel = page.locator("#arena-me")
        assert "Your game is on." in panel.inner_text()
        assert panel.get_by_role("button", name="Berserk").is_visible()
        assert "your own turn clock drops to 10 s, and a win scores 1 point more" in (
            panel.inner_text()
        )
        scroll_to(page, "#arena-me")
        screenshot(page, f"arena-me-berserk-{size}", full_page=False)
    # Alice berserks, by keyboard.
    page = pages["desktop"]
    page.locator("#berserk").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#arena-me:has-text('You berserked this game')")
    assert page.locator("#berserk").count() == 0
    match.refresh_from_db()
    entry = Entry.objects.get(tournament=tournament, player=alice)
    assert match.berserk == [entry.pk]
    game = Game.objects.get(table_id=match.table_id, number=1)
    assert game.seat_clocks == {str(game.players.index(alice.pk)): 10}
    scroll_to(page, "#arena-me")
    screenshot(page, "arena-me-berserked-desktop", full_page=False)

    # Bob berserks at the table itself, with its own button (a confirmation first).
    table = new_page("phone")
    table.on("pageerror", lambda exc: errors.append(str(exc)))
    log_in(table, url, bob)
    table.goto(f"{url}/tables/{match.table_id}/?code={match.table.invite_code}")
    table.wait_for_function("() => window.wsReady === true")
    button = table.locator("[data-berserk]")
    button.wait_for()
    screenshot(table, "arena-table-berserk-phone", full_page=False)
    table.once("dialog", lambda dialog: dialog.accept())
    button.click()
    button.wait_for(state="detached")  # the clock is halved: the button goes
    game.refresh_from_db()
    assert game.seat_clocks == {
        str(game.players.index(alice.pk)): 10,
        str(game.players.index(bob.pk)): 10,
    }
    both = Entry.objects.filter(tournament=tournament).values_list("pk", flat=True)
    match.refresh_from_db()  # (the hook ran after the commit, before the page heard of it)
    assert sorted(match.berserk) == sorted(both)
    assert errors == []


def test_a_club_battle_shows_its_clubs_live(live_server_url: str, new_page: Any) -> None:
    """A battle of two clubs: the event's page lists the clubs; when a game ends, the next
    standings frame redraws the clubs' table (the winner's club ahead, by its best player's
    points), at both sizes. Otto is a bot (the organizer welcomes bots): marked BOT in the
    standings as the page renders them and as a frame redraws them."""
    import random

    from api.bots import bot_upgrade
    from clubs import services as club_services
    from tests.tournaments.conftest import play_game, press_ready

    url = live_server_url
    lena, marta, nico, otto, viewer = (
        quick_user(n) for n in ("Lena", "Marta", "Nico", "Otto", "Vera")
    )
    a = club_services.club_found(user=lena, name="Los Tranques", policy="open")
    club_services.club_join(club_id=a.pk, user=marta)
    b = club_services.club_found(user=nico, name="Las Fichas", policy="open")
    club_services.club_join(club_id=b.pk, user=otto)
    otto = bot_upgrade(otto)
    now = timezone.now()
    data = event_settings(
        now,
        name="Club Night Battle",
        format="arena",
        arena_minutes=30,
        max_entrants=100,
        starts_at=now + dt.timedelta(minutes=20),
        bots_welcome=True,
    )
    boss = organizer()
    tournament = services.tournament_create(
        organizer=boss, battle_clubs=[a, b], battle_top=1, **data
    )
    tournament = services.tournament_publish(tournament_id=tournament.pk, by=boss)
    for user in (lena, marta, nico, otto):
        services.entry_register(tournament_id=tournament.pk, user=user)
    services.tournament_sweep(now=tournament.starts_at)
    page = new_page("desktop")
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    log_in(page, url, viewer)
    open_event(page, url, tournament)
    clubs = page.locator("#arena-clubs tr")
    assert clubs.count() == 2
    assert "Los Tranques" in page.locator("#arena-clubs").inner_text()
    marked = page.locator("#arena-rows tr", has=page.locator(".badge-bot"))
    assert marked.count() == 1 and "Otto" in marked.inner_text()  # as rendered

    match = tournament.matches.filter(status=MS.WAITING).first()
    assert match is not None
    press_ready(match)
    game = play_game(match.table_id, random.Random(5))  # type: ignore[arg-type]
    assert game.status == "finished"
    beat(
        tournament.starts_at + dt.timedelta(minutes=3),
        page,
        "() => (document.querySelector('#arena-clubs tr td.num') || {}).textContent === '2'",
    )
    match.refresh_from_db()  # the sweep recorded the result
    winner = Entry.objects.select_related("club", "player").get(pk=match.winner_id)
    first = page.locator("#arena-clubs tr").first.inner_text()
    assert winner.club is not None and winner.club.name in first
    assert winner.player.display_name in first and "(2)" in first
    assert marked.count() == 1 and "Otto" in marked.inner_text()  # as a frame drew them
    assert page.locator("#arena-rows .badge-bot [aria-hidden]").inner_text() == "BOT"
    wide: list[str] = []
    for size in ("phone", "desktop"):
        page.set_viewport_size({"width": WIDTHS[size][0], "height": WIDTHS[size][1]})
        no_sideways_scroll(page, f"the battle at the {size} size", wide)
        scroll_to(page, "#arena-clubs")
        screenshot(page, f"arena-battle-{size}", full_page=False)
    assert wide == []
    assert errors == []
