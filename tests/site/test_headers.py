"""Security headers on every page: a Content-Security-Policy with no inline script or style, a
Permissions-Policy; and pages that need nothing the policy forbids (no inline script, style
attribute, <style> element or event handler). The browser side is tests/e2e/test_csp_browser.py."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from dominoes_site.headers import content_security_policy

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _english() -> Iterator[None]:
    with translation.override("en"):
        yield


def policy(response: Any) -> dict[str, list[str]]:
    header = response.headers["Content-Security-Policy"]
    directives: dict[str, list[str]] = {}
    for part in header.split(";"):
        name, *sources = part.split()
        directives[name] = sources
    return directives


class InlineFinder(HTMLParser):
    """What a strict policy would block in a page: scripts written in the page (JSON data blocks
    are never run, so they are allowed), style elements and attributes, event handlers, and
    javascript: links."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        if tag == "script" and "src" not in names and names.get("type") != "application/json":
            self.found.append(f"inline <script> {self.getpos()}")
        if tag == "style":
            self.found.append(f"<style> element {self.getpos()}")
        for name, value in attrs:
            if name == "style":
                self.found.append(f"style attribute on <{tag}> {self.getpos()}")
            if name.startswith("on"):
                self.found.append(f"{name} handler on <{tag}> {self.getpos()}")
            if name in ("href", "src", "action") and (value or "").strip().startswith(
                "javascript:"
            ):
                self.found.append(f"javascript: URL on <{tag}> {self.getpos()}")


def inline_code(html: str) -> list[str]:
    finder = InlineFinder()
    finder.feed(html)
    return finder.found


@pytest.fixture
def pages(alice: Any, bob: Any, warden: Any) -> dict[str, tuple[Any, str]]:
    """Every main page, with who looks at it: (user or None, path)."""
    from tests.history.helpers import play, start_table
    from tests.tournaments.conftest import make_event
    from tournaments.models import ORGANIZERS_GROUP

    table = start_table([alice, bob], "fives", limit=50)
    game = play(table, [alice, bob], seed=3)
    from django.contrib.auth.models import Group

    warden.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    event = make_event(warden, starts_at=timezone.now() + dt.timedelta(hours=2))
    from chat import services as chat
    from tables import services as tables

    talk = tables.table_create(host=alice, mode="fives")
    tables.seat_take(table_id=talk.pk, user=bob, number=1)
    chat.chat_send(table_id=talk.pk, user=bob, content={"text": "hi"})
    report = chat.chat_report(table_id=talk.pk, reporter=alice, reported_id=bob.pk, reason="x")
    return {
        "home": (None, "/"),
        "home signed in": (alice, "/"),
        "rules": (None, reverse("rules")),
        "log in": (None, reverse("account_login")),
        "sign up": (None, reverse("account_signup")),
        "lobby": (alice, reverse("tables:lobby")),
        "table": (alice, reverse("tables:table", args=[talk.pk])),
        "game": (alice, reverse("history:game", args=[game.pk])),
        "profile": (alice, reverse("accounts:profile", args=[alice.pk])),
        "profile refused": (None, reverse("accounts:profile", args=[bob.pk])),
        "profile edit": (alice, reverse("accounts:profile_edit")),
        "locker": (alice, reverse("ledger:locker")),
        "commissary": (alice, reverse("ledger:commissary")),
        "leaderboard": (alice, reverse("ratings:pool", args=["fives"])),
        "tournaments": (alice, reverse("tournaments:list")),
        "tournament": (alice, reverse("tournaments:detail", args=[event.pk])),
        "tournament form": (warden, reverse("tournaments:new")),
        "tournament manage": (warden, reverse("tournaments:manage", args=[event.pk])),
        "admin": (warden, reverse("admin:index")),
        "admin players": (warden, reverse("admin:accounts_user_changelist")),
        "admin player": (warden, reverse("admin:accounts_user_change", args=[alice.pk])),
        "admin tables": (warden, reverse("admin:tables_table_changelist")),
        "admin table": (warden, reverse("admin:tables_table_change", args=[talk.pk])),
        "admin report": (warden, reverse("admin:chat_chatreport_change", args=[report.pk])),
        "admin time-out": (warden, reverse("admin:chat_chattimeout_add")),
        "admin adjust": (warden, reverse("ledger:adjust")),
        # A read-only list (no action of its own).
        "admin postings": (warden, reverse("admin:ledger_posting_changelist")),
        "admin staff actions": (warden, reverse("admin:staff_staffaction_changelist")),
    }


def test_every_page_has_the_policies_and_needs_no_inline_code(
    pages: dict[str, tuple[Any, str]],
) -> None:
    for name, (user, path) in pages.items():
        client = Client()
        if user is not None:
            client.force_login(user)
        response = client.get(path, HTTP_HOST="localhost:8000")
        assert response.status_code in (200, 403), (name, response.status_code)
        csp = policy(response)
        assert csp["default-src"] == ["'self'"], name
        assert csp["script-src"] == ["'self'"] and csp["style-src"] == ["'self'"], name
        assert csp["object-src"] == ["'none'"] and csp["frame-ancestors"] == ["'none'"], name
        assert csp["connect-src"] == ["'self'", "ws://localhost:8000", "wss://localhost:8000"]
        assert "camera=()" in response.headers["Permissions-Policy"], name
        assert "unsafe" not in response.headers["Content-Security-Policy"], name
        html = response.content.decode()
        assert inline_code(html) == [], (name, path, inline_code(html))


def test_the_finder_finds_what_the_policy_blocks() -> None:
    html = (
        '<script>alert(1)</script><script type="application/json">{}</script>'
        '<script src="/static/js/x.js"></script><style>p{}</style>'
        '<p style="color:red" onclick="x()"><a href="javascript:void(0)">x</a></p>'
    )
    found = inline_code(html)
    assert len(found) == 5, found


def test_every_template_is_free_of_inline_code() -> None:
    """Templates (and the partials pages include) never write code the policy would block, even
    in branches the pages above do not reach. json_script blocks are data, never run."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "templates"
    offenders = []
    for path in root.rglob("*"):
        if path.suffix not in (".html", ".svg") or not path.is_file():
            continue
        text = re.sub(r"{%\s*comment\s*%}.*?{%\s*endcomment\s*%}", "", path.read_text(), flags=re.S)
        text = re.sub(r"{%.*?%}|{{.*?}}|{#.*?#}", "", text, flags=re.S)
        offenders += [f"{path.relative_to(root)}: {f}" for f in inline_code(text)]
    assert offenders == []


def test_the_socket_host_comes_only_from_an_allowed_host(client: Client) -> None:
    response = client.get("/", HTTP_HOST="evil.example; script-src *")
    assert response.status_code == 400
    assert "evil" not in response.headers.get("Content-Security-Policy", "")
    assert content_security_policy(None).count("ws") == 0


def test_error_pages_carry_the_policy_too(client: Client) -> None:
    missing = client.get("/no-such-page/")
    assert missing.status_code == 404
    assert "script-src 'self'" in missing.headers["Content-Security-Policy"]
