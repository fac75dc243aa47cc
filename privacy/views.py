"""Your own data: download it as one JSON file, or close your account (docs/privacy.md)."""

from __future__ import annotations

import json
import time

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache

from privacy import export, services
from privacy.forms import CloseAccountForm

EXPORT_WINDOW = 3600


def _export_wait(user_id: int) -> int:
    """Seconds until this player may download again (0: now), counting this download."""
    key = f"privacy:exports:{user_id}"
    now = time.time()
    recent = [t for t in cache.get(key, []) if t > now - EXPORT_WINDOW]
    if len(recent) >= export.exports_per_hour():
        return int(min(recent) + EXPORT_WINDOW - now) + 1
    recent.append(now)
    cache.set(key, recent, EXPORT_WINDOW)
    return 0


@never_cache
@login_required
def data_download(request: HttpRequest) -> HttpResponse:
    """Everything the house holds about the player, as an attached JSON file."""
    wait = _export_wait(request.user.pk)
    if wait:
        minutes = max(1, -(-wait // 60))
        messages.error(
            request,
            ngettext(
                "You have downloaded your data %(count)d times in the last hour. Please try "
                "again in %(minutes)d minute.",
                "You have downloaded your data %(count)d times in the last hour. Please try "
                "again in %(minutes)d minutes.",
                minutes,
            )
            % {"count": export.exports_per_hour(), "minutes": minutes},
        )
        return redirect("accounts:my_profile")
    document = export.data_export(
        request.user,
        game_url=lambda pk: request.build_absolute_uri(reverse("history:game", args=[pk])),
    )
    body = json.dumps(document, cls=DjangoJSONEncoder, ensure_ascii=False, indent=2)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    name = export.export_filename(request.user)
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["X-Content-Type-Options"] = "nosniff"
    return response


@never_cache
@login_required
def account_close(request: HttpRequest) -> HttpResponse:
    """The warning, the password and the confirmation; then the account is closed for good."""
    user = request.user
    refusal = services.close_refusal(user, by=user)
    form = CloseAccountForm(request.POST if request.method == "POST" else None, request=request)
    context = {
        "form": form,
        "refusal": refusal,
        "wait_days": settings.CLOSED_EMAIL_WAIT_DAYS,
    }
    if request.method == "POST" and refusal is None and form.is_valid():
        try:
            services.account_close(user=user, by=user)
        except services.CloseRefused as exc:
            context["refusal"] = exc
            return render(request, "privacy/close.html", context, status=409)
        logout(request)
        return render(
            request,
            "privacy/closed.html",
            {"wait_days": settings.CLOSED_EMAIL_WAIT_DAYS},
        )
    status = 200
    if form.errors:
        status = 400
    elif refusal is not None and request.method == "POST":
        status = 409
    return render(request, "privacy/close.html", context, status=status)
