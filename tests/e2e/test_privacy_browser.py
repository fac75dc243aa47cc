"""In a real browser: the account page's "Your data" card, the download, and closing an account
by keyboard, at phone and desktop widths, with nothing wider than the screen."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from accounts.models import User
from tests.conftest import PASSWORD
from tests.e2e.conftest import log_in, screenshot

NO_SIDEWAYS_SCROLL = "document.documentElement.scrollWidth <= window.innerWidth"
SIZES = {"360x640": (360, 640), "1280x720": (1280, 720)}


@pytest.fixture
def sized_page(browser: Any) -> Iterator[Callable[..., Any]]:
    """A page of an exact size (the issue's 360x640 phone and 1280x720 desktop)."""
    contexts: list[Any] = []

    def make(size: str, **options: Any) -> Any:
        w, h = SIZES[size]
        context = browser.new_context(viewport={"width": w, "height": h}, **options)
        context.set_default_timeout(30_000)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


@pytest.mark.parametrize("width", list(SIZES))
def test_download_and_close_by_keyboard(
    live_server_url: str, sized_page: Any, alice: Any, width: str
) -> None:
    page = sized_page(width, accept_downloads=True)
    log_in(page, live_server_url, alice)
    page.goto(live_server_url + "/profile/")
    card = page.locator(".your-data")
    card.scroll_into_view_if_needed()
    assert card.get_by_role("heading", name="Your data").is_visible()
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    screenshot(page, f"privacy-account-{width}")
    with page.expect_download() as download:
        card.get_by_role("link", name="Download my data").click()
    file = download.value
    assert file.suggested_filename.startswith("dominologist-Alice-")
    data = json.loads(Path(file.path()).read_text(encoding="utf-8"))
    assert data["account"]["email"] == "alice@example.com"

    page.goto(live_server_url + "/profile/close/")
    assert page.get_by_text("It cannot be undone.").is_visible()
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    # A wrong password: the field says so, and the box stays ticked.
    page.get_by_label("Your password").fill("not-it")
    page.get_by_label("I understand that closing my account").check()
    page.get_by_label("Your password").press("Enter")
    page.wait_for_selector("#id_password_error")
    assert page.get_by_text("That is not your password.").is_visible()
    assert page.get_by_label("I understand that closing my account").is_checked()
    screenshot(page, f"privacy-close-{width}")
    # By keyboard: the password, Tab to the box (ticked), Tab to the button, Enter.
    page.get_by_label("Your password").fill(PASSWORD)
    page.keyboard.press("Tab")
    focused = page.evaluate("document.activeElement.name")
    assert focused == "confirm"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent.trim()") == "Close my account for good"
    page.keyboard.press("Enter")
    page.wait_for_selector("text=Your account is closed")
    screenshot(page, f"privacy-closed-{width}")
    alice = User.objects.get(pk=alice.pk)
    assert alice.closed_at is not None and not alice.is_active


def test_the_close_page_in_spanish_on_a_phone(
    live_server_url: str, sized_page: Any, alice: Any
) -> None:
    page = sized_page("360x640", locale="es-ES")
    log_in(page, live_server_url, alice)
    page.context.add_cookies([{"name": "django_language", "value": "es", "url": live_server_url}])
    page.goto(live_server_url + "/profile/close/")
    assert page.get_by_text("No se puede deshacer.").first.is_visible()
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    screenshot(page, "privacy-close-phone-es")
