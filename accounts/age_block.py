"""The 24-hour sign-up block for a browser that declared an age under 18.

A signed, timestamped cookie (it cannot be forged or back-dated) plus the same mark in the
session. Retrying with another date of birth from that browser is refused until it expires.
"""

from __future__ import annotations

import datetime as dt
import time

from django.conf import settings
from django.core import signing
from django.http import HttpRequest, HttpResponse

COOKIE = "dominologist_age_block"
SALT = "accounts.age_block"
SESSION_KEY = "age_block_until"


def retry_block_remaining(request: HttpRequest) -> dt.timedelta | None:
    """Time left on this browser's block, or None when it may sign up."""
    lasts = settings.AGE_RETRY_BLOCK_SECONDS
    now = time.time()
    until = request.session.get(SESSION_KEY) if hasattr(request, "session") else None
    raw = request.COOKIES.get(COOKIE)
    if raw:
        try:
            started = float(signing.loads(raw, salt=SALT, max_age=lasts))
            until = max(until or 0.0, started + lasts)
        except (signing.BadSignature, ValueError, TypeError):
            pass
    if until and until > now:
        return dt.timedelta(seconds=int(until - now))
    return None


def block_retries(request: HttpRequest, response: HttpResponse) -> None:
    lasts = settings.AGE_RETRY_BLOCK_SECONDS
    now = time.time()
    if hasattr(request, "session"):
        request.session[SESSION_KEY] = now + lasts
    response.set_cookie(
        COOKIE,
        signing.dumps(now, salt=SALT),
        max_age=lasts,
        httponly=True,
        samesite="Lax",
        secure=not settings.DEBUG,
    )
