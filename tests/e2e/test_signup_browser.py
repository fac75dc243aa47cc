"""In a real browser: an adult signs up by keyboard and logs in; a 17-year-old is turned away."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from playwright.sync_api import expect

from accounts.models import User
from tests.e2e.conftest import screenshot


def years_ago(years: int, days: int = 0) -> str:
    today = dt.date.today()
    born = (
        today.replace(year=today.year - years)
        if not (today.month == 2 and today.day == 29)
        else today.replace(year=today.year - years, day=28)
    )
    return (born + dt.timedelta(days=days)).isoformat()


@pytest.mark.parametrize("width", ["phone", "desktop"])
def test_adult_signs_up_by_keyboard_and_logs_back_in(
    live_server_url: str, new_page: Any, width: str
) -> None:
    page = new_page(width)
    page.goto(live_server_url + "/")
    screenshot(page, f"home-{width}")
    page.goto(live_server_url + "/accounts/signup/")
    page.get_by_label("Email").fill("rosa@example.com")
    page.get_by_label("Display name").fill("Rosa")
    page.get_by_label("Date of birth").fill(years_ago(30))
    page.get_by_label("Password", exact=True).fill("bones-on-the-table-7")
    page.get_by_label("Password (again)").fill("bones-on-the-table-7")
    page.get_by_label("I confirm that I am 18 or older").check()
    screenshot(page, f"signup-{width}")
    page.keyboard.press("Enter")
    page.wait_for_url(live_server_url + "/")
    assert page.get_by_text("Welcome to the house, Rosa.").is_visible()  # not "back" yet
    user = User.objects.get(email="rosa@example.com")
    assert user.time_zone  # filled in by the page from the browser
    # Log out, then log in again (on a phone, "Log out" is in the header's menu).
    menu = page.get_by_role("button", name="Menu")
    if menu.is_visible():
        menu.click()
    page.get_by_role("button", name="Log out").click()
    page.wait_for_url(live_server_url + "/")
    page.get_by_role("link", name="Log in").first.click()
    page.get_by_label("Email").fill("rosa@example.com")
    page.get_by_label("Password").fill("bones-on-the-table-7")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(live_server_url + "/")
    assert page.get_by_text("Welcome back, Rosa.").is_visible()


def test_seventeen_year_old_is_turned_away(live_server_url: str, new_page: Any) -> None:
    page = new_page("phone")
    page.goto(live_server_url + "/accounts/signup/")
    page.get_by_label("Email").fill("kid@example.com")
    page.get_by_label("Display name").fill("Kiddo")
    page.get_by_label("Date of birth").fill(years_ago(18, days=1))
    page.get_by_label("Password", exact=True).fill("bones-on-the-table-7")
    page.get_by_label("Password (again)").fill("bones-on-the-table-7")
    page.get_by_label("I confirm that I am 18 or older").check()
    page.get_by_role("button", name="Sign up").click()
    # the refusal is a new page: wait for it (is_visible() does not wait)
    expect(
        page.get_by_role("heading", name="Sorry, Dominologist is for adults only")
    ).to_be_visible()
    screenshot(page, "signup-refused-phone")
    # Trying again with an older date from the same browser is refused.
    page.goto(live_server_url + "/accounts/signup/")
    expect(page.get_by_text("paused")).to_be_visible()
    assert not User.objects.exists()


def test_rules_page_at_both_widths(live_server_url: str, new_page: Any) -> None:
    for width in ("phone", "desktop"):
        page = new_page(width)
        page.goto(live_server_url + "/rules/")
        assert page.get_by_role("heading", level=1).is_visible()
        # Nothing overflows the page sideways at 375 px: only tables scroll inside their boxes.
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0
        screenshot(page, f"rules-{width}")
