"""The API pages in Chromium: a token made, copied and revoked with the keyboard alone; the
developers' guide on phones and a desktop with nothing scrolling sideways; axe on the tokens
page (with a new secret, a revoked token and an app let in), the guide and the OAuth consent
page, in English and in Spanish."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.utils import timezone

from tests.e2e.conftest import log_in, screenshot
from tests.e2e.test_axe_browser import AXE, check, report

FOCUSED = (
    "() => document.activeElement"
    " && (document.activeElement.id || document.activeElement.textContent.trim())"
)


def tab_to(page: Any, test: str, most: int = 80) -> None:
    """Press Tab until the focused element passes `test` (a JS function of it)."""
    for _ in range(most):
        page.keyboard.press("Tab")
        if page.evaluate(f"() => ({test})(document.activeElement)"):
            return
    raise AssertionError(f"Tab never reached {test}; focus is on {page.evaluate(FOCUSED)!r}")


def test_a_token_made_copied_and_revoked_by_keyboard(
    live_server_url: str, new_page: Any, alice: Any
) -> None:
    from api.models import AccessToken
    from api.tokens import digest_of

    page = new_page("desktop")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server_url)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    log_in(page, live_server_url, alice)
    page.goto(live_server_url + "/profile/api/")

    tab_to(page, "(el) => el.id === 'id_name'")
    page.keyboard.type("Keyboard bot")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.value") == "read"
    page.keyboard.press("Space")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.value") == "play"
    page.keyboard.press("Space")
    tab_to(page, "(el) => el.type === 'submit' && el.closest('.api-make')")
    page.keyboard.press("Enter")

    page.wait_for_selector("#new-token-secret")
    # The one-time secret has the focus first, so a screen reader starts there.
    page.wait_for_function("() => document.activeElement.id === 'new-token'")
    secret = page.input_value("#new-token-secret")
    token = AccessToken.objects.get(user=alice)
    assert token.digest == digest_of(secret) and token.scopes == ["read", "play"]
    screenshot(page, "api-tokens-new-desktop")

    tab_to(page, "(el) => el.dataset.copy === 'new-token-secret'")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => document.getElementById('new-token-copied').textContent.includes('Copied')"
    )
    assert page.evaluate("() => navigator.clipboard.readText()") == secret

    tab_to(page, "(el) => el.closest('.api-revoke') && el.type === 'submit'")
    page.keyboard.press("Enter")
    page.wait_for_selector(".message")
    assert "“Keyboard bot” is revoked" in page.inner_text(".messages")
    assert page.locator("#new-token-secret").count() == 0
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert page.locator(f"#token-{token.pk} .badge-revoked").is_visible()
    assert errors == []


def _no_sideways_scroll(page: Any) -> None:
    wide = page.evaluate(
        """() => {
          const out = [];
          const limit = document.documentElement.clientWidth;
          for (const el of document.querySelectorAll("main *")) {
            const box = el.getBoundingClientRect();
            if (box.width && box.right > limit + 1) out.push(el.tagName + "." + el.className);
          }
          const scroll = document.documentElement.scrollWidth;
          return {scroll, width: limit, wide: out.slice(0, 5)};
        }"""
    )
    assert wide["scroll"] <= wide["width"] and wide["wide"] == [], wide


def test_the_developers_guide_fits_a_phone_and_a_desktop(
    live_server_url: str, new_page: Any
) -> None:
    from api.site import api

    paths = list(api.get_openapi_schema()["paths"])
    for width, size in (("phone", None), ("phone", (360, 780)), ("desktop", None)):
        page = new_page(width)
        if size:
            page.set_viewport_size({"width": size[0], "height": size[1]})
        page.goto(live_server_url + "/developers/")
        assert page.locator(".dev-op").count() >= len(paths)
        _no_sideways_scroll(page)
        name = f"api-developers-{size[0] if size else width}"
        screenshot(page, name)
        # A long path wraps within its card (here the longest of them all).
        longest = max(paths, key=len)
        code = page.locator("code.dev-path", has_text=longest).first
        card = code.locator("xpath=ancestor::article[1]")
        assert code.bounding_box()["x"] + code.bounding_box()["width"] <= (
            card.bounding_box()["x"] + card.bounding_box()["width"] + 1
        )


def _an_app_let_in(alice: Any, bob: Any) -> Any:
    from oauth2_provider.models import get_access_token_model, get_application_model

    app = get_application_model().objects.create(
        name="Domino Stats",
        user=bob,
        client_id="domino-stats",
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris="https://stats.example/callback",
    )
    get_access_token_model().objects.create(
        user=alice,
        application=app,
        token="an-access-token-for-the-axe-check",
        expires=timezone.now() + dt.timedelta(hours=1),
        scope="read play",
    )
    return app


def test_axe_finds_nothing_on_the_api_pages(
    live_server_url: str, new_page: Any, alice: Any, bob: Any
) -> None:
    from api.tokens import token_create, token_revoke

    app = _an_app_let_in(alice, bob)
    old, _secret = token_create(user=alice, name="Old script", scopes=["read"])
    token_revoke(user=alice, token_id=old.pk)
    consent = (
        "/oauth/authorize/?response_type=code&client_id=domino-stats"
        "&redirect_uri=https%3A%2F%2Fstats.example%2Fcallback&scope=read+play&state=x"
        "&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256"
    )
    found: dict[str, Any] = {}
    for width, language in (("desktop", "en"), ("phone", "en"), ("phone", "es")):
        where = f"{width} {language}"
        page = new_page(width)
        page.add_init_script(path=str(AXE))
        if language == "es":
            page.context.add_cookies(
                [{"name": settings.LANGUAGE_COOKIE_NAME, "value": "es", "url": live_server_url}]
            )
        page.goto(live_server_url + "/developers/")  # logged out
        check(page, f"{where} /developers/", found)
        screenshot(page, f"api-developers-axe-{width}-{language}")

        log_in(page, live_server_url, alice)
        page.goto(live_server_url + "/profile/api/")
        page.fill("#id_name", "Axe bot")
        page.check("input[name=scopes][value=read]")
        page.click(".api-make button[type=submit]")
        page.wait_for_selector("#new-token-secret")
        assert page.locator("text=Domino Stats").count() >= 1
        check(page, f"{where} /profile/api/ with a new token", found)
        screenshot(page, f"api-tokens-{width}-{language}")

        page.click(".api-make button[type=submit]")  # an empty form: its errors
        page.wait_for_selector(".field-errors")
        check(page, f"{where} /profile/api/ with errors", found)
        screenshot(page, f"api-tokens-errors-{width}-{language}")

        page.goto(live_server_url + consent)
        page.wait_for_selector("#authorizationForm")
        check(page, f"{where} the consent page", found)
        screenshot(page, f"api-consent-{width}-{language}")
        _no_sideways_scroll(page)
    log_in(page, live_server_url, bob)
    for path in ("/oauth/applications/", f"/oauth/applications/{app.pk}/"):
        page.goto(live_server_url + path)
        check(page, f"phone es {path}", found)
        screenshot(page, "api-oauth-apps" + ("-detail" if str(app.pk) in path else ""))
    page.goto(live_server_url + "/oauth/applications/register/")
    check(page, "phone es the app form", found)
    screenshot(page, "api-oauth-register")
    assert found == {}, report(found)
