"""Site-wide behaviour: pages, health, production checks, English and Spanish."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import polib
import pytest
from django.conf import settings
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse

import engine

ROOT = Path(__file__).resolve().parents[2]
CATALOG = ROOT / "locale" / "es" / "LC_MESSAGES"


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["home", "rules", "account_login", "account_signup"])
def test_public_pages_render_with_footer_and_nav(client: Client, name: str) -> None:
    response = client.get(reverse(name), HTTP_HOST="localhost")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Play money only." in html
    assert "18+" in html
    assert 'href="/rules/"' in html
    assert 'name="viewport"' in html
    assert 'class="skip-link"' in html


@pytest.mark.django_db
def test_profile_pages(client: Client, alice, bob) -> None:  # type: ignore[no-untyped-def]
    client.force_login(alice)
    mine = client.get(reverse("accounts:profile", args=[alice.pk]))
    assert alice.email in mine.content.decode()
    theirs = client.get(reverse("accounts:profile", args=[bob.pk]))
    assert theirs.status_code == 200
    assert bob.email not in theirs.content.decode()  # private details stay private
    response = client.post(
        reverse("accounts:profile_edit"),
        {"display_name": "Bob", "time_zone": "Europe/Madrid", "language": "es"},
    )
    assert response.status_code == 400
    assert "taken" in response.content.decode()
    response = client.post(
        reverse("accounts:profile_edit"),
        {"display_name": "Alicia", "time_zone": "Not/AZone", "language": "es"},
    )
    assert response.status_code == 400
    response = client.post(
        reverse("accounts:profile_edit"),
        {"display_name": "Alicia", "time_zone": "Europe/Madrid", "language": "es"},
    )
    assert response.status_code == 302
    alice.refresh_from_db()
    assert (alice.display_name, alice.time_zone, alice.language) == (
        "Alicia",
        "Europe/Madrid",
        "es",
    )


@pytest.mark.django_db
def test_healthz_reports_every_part(client: Client) -> None:
    response = client.get("/healthz", HTTP_HOST="localhost")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert set(body["checks"]) == {"database", "channel_layer", "broker"}
    assert all(check["ok"] for check in body["checks"].values())
    assert body["engine"] == ("compiled" if engine.COMPILED else "pure")


@pytest.mark.django_db
def test_healthz_says_what_is_failing(client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    from dominoes_site import health

    def broken() -> dict[str, object]:
        raise ConnectionError("broker unreachable")

    monkeypatch.setitem(health.CHECKS, "broker", broken)
    response = client.get("/healthz", HTTP_HOST="localhost")
    assert response.status_code == 503
    assert response.json()["checks"]["broker"] == {
        "ok": False,
        "error": "ConnectionError: broker unreachable",
        "ms": response.json()["checks"]["broker"]["ms"],
    }


def test_check_deploy_is_clean_in_production_settings(tmp_path: Path) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"},
        "DEBUG": "false",
        "SECRET_KEY": "x7Gq2-k9Lm_Pz4rT8vWb1Yc6Nd3Hf0Js5Ua-Qe9Ri2To7Kw4Ly1Mx8Zn6Vp3Bs0",
        "ALLOWED_HOSTS": "dominologist.example",
        "VAR_DIR": str(tmp_path),
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_production_refuses_to_start_without_a_secret_key(tmp_path: Path) -> None:
    env = {**os.environ, "DEBUG": "false", "SECRET_KEY": "", "VAR_DIR": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


@pytest.mark.django_db
def test_organizers_group_exists() -> None:
    assert Group.objects.filter(name="Tournament organizers").exists()


@pytest.mark.django_db
def test_admin_has_the_site_name(client: Client, warden) -> None:  # type: ignore[no-untyped-def]
    client.force_login(warden)
    response = client.get("/admin/")
    assert response.status_code == 200
    assert settings.ADMIN_SITE_HEADER in response.content.decode()


@pytest.mark.django_db
def test_spanish_pages_render_translated(client: Client) -> None:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    html = client.get(reverse("home"), HTTP_HOST="localhost").content.decode()
    assert '<html lang="es">' in html
    assert "Solo dinero de juego." in html
    assert "Play money only." not in html
    rules = client.get(reverse("rules"), HTTP_HOST="localhost").content.decode()
    assert "pozo" in rules
    signup = client.get(reverse("account_signup"), HTTP_HOST="localhost").content.decode()
    assert "Fecha de nacimiento" in signup


@pytest.mark.django_db
def test_language_switch_is_remembered_on_the_account(client: Client, alice) -> None:  # type: ignore[no-untyped-def]
    client.force_login(alice)
    response = client.post(reverse("set_language"), {"language": "es", "next": "/"})
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.language == "es"
    assert "Solo dinero de juego." in client.get("/").content.decode()


def test_spanish_catalog_is_complete_and_compiled() -> None:
    po = polib.pofile(str(CATALOG / "django.po"))
    assert po.untranslated_entries() == []
    assert po.fuzzy_entries() == []
    mo = polib.mofile(str(CATALOG / "django.mo"))
    compiled = {(entry.msgctxt, entry.msgid): entry.msgstr for entry in mo}
    for entry in po.translated_entries():
        if not entry.msgid_plural:
            assert compiled.get((entry.msgctxt, entry.msgid)) == entry.msgstr, (
                f"stale .mo for {entry.msgid!r}"
            )


def test_every_template_string_is_marked_for_translation() -> None:
    """Template text outside tags must be inside {% trans %}/{% blocktrans %}: a rough guard."""
    import re

    untranslated = []
    for path in (ROOT / "templates").rglob("*.html"):
        text = path.read_text()
        text = re.sub(r"{%\s*blocktrans.*?{%\s*endblocktrans\s*%}", "", text, flags=re.S)
        text = re.sub(r"{%.*?%}|{{.*?}}|{#.*?#}", "", text, flags=re.S)
        text = re.sub(r"<script.*?</script>|<style.*?</style>", "", text, flags=re.S)
        text = re.sub(r"<[^>]+>", "\n", text)
        for line in text.splitlines():
            # Language names are written in their own language on purpose.
            words = re.findall(r"[A-Za-z]{3,}", line.replace("English", "").replace("Español", ""))
            if words:
                untranslated.append(f"{path.relative_to(ROOT)}: {line.strip()}")
    assert untranslated == []


def test_env_example_documents_every_variable(tmp_path: Path) -> None:
    import re

    example = (ROOT / ".env.example").read_text()
    documented = set(re.findall(r"^([A-Z_]+)=", example, flags=re.M))
    source = (ROOT / "dominoes_site" / "settings.py").read_text()
    read = set(re.findall(r'env\.\w+\(\s*"([A-Z_]+)"', source))
    read |= set(
        re.findall(
            r'os\.environ\.get\("([A-Z_]+)"', (ROOT / "dominoes_site" / "run.py").read_text()
        )
    )
    assert read - documented == set()
    assert documented == set(settings.HOUSE_VARIABLES)
    # A copy of .env.example, as it is, gives a working site.
    env = {k: v for k, v in os.environ.items() if k not in documented}
    for line in example.splitlines():
        if re.match(r"^[A-Z_]+=", line):
            name, _, value = line.partition("=")
            env[name] = value
    env["VAR_DIR"] = str(tmp_path)
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_every_marked_string_is_in_the_spanish_catalog() -> None:
    """A string marked after the last makemessages fails here, not silently in Spanish."""
    import re

    po = polib.pofile(str(CATALOG / "django.po"))
    known = {entry.msgid for entry in po if entry.msgstr or entry.msgstr_plural}
    marked: set[str] = set()
    for path in (ROOT / "templates").rglob("*.html"):
        text = path.read_text()
        marked |= set(re.findall(r"{%\s*trans\s+\"([^\"]+)\"", text))
        marked |= set(re.findall(r"{%\s*trans\s+'([^']+)'", text))
    # Every app of ours (a folder with an apps.py), and the site package.
    apps = sorted({p.parent for p in ROOT.glob("*/apps.py")} | {ROOT / "dominoes_site"})
    assert {a.name for a in apps} >= {"tables", "ratings", "pairing", "social", "coach"}
    for app_dir in apps:
        for path in app_dir.rglob("*.py"):
            if "migrations" in path.parts:
                continue
            text = path.read_text()
            marked |= set(
                re.findall(r"\b(?:_|_lazy|gettext|gettext_lazy)\(\s*\"([^\"\\]+)\"\s*[,)]", text)
            )
    missing = sorted(m for m in marked if m not in known)
    assert missing == [], "run makemessages and translate: " + ", ".join(missing[:20])
