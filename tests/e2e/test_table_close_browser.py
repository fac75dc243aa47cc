"""In the browser: a table socket closed for good (4001, 4003, 4004, 4008) says why and stays
closed; the page does not keep reconnecting. One closed for a server restart (1012) reconnects
at once, with no error and no back-off."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from tables import services
from tests.e2e.conftest import log_in


@pytest.mark.parametrize(
    ("code", "words"),
    [
        (4001, "Please log in"),
        (4003, "may not play"),
        (4004, "does not exist"),
        (4008, "too many messages"),  # once retried, as a lost connection, every few seconds
    ],
)
def test_a_socket_closed_for_good_says_why_and_is_not_retried(
    live_server_url: str, new_page: Any, alice: Any, code: int, words: str
) -> None:
    table = services.table_create(host=alice, mode="citizen", players=2)
    page = new_page("desktop")
    log_in(page, live_server_url, alice)
    opened: list[str] = []

    def server(socket: Any) -> None:  # stands in for the house: opens, then closes with `code`
        opened.append(socket.url)
        socket.close(code=code, reason="")

    page.route_web_socket(re.compile(r".*/ws/tables/\d+/$"), server)
    page.goto(f"{live_server_url}/tables/{table.pk}/")
    banner = page.locator("#conn-banner.error")
    banner.wait_for()
    assert words in banner.inner_text()
    assert banner.get_by_role("button").count() == 0  # no "Retry now": nothing to retry
    assert page.evaluate("window.dominologistTable.state.fatal") is True
    assert page.evaluate("window.dominologistTable.state.attempt") == 0  # no retry scheduled
    assert opened == [opened[0]]  # one socket, not a second


def test_a_restart_close_reconnects_at_once_quietly(
    live_server_url: str, new_page: Any, alice: Any
) -> None:
    table = services.table_create(host=alice, mode="citizen", players=2)
    page = new_page("desktop")
    log_in(page, live_server_url, alice)
    routes: list[Any] = []

    def server(socket: Any) -> None:  # the real house, behind a route the test can close
        routes.append(socket)
        socket.connect_to_server()

    page.route_web_socket(re.compile(r".*/ws/tables/\d+/$"), server)
    page.goto(f"{live_server_url}/tables/{table.pk}/")
    page.wait_for_function("window.wsReady === true")
    page.evaluate(
        """() => {
          window.bannerSeen = [];
          const banner = document.getElementById("conn-banner");
          const seen = () => window.bannerSeen.push(
            [banner.classList.contains("error"), banner.textContent]);
          new MutationObserver(seen).observe(
            banner, { subtree: true, childList: true, characterData: true, attributes: true });
        }"""
    )
    began = time.monotonic()
    routes[0].close(code=1012, reason="server restarting")
    page.wait_for_function("window.wsReady === false")
    page.wait_for_function("window.wsReady === true")
    took = time.monotonic() - began
    assert len(routes) == 2
    assert took < 2.5, took
    seen = page.evaluate("window.bannerSeen")
    assert not [s for s in seen if s[0]], seen  # never an error
    assert not [s for s in seen if "Reconnecting" in s[1]], seen  # never the back-off
    assert page.evaluate("window.dominologistTable.state.attempt") == 0


def test_staff_closing_the_table_is_written_in_the_move_list(
    live_server_url: str, new_page: Any, alice: Any, warden: Any
) -> None:
    """A void and a close made by staff reach the open page as lines in its move list."""
    from playwright.sync_api import expect

    table = services.table_create(host=alice, mode="citizen", players=2)
    page = new_page("desktop")
    log_in(page, live_server_url, alice)
    page.goto(f"{live_server_url}/tables/{table.pk}/")
    page.wait_for_function("() => window.wsReady === true")
    services.table_close(table_id=table.pk, by=warden, reason="stuck in testing")
    expect(page.locator("#move-log")).to_contain_text("Staff voided the game")
    expect(page.locator("#move-log")).to_contain_text("Staff closed this table.")
