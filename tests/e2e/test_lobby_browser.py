"""In a real browser: the home page and the lobby on a phone (portrait and landscape) and a
desktop, the create form offering only what the mode allows, and "Sit" seating at once."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from house import services as house
from tables import services
from tables.models import Seat
from tests.e2e.conftest import log_in, screenshot

SIZES = {"phone": (360, 640), "landscape": (812, 375), "desktop": (1440, 900)}


@pytest.fixture
def page_at(browser: Any) -> Iterator[Callable[[str], Any]]:
    contexts: list[Any] = []

    def make(size: str) -> Any:
        width, height = SIZES[size]
        context = browser.new_context(viewport={"width": width, "height": height})
        context.set_default_timeout(30_000)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def busy_house(alice: Any, bob: Any, make_user: Any) -> dict[str, Any]:
    """A lobby with tables to scroll past, and games Alice is in."""
    carol = make_user("Carol")
    tables = [
        services.table_create(host=bob, mode="citizen", players=3),
        services.table_create(host=carol, mode="fives", limit=250),
        services.table_create(host=bob, mode="inmate_gym", players=4, partners=True),
        services.table_create(host=carol, mode="threes"),
        services.table_create(host=alice, mode="citizen_gym", players=2),
    ]
    services.seat_take(table_id=tables[0].pk, user=carol, number=1)
    services.seat_take(table_id=tables[0].pk, user=alice, number=2)
    practice = house.practice_start(user=alice, mode="citizen", level="shark", players=2)
    return {"tables": tables, "practice": practice, "carol": carol}


def no_sideways_scroll(page: Any) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"{width} px wide"


@pytest.mark.parametrize("size", list(SIZES))
def test_home_and_lobby_fit_every_screen(
    live_server_url: str, page_at: Any, alice: Any, busy_house: dict[str, Any], size: str
) -> None:
    page = page_at(size)
    log_in(page, live_server_url, alice)
    page.goto(live_server_url + "/")
    back = page.get_by_role("link", name="Return to the table")
    assert back.count() == 3  # two tables Alice sits at, and her practice game
    assert page.get_by_role("link", name="Play", exact=True).is_visible()
    no_sideways_scroll(page)
    screenshot(page, f"home-signed-in-{size}")

    page.goto(live_server_url + "/lobby/")
    page.wait_for_function("document.body.dataset.createFormReady === 'true'")
    no_sideways_scroll(page)
    screenshot(page, f"lobby-{size}")
    own = page.locator(f'[data-table="{busy_house["tables"][4].pk}"]')
    assert own.get_by_role("link", name="Your table").is_visible()
    assert own.get_by_role("button").count() == 0  # no "Sit" at her own table
    if size != "desktop":
        # Practice and Create a table are a tap away, not below every table
        jump = page.get_by_role("navigation", name="In the lobby")
        box = jump.bounding_box()
        assert box and box["y"] + box["height"] <= SIZES[size][1] + 200
        jump.get_by_role("link", name="Create a table").click()
        page.wait_for_url("**/lobby/#create")
        heading = page.get_by_role("heading", name="Create a table")
        top = heading.bounding_box()
        assert top and 0 <= top["y"] < SIZES[size][1]
        screenshot(page, f"lobby-create-{size}")


def test_the_create_form_offers_only_what_the_mode_allows(
    live_server_url: str, page_at: Any, alice: Any
) -> None:
    page = page_at("desktop")
    log_in(page, live_server_url, alice)
    page.goto(live_server_url + "/lobby/")
    page.wait_for_function("document.body.dataset.createFormReady === 'true'")
    form = page.locator("#create-table")
    house_rules = form.locator('[data-rules-for="house"]')
    head_to_head = form.locator('[data-rules-for="head_to_head"]')
    gym = form.locator('[data-rules-for="gym"]')
    shape = form.locator("#id_shape")

    form.locator("#id_mode").select_option("fives")
    assert head_to_head.is_visible() and not house_rules.is_visible() and not gym.is_visible()
    assert shape.input_value() == "one_on_one"
    disabled = shape.locator("option:disabled").evaluate_all("os => os.map(o => o.value)")
    assert sorted(disabled) == ["cut_throat_3", "cut_throat_4", "partners"]

    form.locator("#id_mode").select_option("inmate")
    assert house_rules.is_visible() and not head_to_head.is_visible()
    assert shape.locator("option:disabled").count() == 0
    get_on = form.locator("#id_get_on")
    assert get_on.locator('option[value="0"]').is_disabled()
    assert get_on.locator('option[value=""]').inner_text() == "The mode's default (15)"
    shape.select_option("partners")
    assert form.locator('#id_deal option[value="9"]').is_disabled()
    assert form.locator('[data-field="on_leave"]').is_visible()

    form.locator("#id_mode").select_option("citizen_gym")
    shape.select_option("one_on_one")
    assert gym.is_visible() and not form.locator('[data-field="on_leave"]').is_visible()
    clock = form.locator("#id_clock")
    clock.fill("12")
    form.locator("#id_clock_off").check()
    assert clock.is_disabled() and clock.input_value() == ""
    form.locator("#id_clock_off").uncheck()
    assert clock.is_enabled()
    screenshot(page, "lobby-create-gym-desktop")
    form.locator("#id_clock_off").check()
    form.get_by_role("button", name="Open the table").click()
    page.wait_for_url("**/tables/*/")
    table = alice.hosted_tables.get()
    assert table.mode == "citizen_gym" and table.settings["clock"] is None


def test_sit_in_the_lobby_seats_at_once(
    live_server_url: str, page_at: Any, alice: Any, bob: Any
) -> None:
    table = services.table_create(host=alice, mode="citizen", players=2)
    page = page_at("phone")
    log_in(page, live_server_url, bob)
    page.goto(live_server_url + "/lobby/")
    row = page.locator(f'[data-table="{table.pk}"]')
    row.get_by_role("button", name="Sit (1 seat free)").click()
    page.wait_for_url(f"**/tables/{table.pk}/")
    assert Seat.objects.get(table=table, number=1).user == bob


def test_the_lobby_writes_watcher_counts_in_place(
    live_server_url: str, page_at: Any, alice: Any, bob: Any, make_user: Any
) -> None:
    """A watcher arriving at a game changes its count in the lobby's row, with no fetch of the
    list (docs/protocol.md, "The lobby socket"), in the page's language."""
    from playwright.sync_api import expect

    carol, dave = make_user("Carol"), make_user("Dave")
    table = services.table_create(host=bob, mode="citizen", players=2)
    services.seat_take(table_id=table.pk, user=carol, number=1)
    for user in (bob, carol):
        services.seat_ready(table_id=table.pk, user=user, ready=True)
    from django.conf import settings

    lobby = page_at("phone")
    log_in(lobby, live_server_url, alice)
    lobby.context.add_cookies(
        [{"name": settings.LANGUAGE_COOKIE_NAME, "value": "es", "url": live_server_url}]
    )
    lobby.goto(live_server_url + "/lobby/")
    lobby.wait_for_function("() => window.lobbyReady === true")
    chip = lobby.locator(f'[data-watchers="{table.pk}"]')
    expect(chip).to_have_text("0 mirando")
    fetched = lobby.evaluate("document.body.dataset.lobbyRefreshed || ''")

    watcher = page_at("desktop")
    log_in(watcher, live_server_url, dave)
    watcher.goto(f"{live_server_url}/tables/{table.pk}/")
    expect(chip).to_have_text("1 mirando")
    assert lobby.evaluate("document.body.dataset.lobbyRefreshed || ''") == fetched
    screenshot(lobby, "lobby-watchers-es-phone")
    watcher.close()
    expect(chip).to_have_text("0 mirando")
