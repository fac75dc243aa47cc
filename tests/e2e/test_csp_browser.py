"""The Content-Security-Policy in Chromium: every main page, the sockets and the admin's search
boxes work under it, and the browser reports no violation anywhere."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.auth.models import Group
from django.utils import timezone

from tests.e2e.conftest import log_in, screenshot

#: Collects what the browser refused (Playwright's init script is not itself subject to the page's
#: policy), so a test can read it back.
WATCH = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  const where = `${e.sourceFile}:${e.lineNumber}`;
  window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI} ${where}`);
});
"""


def watched(new_page: Any, width: str = "desktop") -> tuple[Any, list[str]]:
    page = new_page(width)
    page.add_init_script(WATCH)
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))

    def console(message: Any) -> None:
        if message.type == "error" and "Content Security Policy" in message.text:
            problems.append(f"console: {message.text}")

    page.on("console", console)
    return page, problems


def violations(page: Any) -> list[str]:
    return list(page.evaluate("window.__cspViolations || []"))


def test_the_pages_work_under_the_policy(
    live_server_url: str, new_page: Any, alice: Any, bob: Any, warden: Any
) -> None:
    from tables import services as tables
    from tests.history.helpers import play, start_table
    from tests.tournaments.conftest import make_event
    from tournaments.models import ORGANIZERS_GROUP

    finished = start_table([alice, bob], "fives", limit=50)
    game = play(finished, [alice, bob], seed=3)
    table = tables.table_create(host=alice, mode="fives")
    warden.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    event = make_event(warden, starts_at=timezone.now() + dt.timedelta(hours=2))

    # Signed out: the sign-up page's script fills the time zone (a script file, not inline).
    page, problems = watched(new_page, "phone")
    page.goto(f"{live_server_url}/accounts/signup/")
    page.wait_for_function("() => document.getElementById('id_time_zone').value !== ''")
    page.goto(f"{live_server_url}/")
    page.goto(f"{live_server_url}/rules/")
    # A profile kept from signed-out visitors says so, and offers to log in.
    page.goto(f"{live_server_url}/players/{bob.pk}/")
    assert page.get_by_role("heading", name="This profile is not shown to you").is_visible()
    screenshot(page, "profile-refused-phone")
    assert violations(page) == [] and problems == []

    page, problems = watched(new_page)
    log_in(page, live_server_url, alice)
    # The sockets connect (connect-src): the lobby's, the table's, the tournament's.
    page.goto(f"{live_server_url}/lobby/")
    page.wait_for_function("() => window.lobbyReady === true")
    page.goto(f"{live_server_url}/tables/{table.pk}/")
    page.wait_for_function("() => window.wsReady === true")
    assert page.locator("svg").count() > 0
    page.goto(f"{live_server_url}/tournaments/{event.pk}/")
    page.wait_for_function("() => window.tournamentReady === true")
    # The game page draws its board (bones without a <style> element) and runs its scripts.
    page.goto(f"{live_server_url}/games/{game.pk}/")
    page.wait_for_selector("#replay[data-ready='true']")
    page.locator("#replay [data-go='forward']").click()
    face = page.locator("#replay-board .bone-face").first
    assert face.evaluate("e => getComputedStyle(e).stroke") != "none"
    page.goto(f"{live_server_url}/profile/edit/")
    page.get_by_label("Nobody but me").check()
    screenshot(page, "profile-edit-desktop")
    page.set_viewport_size({"width": 360, "height": 640})
    screenshot(page, "profile-edit-phone")
    page.goto(f"{live_server_url}/locker/")
    assert violations(page) == [] and problems == [], (violations(page), problems)


def test_the_admin_and_its_search_boxes_work_under_the_policy(
    live_server_url: str, new_page: Any, alice: Any, bob: Any, warden: Any
) -> None:
    from chat import services as chat
    from tables import services as tables

    table = tables.table_create(host=alice, mode="fives")
    tables.seat_take(table_id=table.pk, user=bob, number=1)
    chat.chat_send(table_id=table.pk, user=bob, content={"text": "rude words"})
    report = chat.chat_report(table_id=table.pk, reporter=alice, reported_id=bob.pk, reason="x")
    page, problems = watched(new_page)
    log_in(page, live_server_url, warden)
    page.goto(f"{live_server_url}/admin/")
    page.goto(f"{live_server_url}/admin/ledger/posting/")  # a list with no actions
    assert page.locator("#changelist").count() == 1
    page.goto(f"{live_server_url}/admin/tables/table/")
    screenshot(page, "admin-tables")
    page.goto(f"{live_server_url}/admin/tables/table/{table.pk}/")
    screenshot(page, "admin-table")
    page.get_by_role("link", name="Close this table…").click()
    page.wait_for_selector("textarea[name='reason']")
    screenshot(page, "admin-table-close")
    # The adjustment form: the player is found by typing (select2, from the admin's files).
    page.goto(f"{live_server_url}/ledger/staff/adjust/")
    page.locator(".select2-selection").first.click()
    page.locator(".select2-search__field").fill("Bo")
    page.locator(".select2-results__option", has_text="Bob").click()
    assert page.locator("select[name='player']").input_value() == str(bob.pk)
    screenshot(page, "admin-adjust")
    # The report leads to the time-out form, Bob and the table chosen; the table is searchable.
    page.goto(f"{live_server_url}/admin/chat/chatreport/{report.pk}/change/")
    page.get_by_role("link", name="Time Bob out").click()
    page.wait_for_selector("select[name='table']")
    assert page.locator("select[name='user']").input_value() == str(bob.pk)
    assert page.locator("select[name='table']").input_value() == str(table.pk)
    page.locator(".field-table .select2-selection").click()
    page.locator(".select2-search__field").fill("Ali")
    page.wait_for_selector(".select2-results__option >> text=Table")
    screenshot(page, "admin-time-out")
    assert violations(page) == [] and problems == [], (violations(page), problems)
