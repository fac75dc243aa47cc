"""The "Play now" grid's requests: join a pool, leave it, and the status the waiting page polls."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST

from accounts.bots import web_play_refusal
from pairing import selectors, services
from pairing.cells import CellError, cell_of


def _back(request: HttpRequest) -> HttpResponse:
    """Back to the page the grid was on (home or lobby), at the grid."""
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = "/"
    return redirect(f"{target.split('#')[0]}#play-now")


@login_required
@require_POST
def join(request: HttpRequest) -> HttpResponse:
    """A cell of the grid pressed: into that pool (out of any other). When someone who fits is
    already waiting, the player is seated at once and goes to the table."""
    bot_refusal = web_play_refusal(request.user)
    if bot_refusal is not None:  # a bot account joins pools through the API only
        messages.error(request, bot_refusal)
        return _back(request)
    mode, _sep, shape = request.POST.get("cell", "").partition(":")
    try:
        cell = cell_of(mode, shape, request.POST.get("stake", "0"))
        services.pool_join(
            user=request.user, cell=cell, house_fill=request.POST.get("house_fill") == "on"
        )
    except CellError as exc:
        messages.error(request, str(exc))
        return _back(request)
    except services.PairingError as exc:
        messages.error(request, exc.message)
        return _back(request)
    if selectors.pool_status(request.user)["state"] == "seated":
        return to_table(request)
    return _back(request)


@login_required
def to_table(request: HttpRequest) -> HttpResponse:
    """To the table the pool seated the player at, saying how long they have to press Ready
    (the waiting page comes here when it learns they were seated)."""
    status = selectors.pool_status(request.user)
    if status["state"] != "seated":
        return redirect("/#play-now")
    if not status["ready"]:
        left = max(1, round(status["confirm_by"] / 1000 - timezone.now().timestamp()))
        messages.info(
            request,
            ngettext(
                "Your table is ready: press Ready within %(seconds)d second, or your seat goes "
                "to the next player waiting.",
                "Your table is ready: press Ready within %(seconds)d seconds, or your seat goes "
                "to the next player waiting.",
                left,
            )
            % {"seconds": left},
        )
    return redirect(status["url"])


@login_required
@require_POST
def leave(request: HttpRequest) -> HttpResponse:
    if services.pool_leave(user=request.user):
        messages.success(request, _("You left the pool."))
    else:
        status = selectors.pool_status(request.user)
        if status["state"] == "seated":  # paired just before the press: the table is theirs
            messages.info(request, _("You were seated before you left: here is your table."))
            return redirect(status["url"])
    return _back(request)


@login_required
@require_GET
def seated_card(request: HttpRequest, table_id: int) -> HttpResponse:
    """The `pairing_seated` notice's card, for its reader in the page's language: the table and
    the time left to press Ready. 204 once there is nothing to say (ready, dropped, started)."""
    status = selectors.pool_status(request.user)
    if status["state"] != "seated" or status["table"] != table_id or status["ready"]:
        return HttpResponse(status=204)
    response = render(
        request,
        "pairing/_seated_card.html",
        {"table_id": table_id, "url": status["url"], "confirm_by": status["confirm_by"]},
    )
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_GET
def status(request: HttpRequest) -> JsonResponse:
    """Where the player stands (polled every few seconds by the waiting panel)."""
    response = JsonResponse(selectors.pool_status(request.user))
    response["Cache-Control"] = "no-store"
    return response
