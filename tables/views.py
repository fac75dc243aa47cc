"""The lobby, creating a table, and the table page (the game itself runs over the socket)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.bots import web_play_refusal
from accounts.services import AccountNotAllowed
from engine import SettingsError
from tables import services, stakes, watching
from tables.forms import TableForm, mode_rules_data
from tables.models import MODE_CHOICES, Presence, Table
from tables.presence import PRESENCE_STALE_SECONDS

#: Other apps' forms on the lobby page: each gives template context (the house: its Practice
#: form, `practice_form`), registered from its AppConfig.ready(), so tables imports none of them.
LOBBY_FORMS: list[Callable[[], dict[str, object]]] = []


def lobby_tables_context(request: HttpRequest) -> dict[str, object]:
    mode = request.GET.get("mode", "")
    keeper = stakes.keeper()  # the ledger, through tables/stakes.py
    stake = request.GET.get("stake", "")  # the stake filter
    stake = stake if stake in dict(keeper.stake_filters) else ""
    tables = Table.objects.filter(
        private=False, status__in=[Table.Status.OPEN, Table.Status.PLAYING]
    )
    if mode in dict(MODE_CHOICES):
        tables = tables.filter(mode=mode)
    tables = keeper.tables_by_stake(tables, stake)
    balances = keeper.balances_of(request.user.pk)
    tables = (
        tables.select_related("host")
        .prefetch_related("seats__user")
        .order_by("status", "-created_at")[:100]
    )
    tables = list(tables)
    watching = _watchers([t for t in tables if t.status == Table.Status.PLAYING])
    me = request.user.pk
    rows = []
    for table in tables:
        seats = list(table.seats.all())
        stake_view = keeper.stake_view(table)
        if stake == "covered" and not stake_view.covered_by(balances):
            continue
        rows.append(
            {
                "table": table,
                "seats": seats,
                "free": sum(1 for s in seats if s.user_id is None),
                "differences": _differences(table),
                "watchers": watching.get(table.pk, 0),
                "stake": stake_view,
                # the host, or a player already seated, goes back to it rather than "Sit"
                "mine": table.host_id == me or any(s.user_id == me for s in seats),
            }
        )
    return {
        "open_tables": [r for r in rows if r["table"].status == Table.Status.OPEN],
        "playing_tables": [r for r in rows if r["table"].status == Table.Status.PLAYING],
        "mode": mode,
        "modes": MODE_CHOICES,
        "stake": stake,
        "stakes": keeper.stake_filters,
    }


def _differences(table: Table) -> list[str]:
    """The table's settings that differ from the house's defaults for its mode, in words."""
    from engine import TableSettings

    defaults = TableSettings.build(table.mode, players=table.settings["players"]).to_dict()
    names = {
        "deal": _("%(n)s bones each"),
        "get_on": _("get on with %(n)s"),
        "count_by": _("count by %(n)s"),
        "clock": _("%(n)s s clock"),
        "target": _("game to %(n)s"),
        "set": _("%(n)s set"),
    }
    set_names = {"double-six": _("double-six"), "double-nine": _("double-nine")}
    out = []
    for key, label in names.items():
        value = table.settings.get(key)
        if value == defaults.get(key):
            continue
        if key == "target" and table.mode in ("fives", "threes"):
            continue  # the row says "game limit" already
        if key == "clock" and value is None:
            out.append(_("no clock"))
        else:
            out.append(label % {"n": set_names.get(value, value) if key == "set" else value})
    if table.settings.get("spinner") and table.mode in ("fives", "threes"):
        out.append(_("with a spinner"))
    return out


@login_required
def lobby(request: HttpRequest) -> HttpResponse:
    form = TableForm(request.POST or None)
    bot_refusal = web_play_refusal(request.user) if request.method == "POST" else None
    if bot_refusal is not None:  # a bot account plays only through the API
        form.is_valid()
        form.add_error(None, bot_refusal)
    elif request.method == "POST" and form.is_valid():
        try:
            table = services.table_create(
                host=request.user,
                mode=form.cleaned_data["mode"],
                private=form.cleaned_data["private"],
                on_leave=form.cleaned_data.get("on_leave") or Table.OnLeave.WAIT,
                stake=form.stake_spec,
                rated=not form.cleaned_data.get("casual"),
                **form.cleaned_options,
            )
        except SettingsError as exc:  # the form checked; this is belt and braces
            form.add_error(None, str(exc))
        except stakes.StakeRefused as exc:  # a refused stake, or one the host cannot cover
            form.add_stake_refusal(exc)
        except AccountNotAllowed as exc:
            form.add_error(None, exc.message)
        else:
            if table.private:  # a public table is listed in the lobby: no link to share
                messages.success(
                    request, _("Your table is open. Share the link to invite players.")
                )
            else:
                messages.success(request, _("Your table is open: it is listed in the lobby."))
            return redirect(table.get_absolute_url())
    context: dict[str, object] = {"form": form}
    for forms_of in LOBBY_FORMS:  # other apps' forms on the lobby (the house's Practice)
        context.update(forms_of())
    context.update(lobby_page_context(request))
    return render(request, "tables/lobby.html", context, status=400 if form.errors else 200)


def lobby_page_context(request: HttpRequest) -> dict[str, object]:
    """What the lobby page shows besides its two forms (the Practice view renders it too)."""
    return {"mode_rules": mode_rules_data(), **lobby_tables_context(request)}


@login_required
@require_POST
def sit(request: HttpRequest, table_id: int) -> HttpResponse:
    """ "Sit" in the lobby: the player takes the first free seat of a public table at once and
    goes to it. A refusal (the table filled up, a stake they cannot cover, a wait after leaving
    games) is explained back in the lobby."""
    bot_refusal = web_play_refusal(request.user)
    if bot_refusal is not None:  # a bot account plays only through the API
        messages.error(request, bot_refusal)
        return redirect("tables:lobby")
    table = Table.objects.filter(pk=table_id).first()
    if table is None or (table.private and table.host_id != request.user.pk):
        messages.error(request, _("There is no such table."))
        return redirect("tables:lobby")
    if table.seats.filter(user=request.user).exists():
        return redirect(table.get_absolute_url())
    for _attempt in range(table.players):
        free = table.seats.filter(user=None).order_by("number").first()
        if free is None:
            messages.error(request, _("That table is full now. Pick another, or open one."))
            return redirect("tables:lobby")
        try:
            services.seat_take(table_id=table.pk, user=request.user, number=free.number)
        except services.TableError as exc:
            if exc.code == "seat_taken":  # someone sat there first: the next free seat
                continue
            messages.error(request, exc.message)
            return redirect("tables:lobby")
        return redirect(table.get_absolute_url())
    messages.error(request, _("That table is full now. Pick another, or open one."))
    return redirect("tables:lobby")


def _watchers(tables: list[Table]) -> dict[int, int]:
    """Watchers per table in one query: fresh sockets of people without a seat there."""
    seated = {(t.pk, s.user_id) for t in tables for s in t.seats.all() if s.user_id}
    fresh = timezone.now() - timedelta(seconds=PRESENCE_STALE_SECONDS)
    pairs = set(
        Presence.objects.filter(table__in=tables, seen_at__gte=fresh).values_list(
            "table_id", "user_id"
        )
    )
    counts: dict[int, int] = {}
    for table_id, _user in pairs - seated:
        counts[table_id] = counts.get(table_id, 0) + 1
    return counts


@login_required
def lobby_tables(request: HttpRequest) -> HttpResponse:
    """The lobby's table lists alone: the page fetches it again when the lobby socket says so."""
    return render(request, "tables/_lobby_tables.html", lobby_tables_context(request))


@login_required
def join_by_code(request: HttpRequest) -> HttpResponse:
    code = request.GET.get("code", "").strip()
    table = Table.objects.filter(invite_code=code).first()
    if table is None:
        messages.error(request, _("No table has that invite code."))
        return redirect("tables:lobby")
    return redirect(f"{table.get_absolute_url()}?code={code}")


@login_required
def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    table = get_object_or_404(Table, pk=table_id)
    code = request.GET.get("code", "")
    seated = table.seats.filter(user=request.user).exists()
    if (
        table.private
        and not seated
        and table.host_id != request.user.pk
        and code != table.invite_code
        and not watching.private_watchable(table)
    ):
        raise Http404("no such table")
    invite_url = None
    if table.private and (seated or table.host_id == request.user.pk):
        invite_url = request.build_absolute_uri(
            f"{reverse('tables:table', args=[table.pk])}?code={table.invite_code}"
        )
    return render(
        request,
        "tables/table.html",
        {
            "table": table,
            "invite_url": invite_url,
            "ws_query": f"?code={code}" if code else "",
            "stake": stakes.keeper().stake_view(table),  # what the table is played for
            "pot": stakes.keeper().pot_text(table),
        },
    )
