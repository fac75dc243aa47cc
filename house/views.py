"""Practice: a table against house players, started at once."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.bots import web_play_refusal
from accounts.services import AccountNotAllowed
from engine import SettingsError
from house import services
from house.forms import PracticeForm
from tables.forms import TableForm
from tables.services import TableError
from tables.views import lobby_page_context


@login_required
@require_POST
def practice(request: HttpRequest) -> HttpResponse:
    form = PracticeForm(request.POST, prefix="practice")
    bot_refusal = web_play_refusal(request.user)
    if bot_refusal is not None:  # a bot account plays only through the API
        form.is_valid()
        form.add_error(None, bot_refusal)
    elif form.is_valid():
        try:
            table = services.practice_start(
                user=request.user,
                mode=form.cleaned_data["mode"],
                level=form.cleaned_data["level"],
                **form.shape_settings,
                **form.clock_settings,
            )
        except (SettingsError, TableError) as exc:
            form.add_error(None, getattr(exc, "message", str(exc)))
        except AccountNotAllowed as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(request, _("Your practice game has started. Good luck!"))
            return redirect(table.get_absolute_url())
    # refused: the lobby again, with the reasons on the Practice form
    context = {"form": TableForm(), "practice_form": form, **lobby_page_context(request)}
    return render(request, "tables/lobby.html", context, status=400)
