"""In the browser: a table socket closed for good (4001, 4003, 4004, 4008) says why and stays
closed; the page does not keep reconnecting."""

from __future__ import annotations

import re
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
