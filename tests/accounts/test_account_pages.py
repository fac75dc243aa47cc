"""The accounts pages look like the sign-up card, say "Log in" / "Log out" / "Sign up", and the
password reset names a real way to reach the staff (SUPPORT_EMAIL)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse

from tests.conftest import PASSWORD

ROOT = Path(__file__).resolve().parents[2]
ALLAUTH_WORDS = ("Sign In", "Sign Out", "Sign Up", "Remember Me", "Please contact us")

PUBLIC = [
    "account_login",
    "account_signup",
    "account_reset_password",
    "account_reset_password_done",
]
SIGNED_IN = ["account_logout", "account_change_password", "account_email"]


def assert_site_page(html: str) -> None:
    assert 'class="site-header"' in html and 'class="site-footer"' in html
    assert 'class="card form-card' in html
    for word in ALLAUTH_WORDS:
        assert word not in html, word


@pytest.mark.django_db
@pytest.mark.parametrize("name", PUBLIC)
def test_public_account_pages_are_the_sites_cards(client: Client, name: str) -> None:
    response = client.get(reverse(name))
    assert response.status_code == 200
    assert_site_page(response.content.decode())


@pytest.mark.django_db
@pytest.mark.parametrize("name", SIGNED_IN)
def test_signed_in_account_pages_are_the_sites_cards(client: Client, alice: Any, name: str) -> None:
    client.force_login(alice)
    response = client.get(reverse(name))
    assert response.status_code == 200
    assert_site_page(response.content.decode())


@pytest.mark.django_db
def test_log_in_speaks_the_sites_words(client: Client, alice: Any) -> None:
    page = client.get(reverse("account_login")).content.decode()
    assert "<title>Log in · Dominologist</title>" in page
    assert "<h1>Log in</h1>" in page
    assert '<button class="btn" type="submit">Log in</button>' in page
    assert 'href="/accounts/signup/">Sign up</a>' in page
    assert 'href="/accounts/password/reset/">Forgot your password?</a>' in page
    # the "keep me logged in" box comes before its words, as on the sign-up card
    assert re.search(
        r'<input type="checkbox" name="remember"[^>]*> <label for="id_remember">'
        r"Keep me logged in on this device</label>",
        page,
    )
    response = client.post(reverse("account_login"), {"login": alice.email, "password": PASSWORD})
    assert response.status_code == 302
    messages = client.get(reverse("home")).content.decode()
    assert "You are logged in as Alice." in messages


@pytest.mark.django_db
def test_log_out_asks_then_logs_out(client: Client, alice: Any) -> None:
    client.force_login(alice)
    page = client.get(reverse("account_logout")).content.decode()
    assert "Are you sure you want to log out?" in page
    response = client.post(reverse("account_logout"))
    assert response.status_code == 302
    assert "You have logged out." in client.get(reverse("home")).content.decode()


@pytest.mark.django_db
def test_the_reset_page_names_the_staffs_address(client: Client, settings: Any) -> None:
    settings.SUPPORT_EMAIL = "help@dominologist.example"
    page = client.get(reverse("account_reset_password")).content.decode()
    assert (
        'Write to the house staff at <a href="mailto:help@dominologist.example">'
        "help@dominologist.example</a>." in page
    )
    done = client.get(reverse("account_reset_password_done")).content.decode()
    assert 'href="mailto:help@dominologist.example"' in done


@pytest.mark.django_db
def test_a_reset_link_leads_to_a_new_password(client: Client, alice: Any) -> None:
    response = client.post(reverse("account_reset_password"), {"email": alice.email})
    assert response.status_code == 302
    link = re.search(r"https?://[^/\s]+(/accounts/password/reset/key/\S+)", mail.outbox[0].body)
    assert link
    page = client.get(link.group(1), follow=True)
    html = page.content.decode()
    assert "<h1>Choose a new password</h1>" in html
    form_url = page.redirect_chain[-1][0] if page.redirect_chain else link.group(1)
    done = client.post(
        form_url, {"password1": "a-new-bone-9-yard", "password2": "a-new-bone-9-yard"}, follow=True
    )
    assert "Your password is changed." in done.content.decode()
    bad = client.get("/accounts/password/reset/key/0-nonsense/").content.decode()
    assert "This link does not work" in bad and "mailto:" in bad


def test_support_email_defaults_to_the_houses_sender(tmp_path: Path) -> None:
    """Unset, players are sent to the address the house's e-mails come from."""
    code = (
        "import django, os; django.setup(); from django.conf import settings; "
        "print(settings.SUPPORT_EMAIL)"
    )
    env = {
        "DJANGO_SETTINGS_MODULE": "dominoes_site.settings",
        "VAR_DIR": str(tmp_path),
        "DEFAULT_FROM_EMAIL": "Dominologist <house@dominologist.example>",
        "SUPPORT_EMAIL": "",
        "PATH": "/usr/bin:/bin",
    }
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.stdout.strip() == "house@dominologist.example", result.stderr
    env["SUPPORT_EMAIL"] = "help@dominologist.example"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.stdout.strip() == "help@dominologist.example", result.stderr
    assert "SUPPORT_EMAIL=" in (ROOT / ".env.example").read_text()
    assert "SUPPORT_EMAIL=" in (ROOT / "docs" / "deploy.md").read_text()


def test_account_templates_have_no_inline_script_or_style() -> None:
    """A Content-Security-Policy (script-src 'self', style-src 'self') allows neither."""
    for folder in ("account", "allauth", "tables", "history", "tournaments"):
        for path in (ROOT / "templates" / folder).rglob("*.html"):
            if path.name in ("table.html", "_table_strings.html"):
                continue  # the table page's own (another part of the site)
            text = path.read_text()
            scripts = re.findall(r"<script\b[^>]*>", text)
            inline = [s for s in scripts if "src=" not in s and "application/json" not in s]
            assert inline == [], path
            assert not re.search(r'\sstyle="|\son[a-z]+="', text), path
