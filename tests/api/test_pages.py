"""The pages around the API: your tokens (/profile/api/: a secret shown once, revoking, the
apps you let in), the OAuth consent (authorization code with PKCE, end to end), and the
developers' guide (/developers/), written from the schema, in English and Spanish."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import html
import re
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from django.test import Client
from django.utils import translation
from django.utils.text import slugify
from oauth2_provider.models import (
    get_access_token_model,
    get_application_model,
    get_refresh_token_model,
)

from api.access import LIMITS
from api.models import AccessToken, Scope
from api.tokens import MAX_TOKENS, digest_of, token_create
from tests.api.helpers import call

pytestmark = pytest.mark.django_db

SECRET = re.compile(r'id="new-token-secret"[^>]*value="([^"]+)"')
REDIRECT = "https://stats.example/callback"


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def text(response: Any) -> str:
    return response.content.decode()


# --- Your API tokens ---------------------------------------------------------------------------


def test_the_tokens_page_needs_a_login_and_the_profile_links_to_it(
    client: Client, alice: Any, bob: Any
) -> None:
    answer = client.get("/profile/api/")
    assert answer.status_code == 302 and "/accounts/login/" in answer["Location"]
    own = logged_in(alice).get(f"/players/{alice.pk}/")
    assert 'href="/profile/api/"' in text(own)
    others = logged_in(bob).get(f"/players/{alice.pk}/")
    assert others.status_code == 200 and 'href="/profile/api/"' not in text(others)


def test_a_token_made_on_the_page_is_shown_once_and_works(alice: Any) -> None:
    client = logged_in(alice)
    answer = client.post("/profile/api/", {"name": "Stats script", "scopes": ["play", "read"]})
    assert answer.status_code == 200
    assert "no-store" in answer["Cache-Control"]
    page = text(answer)
    secret = html.unescape(SECRET.search(page).group(1))  # type: ignore[union-attr]
    token = AccessToken.objects.get(user=alice)
    assert token.digest == digest_of(secret) and token.name == "Stats script"
    assert token.scopes == ["read", "play"]
    assert "it will not be shown again" in page
    assert 'data-copy="new-token-secret"' in page
    assert secret not in str(dict(client.session.items()))

    me = call("GET", "/api/account", secret)
    assert me.status_code == 200 and me.json()["scopes"] == ["play", "read"]

    again = client.get("/profile/api/")
    listed = text(again)
    assert again.status_code == 200 and "no-store" in again["Cache-Control"]
    assert secret not in listed and 'id="new-token-secret"' not in listed
    assert "Stats script" in listed and f"{token.prefix}…" in listed
    assert str(Scope.READ.label) in listed and str(Scope.PLAY.label) in listed
    assert f'action="/profile/api/tokens/{token.pk}/revoke/"' in listed


def test_the_list_is_in_the_player_s_time_zone_and_says_never(alice: Any) -> None:
    alice.time_zone = "America/New_York"
    alice.save()
    token, _secret = token_create(user=alice, name="Old bot", scopes=["read"])
    made = dt.datetime(2026, 7, 1, 19, 5, tzinfo=dt.UTC)  # 15:05 in New York (summer time)
    AccessToken.objects.filter(pk=token.pk).update(created_at=made)
    page = text(logged_in(alice).get("/profile/api/"))
    item = page[page.index(f'id="token-{token.pk}"') :]
    item = item[: item.index("</li>\n")]
    assert "15:05" in item and "19:05" not in item
    assert "never" in item


def test_a_bad_form_shows_its_errors_on_its_fields(alice: Any) -> None:
    client = logged_in(alice)
    empty = client.post("/profile/api/", {"name": "  "})
    page = text(empty)
    assert empty.status_code == 400
    assert re.search(r'id="id_name_error"[^>]*>.*Give the token a name\.', page, re.S)
    assert 'aria-invalid="true"' in page and SECRET.search(page) is None

    no_scope = text(client.post("/profile/api/", {"name": "My bot"}))
    assert re.search(r'id="id_scopes_error"[^>]*>.*Choose at least one scope\.', no_scope, re.S)
    assert 'value="My bot"' in no_scope  # what was typed stays

    long = text(client.post("/profile/api/", {"name": "x" * 61, "scopes": ["read"]}))
    assert "A name has at most 60 characters." in long

    unknown = client.post("/profile/api/", {"name": "My bot", "scopes": ["admin"]})
    assert unknown.status_code == 400 and "id_scopes_error" in text(unknown)
    assert not AccessToken.objects.exists()


def test_the_cap_is_said_above_the_form(alice: Any) -> None:
    for n in range(MAX_TOKENS):
        token_create(user=alice, name=f"bot {n}", scopes=["read"])
    answer = logged_in(alice).post("/profile/api/", {"name": "one more", "scopes": ["read"]})
    assert answer.status_code == 400
    assert re.search(r'class="form-errors"[^>]*>\s*<p>You have 20 tokens', text(answer))
    assert AccessToken.objects.filter(user=alice).count() == MAX_TOKENS


def test_revoking_a_token_on_the_page(alice: Any) -> None:
    token, secret = token_create(user=alice, name="Old bot", scopes=["read"])
    client = logged_in(alice)
    assert client.get(f"/profile/api/tokens/{token.pk}/revoke/").status_code == 405
    answer = client.post(f"/profile/api/tokens/{token.pk}/revoke/")
    assert answer.status_code == 302 and answer["Location"] == "/profile/api/"
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert call("GET", "/api/account", secret).status_code == 401
    page = text(client.get("/profile/api/"))
    assert "The token “Old bot” is revoked" in page
    item = page[page.index(f'id="token-{token.pk}"') :]
    item = item[: item.index("</li>\n")]
    assert "api-token-revoked" in page and "Revoked" in item
    assert "/revoke/" not in item


def test_another_player_s_token_cannot_be_revoked(alice: Any, bob: Any) -> None:
    token, secret = token_create(user=bob, name="Bob's bot", scopes=["read"])
    answer = logged_in(alice).post(f"/profile/api/tokens/{token.pk}/revoke/")
    assert answer.status_code == 404
    token.refresh_from_db()
    assert token.revoked_at is None
    assert call("GET", "/api/account", secret).status_code == 200
    assert "Bob&#x27;s bot" not in text(logged_in(alice).get("/profile/api/"))


# --- OAuth: registering an app, consent with PKCE, the apps a player let in ---------------------


def register_app(owner: Any, name: str = "Domino Stats") -> Any:
    """An app registered on DOT's own page (in the site's frame), as a developer would."""
    client = logged_in(owner)
    form = client.get("/oauth/applications/register/")
    assert form.status_code == 200 and 'class="site-header"' in text(form)
    answer = client.post(
        "/oauth/applications/register/",
        {
            "name": name,
            "client_id": f"{slugify(name)}-client",
            "client_secret": "",
            "client_type": "public",
            "authorization_grant_type": "authorization-code",
            "redirect_uris": REDIRECT,
            "post_logout_redirect_uris": "",
            "allowed_origins": "",
            "algorithm": "",
        },
    )
    assert answer.status_code == 302, text(answer)
    app = get_application_model().objects.get(name=name, user=owner)
    detail = client.get(answer["Location"])
    assert detail.status_code == 200 and app.client_id in text(detail)
    return app


def challenge_of(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def authorize(client: Client, app: Any, verifier: str, scope: str = "read play") -> str:
    """The consent page, then Allow: the code the app receives."""
    params = {
        "response_type": "code",
        "client_id": app.client_id,
        "redirect_uri": REDIRECT,
        "scope": scope,
        "state": "s-123",
        "code_challenge": challenge_of(verifier),
        "code_challenge_method": "S256",
    }
    page = client.get("/oauth/authorize/", params)
    assert page.status_code == 200
    body = text(page)
    assert app.name in body and 'class="site-header"' in body
    for value in scope.split():
        assert html.escape(str(Scope(value).label)) in body
    assert 'href="/profile/api/"' in body
    answer = client.post("/oauth/authorize/", {**params, "allow": "Authorize"})
    assert answer.status_code == 302
    where = urlparse(answer["Location"])
    assert f"{where.scheme}://{where.netloc}{where.path}" == REDIRECT
    query = parse_qs(where.query)
    assert query["state"] == ["s-123"]
    return query["code"][0]


def exchange(app: Any, code: str, verifier: str | None) -> Any:
    data = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": REDIRECT,
        "client_id": app.client_id,
    }
    if verifier is not None:
        data["code_verifier"] = verifier
    return Client().post("/oauth/token/", data)


def test_the_authorization_code_flow_with_pkce(alice: Any, bob: Any) -> None:
    app = register_app(bob)
    player = logged_in(alice)
    verifier = "v" * 30 + "-a-long-enough-random-verifier-0123456789"

    no_verifier = exchange(app, authorize(player, app, verifier), None)
    assert no_verifier.status_code == 400 and "access_token" not in no_verifier.json()
    wrong = exchange(app, authorize(player, app, verifier), "w" * 50)
    assert wrong.status_code == 400 and "access_token" not in wrong.json()

    tokens = exchange(app, authorize(player, app, verifier), verifier)
    assert tokens.status_code == 200, tokens.content
    access = tokens.json()["access_token"]
    assert set(tokens.json()["scope"].split()) == {"read", "play"}
    me = call("GET", "/api/account", access)
    assert me.status_code == 200
    assert me.json()["id"] == alice.pk and me.json()["scopes"] == ["play", "read"]


def test_deny_grants_nothing(alice: Any, bob: Any) -> None:
    app = register_app(bob)
    params = {
        "response_type": "code",
        "client_id": app.client_id,
        "redirect_uri": REDIRECT,
        "scope": "read",
        "state": "s-9",
        "code_challenge": challenge_of("x" * 50),
        "code_challenge_method": "S256",
    }
    answer = logged_in(alice).post("/oauth/authorize/", params)
    assert answer.status_code == 302
    query = parse_qs(urlparse(answer["Location"]).query)
    assert query["error"] == ["access_denied"] and "code" not in query


def test_a_bad_request_is_told_in_the_site_s_frame(alice: Any) -> None:
    answer = logged_in(alice).get(
        "/oauth/authorize/", {"response_type": "code", "client_id": "nobody", "scope": "read"}
    )
    body = text(answer)
    assert answer.status_code == 400 and 'class="site-header"' in body
    assert "This app's request cannot be answered" in body and "invalid_request" in body


def test_an_app_the_player_allowed_is_listed_and_its_access_revoked(alice: Any, bob: Any) -> None:
    app = register_app(bob, "Domino Stats")
    player = logged_in(alice)
    verifier = "p" * 64
    tokens = exchange(app, authorize(player, app, verifier, "read"), verifier).json()

    page = text(player.get("/profile/api/"))
    section = page[page.index('id="apps-title"') :]
    assert "Domino Stats" in section and html.escape(str(Scope.READ.label)) in section
    assert f'action="/profile/api/apps/{app.pk}/revoke/"' in section

    # Bob (who wrote the app) cannot take back what Alice gave it, nor list it.
    assert logged_in(bob).post(f"/profile/api/apps/{app.pk}/revoke/").status_code == 404
    assert call("GET", "/api/account", tokens["access_token"]).status_code == 200

    answer = player.post(f"/profile/api/apps/{app.pk}/revoke/")
    assert answer.status_code == 302 and answer["Location"] == "/profile/api/"
    assert call("GET", "/api/account", tokens["access_token"]).status_code == 401
    assert not get_access_token_model().objects.filter(user=alice).exists()
    assert not get_refresh_token_model().objects.filter(user=alice, revoked=None).exists()
    refreshed = Client().post(
        "/oauth/token/",
        {
            "grant_type": "refresh_token",
            "refresh_token": tokens["refresh_token"],
            "client_id": app.client_id,
        },
    )
    assert refreshed.status_code == 400
    after = text(player.get("/profile/api/"))
    assert "Domino Stats no longer has access to your account." in after
    assert f"/profile/api/apps/{app.pk}/revoke/" not in after


def test_the_app_pages_are_the_site_s(bob: Any) -> None:
    client = logged_in(bob)
    app = register_app(bob, "Bob Tools")
    for path in (
        "/oauth/applications/",
        f"/oauth/applications/{app.pk}/",
        f"/oauth/applications/{app.pk}/update/",
        f"/oauth/applications/{app.pk}/delete/",
        "/oauth/authorized_tokens/",
    ):
        answer = client.get(path)
        assert answer.status_code == 200, path
        body = text(answer)
        assert 'class="site-header"' in body and "css/api.css" in body, path
        assert "<h1>" in body and "oauth2_provider/css" not in body, path
    assert Client().get("/oauth/applications/").status_code == 302


# --- The developers' guide ---------------------------------------------------------------------


def _operation_html(page: str, op_id: str) -> str:
    start = page.index(f'id="op-{slugify(op_id)}"')
    return page[start : page.index("</article>", start)]


def test_the_developers_page_lists_every_path_in_the_schema(client: Client) -> None:
    from api.site import api

    answer = client.get("/developers/")
    assert answer.status_code == 200
    page = text(answer)
    schema = api.get_openapi_schema()
    assert schema["paths"]
    for path, item in schema["paths"].items():
        for method, op in item.items():
            block = _operation_html(page, op["operationId"])
            assert f'<code class="dev-path">{html.escape(path)}</code>' in block
            assert f">{method.upper()}<" in block
            if op.get("summary"):
                assert html.escape(op["summary"]) in block
            for param in op.get("parameters", []):
                assert f"<code>{param['name']}</code>" in block
            if "application/x-ndjson" in op["responses"].get("200", {}).get("content", {}):
                assert "one JSON object per line" in block
    assert 'href="/api/schema"' in page and 'href="/profile/api/"' in page
    assert 'href="/oauth/applications/"' in page
    for bucket, limit in LIMITS.items():
        assert f"<code>{bucket}</code>" in page and f">{limit}<" in page
    for header in ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"):
        assert header in page
    assert "Retry-After" in page and "Authorization: Bearer" in page

    me = _operation_html(page, "api_routes_account_me")
    assert "<strong>read</strong> scope" in me and "no token at all" not in me
    assert 'href="#shape-account"' in me and "<code>scopes</code>" in me
    public = _operation_html(page, "api_routes_players_profile")
    assert "no token at all" in public
    games = _operation_html(page, "api_routes_account_my_games")
    assert "<code>finished_at</code>" in games  # the stream's line, field by field
    assert 'id="shape-rating"' in page and 'id="shape-playerref"' in page


def test_the_developers_page_in_spanish(client: Client) -> None:
    client.cookies["django_language"] = "es"
    page = text(client.get("/developers/"))
    assert '<html lang="es">' in page
    with translation.override("es"):
        for english in ("Your account", "Rate limits", "Needs a token (any scope)."):
            spanish = translation.gettext(english)
            assert spanish != english, english
        assert html.escape(translation.gettext("Your account")) in page
        assert html.escape(translation.gettext("Rate limits")) in page
    assert ">Your account<" not in page
