"""Middleware: the age gate on every page, and each player's own time zone."""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone, translation

from accounts.services import refusal_reason

# Paths a refused account may still reach: leaving, reading why, static files, the language,
# and its own data (downloading it, closing the account: docs/privacy.md).
OPEN_PREFIXES = (
    "/accounts/logout/",
    "/static/",
    "/i18n/",
    "/healthz",
    "/rules/",
    "/suspended/",
    "/profile/my-data/",
    "/profile/close/",
    "/api/",  # the API checks each token's account itself (api/access.py), in JSON
)


class AgeGateMiddleware:
    """A logged-in account that may not play (suspended, under age) sees why, on every page."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if (
            user is not None
            and user.is_authenticated
            and not request.path.startswith(OPEN_PREFIXES)
        ):
            reason = refusal_reason(user)
            if reason is not None:
                return render(request, "accounts/refused.html", {"reason": reason}, status=403)
        return self.get_response(request)


class UserPreferencesMiddleware:
    """Shows times in the player's own time zone, and pages in their language.

    The language switch sets a cookie; a player logging in on a new browser (no cookie yet)
    gets the language saved on their account.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and user.time_zone:
            try:
                timezone.activate(zoneinfo.ZoneInfo(user.time_zone))
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                timezone.deactivate()
            if user.language and settings.LANGUAGE_COOKIE_NAME not in request.COOKIES:
                translation.activate(user.language)
                request.LANGUAGE_CODE = user.language
        else:
            timezone.deactivate()
        return self.get_response(request)
