"""Browser tests: a real daphne on the test database, driven by Playwright in Debian's Chromium.

The server is daphne in a forked process (so it shares the test settings and database), serving
the whole ASGI stack: pages, static files and WebSockets. Pages are waited on through flags they
set (`window.wsReady`, data attributes), never through sleeps.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.live import start_server, stop_server

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
WIDTHS = {"phone": (375, 812), "desktop": (1440, 900)}


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    """Browser tests run last: Playwright's sync API keeps an event loop running in the main
    thread while a browser is open, which the async socket tests cannot share."""
    browser_tests = [item for item in items if "/e2e/" in str(item.fspath)]
    for item in browser_tests:
        item.add_marker(pytest.mark.e2e)
        items.remove(item)
    items.extend(browser_tests)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        if os.environ.get("REQUIRE_BROWSER"):
            pytest.fail(f"Chromium is required here but {CHROMIUM} is missing.")
        pytest.skip(f"Debian's Chromium is not installed at {CHROMIUM} (apt-get install chromium).")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the test's own ORM calls (to set up
    # and check data) are still synchronous, which Django allows only when told.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        yield from _launch(sync_playwright)
    finally:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


def _launch(sync_playwright: Any) -> Iterator[Any]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield browser
        browser.close()


@pytest.fixture
def live_server_url(transactional_db: None) -> Iterator[str]:
    process = start_server()
    yield f"http://localhost:{process.port.value}"
    stop_server(process)


@pytest.fixture
def new_page(browser: Any) -> Iterator[Callable[..., Any]]:
    contexts: list[Any] = []

    def make(width: str = "desktop", **options: Any) -> Any:
        w, h = WIDTHS[width]
        context = browser.new_context(viewport={"width": w, "height": h}, **options)
        # Every wait is for an event (a flag, a selector): generous, it costs time only when
        # the event never comes, and a machine busy with other work may take a while.
        context.set_default_timeout(30_000)
        contexts.append(context)
        return _csp_safe_waits(context.new_page())

    yield make
    for context in contexts:
        context.close()


_FUNCTION = re.compile(r"^(async\s+)?(function\b|\([^()]*\)\s*=>|[\w$]+\s*=>)")


def _csp_safe_waits(page: Any) -> Any:
    """Pages run under the site's Content-Security-Policy (no 'unsafe-eval'), and Playwright
    polls a bare expression given to `wait_for_function` with the page's own eval, which the
    policy refuses. A function is compiled by the browser's debugger instead: so every bare
    expression is waited on as `() => (expression)`."""
    wait = page.wait_for_function

    def wait_for_function(expression: str, *args: Any, **kwargs: Any) -> Any:
        text = expression.strip()
        if not _FUNCTION.match(text):
            expression = f"() => ({text})"
        return wait(expression, *args, **kwargs)

    page.wait_for_function = wait_for_function
    return page


def screenshot(page: Any, name: str, *, full_page: bool = True) -> Path:
    """A picture of the page to look at, in var/screenshots/. Nothing asserts on it: CI, where
    nobody looks, sets E2E_SCREENSHOTS=0 and saves the time."""
    path = SCREENSHOTS / f"{name}.png"
    if os.environ.get("E2E_SCREENSHOTS") == "0":
        return path
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    # a page's whole length, or (an element, or the viewport) what is shown
    page.screenshot(path=str(path), **({"full_page": True} if full_page else {}))
    return path


def log_in(page: Any, url: str, user: Any) -> None:
    """Give this browser context a logged-in session for `user` (no sign-up form needed)."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    page.context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": cookie.value, "url": url}]
    )
