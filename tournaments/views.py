"""Tournament pages: the list, an event's page (and its live part), the player's buttons, and the
organizer's pages. Views parse input and call one service; the services hold every rule."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from accounts.models import User
from clubs.models import Club
from tournaments import arenas, organizer, selectors, services
from tournaments.broadcast import list_version
from tournaments.forms import MessageForm, ReasonForm, RegisterForm, SettleForm, TournamentForm
from tournaments.models import Entry, Match, Tournament, TournamentMessage


def _visible(request: HttpRequest, pk: int) -> Tournament:
    tournament = get_object_or_404(Tournament.objects.select_related("organizer"), pk=pk)
    if tournament.status == Tournament.Status.DRAFT and not services.may_manage(
        request.user, tournament
    ):
        raise Http404("no such event")
    return tournament


def _managed(request: HttpRequest, pk: int) -> Tournament:
    tournament = get_object_or_404(Tournament, pk=pk)
    if not services.may_manage(request.user, tournament):
        raise Http404("no such event")
    return tournament


@login_required
def tournament_list(request: HttpRequest) -> HttpResponse:
    version = list_version()  # read first: what is rendered is at least this new
    context = {**selectors.tournament_lists(request.user), "live_version": version}
    if request.headers.get("X-Requested-With") == "fetch":  # the page's live refresh
        return render(request, "tournaments/_lists.html", context)
    return render(request, "tournaments/list.html", context)


@login_required
def tournament_detail(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _visible(request, pk)
    context = {**selectors.live_context(tournament, request.user), "register_form": RegisterForm()}
    return render(request, "tournaments/detail.html", context)


@login_required
def tournament_live(request: HttpRequest, pk: int) -> HttpResponse:
    """The event's live part alone: the page fetches it again when the socket says so."""
    tournament = _visible(request, pk)
    context = {**selectors.live_context(tournament, request.user), "register_form": RegisterForm()}
    return render(request, "tournaments/_live.html", context)


@login_required
def notice_card(request: HttpRequest, pk: int) -> HttpResponse:
    """The viewer's match notice as a card for the notices region of any page (fetched by
    static/js/notices.js when a `tournament_table_ready` notice arrives); 204 when there is no
    notice for this viewer (the match moved on)."""
    tournament = _visible(request, pk)
    notice = selectors.viewer_state(tournament, request.user)["notice"]
    if notice is None:
        return HttpResponse(status=204)
    return render(
        request, "tournaments/_notice_card.html", {"tournament": tournament, "notice": notice}
    )


def _act(
    request: HttpRequest,
    pk: int,
    action: Callable[[], Any],
    done: str,
    to: str = "tournaments:detail",
) -> HttpResponse:
    """Call one service; say what it did, or why it refused; back to the page `to` (pk)."""
    try:
        action()
    except services.TournamentError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, done)
    return redirect(to, pk=pk)


@login_required
@require_POST
def register(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _visible(request, pk)
    form = RegisterForm(request.POST)
    partner = None
    if form.is_valid() and form.cleaned_data["partner"].strip():
        name = form.cleaned_data["partner"].strip()
        partner = User.objects.filter(display_name__iexact=name, is_active=True).first()
        if partner is None:
            messages.error(request, _("No player is called %(name)s.") % {"name": name})
            return redirect("tournaments:detail", pk=pk)
    return _act(
        request,
        tournament.pk,
        lambda: services.entry_register(
            tournament_id=tournament.pk,
            user=request.user,
            partner=partner,
            club=form.cleaned_data.get("club") if form.is_valid() else None,
        ),
        _("You are registered.")
        if partner is None
        else _("You are registered; %(name)s must now accept.") % {"name": partner.display_name},
    )


@login_required
@require_POST
def partner_answer(request: HttpRequest, pk: int, entry_id: int) -> HttpResponse:
    accept = request.POST.get("answer") == "accept"
    return _act(
        request,
        pk,
        lambda: services.entry_partner_answer(entry_id=entry_id, user=request.user, accept=accept),
        _("You are registered with your partner.") if accept else _("You declined."),
    )


@login_required
@require_POST
def withdraw(request: HttpRequest, pk: int) -> HttpResponse:
    return _act(
        request,
        pk,
        lambda: services.entry_withdraw(tournament_id=pk, user=request.user),
        _("You have withdrawn from the event."),
    )


@login_required
@require_POST
def check_in(request: HttpRequest, pk: int) -> HttpResponse:
    return _act(
        request,
        pk,
        lambda: services.entry_check_in(tournament_id=pk, user=request.user),
        _("You are checked in. Your first match's table will be shown here at the start."),
    )


# --- organizers --------------------------------------------------------------------------------


def club_asked(request: HttpRequest) -> Club | None:
    """The club a leader's "New club event" link names (`?club=<slug>`), if they lead it."""
    slug = request.GET.get("club") or ""
    return next((c for c in services.clubs_led(request.user) if c.slug == slug), None)


def creator_only(request: HttpRequest) -> None:
    """Organizers make open events; a club's leaders make their club's own."""
    if not (services.is_organizer(request.user) or services.clubs_led(request.user)):
        raise Http404("not an organizer")


@login_required
def tournament_new(request: HttpRequest) -> HttpResponse:
    creator_only(request)
    form = TournamentForm(request.POST or None, user=request.user, club=club_asked(request))
    if request.method == "POST" and form.is_valid():
        assert form.settings_data is not None
        try:
            tournament = services.tournament_create(
                organizer=request.user, **form.owner, **form.settings_data
            )
        except services.TournamentError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(
                request, _("The event is saved as a draft. Publish it when it is ready.")
            )
            return redirect("tournaments:detail", pk=tournament.pk)
    return render(
        request,
        "tournaments/form.html",
        {"form": form, "editing": None},
        status=400 if form.errors else 200,
    )


@login_required
def tournament_edit(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _managed(request, pk)
    form = TournamentForm(request.POST or None, instance=tournament, user=request.user)
    if request.method == "POST" and form.is_valid():
        assert form.settings_data is not None
        try:
            services.tournament_update(
                tournament_id=tournament.pk, by=request.user, **form.owner, **form.settings_data
            )
        except services.TournamentError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(request, _("The event is saved."))
            return redirect("tournaments:detail", pk=tournament.pk)
    return render(
        request,
        "tournaments/form.html",
        {"form": form, "editing": tournament},
        status=400 if form.errors else 200,
    )


@login_required
@require_POST
def tournament_publish(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _managed(request, pk)
    return _act(
        request,
        tournament.pk,
        lambda: services.tournament_publish(tournament_id=tournament.pk, by=request.user),
        _("The event is published."),
    )


@login_required
def tournament_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _managed(request, pk)
    form = ReasonForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            services.tournament_cancel(
                tournament_id=tournament.pk, by=request.user, reason=form.cleaned_data["reason"]
            )
        except services.TournamentError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(request, _("The event is cancelled; every entry fee is given back."))
            return redirect("tournaments:detail", pk=tournament.pk)
    return render(
        request,
        "tournaments/cancel.html",
        {"tournament": tournament, "form": form},
        status=400 if form.errors else 200,
    )


def _manage_context(request: HttpRequest, tournament: Tournament) -> dict[str, Any]:
    return {
        **selectors.live_context(tournament, request.user),
        "manage": True,
        "message_form": MessageForm(),
        "sent_messages": list(tournament.messages.select_related("sender")[:20]),
    }


@login_required
def tournament_manage(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _managed(request, pk)
    return render(request, "tournaments/manage.html", _manage_context(request, tournament))


@login_required
def tournament_manage_live(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _managed(request, pk)
    return render(request, "tournaments/_manage_live.html", _manage_context(request, tournament))


@login_required
@require_POST
def entry_disqualify(request: HttpRequest, pk: int, entry_id: int) -> HttpResponse:
    tournament = _managed(request, pk)
    entry = get_object_or_404(Entry, pk=entry_id, tournament=tournament)
    form = ReasonForm(request.POST)
    reason = form.cleaned_data["reason"] if form.is_valid() else ""
    try:
        services.entry_disqualify(entry_id=entry.pk, by=request.user, reason=reason)
    except services.TournamentError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("%(name)s is disqualified.") % {"name": entry.name})
    return redirect("tournaments:manage", pk=tournament.pk)


@login_required
@require_POST
def match_settle(request: HttpRequest, pk: int, match_id: int) -> HttpResponse:
    tournament = _managed(request, pk)
    match = get_object_or_404(Match, pk=match_id, tournament=tournament)
    form = SettleForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose the winner and say why you settle the match by hand."))
        return redirect("tournaments:manage", pk=tournament.pk)
    try:
        services.match_settle(
            match_id=match.pk,
            by=request.user,
            winner_entry_id=form.cleaned_data["winner"],
            reason=form.cleaned_data["reason"],
        )
    except services.TournamentError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Match %(key)s is settled.") % {"key": match.key})
    return redirect("tournaments:manage", pk=tournament.pk)


@login_required
@require_POST
def seeds_set(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _managed(request, pk)
    entries = list(services.active_entries(tournament))
    wanted: list[tuple[int, int]] = []
    for entry in entries:
        value = request.POST.get(f"seed_{entry.pk}", "").strip()
        if not value.isdigit():
            messages.error(request, _("Give every entrant a seed number."))
            return redirect("tournaments:manage", pk=tournament.pk)
        wanted.append((int(value), entry.pk))
    order = [entry_id for _seed, entry_id in sorted(wanted)]
    if len({seed for seed, _e in wanted}) != len(wanted):
        messages.error(request, _("Give every entrant a different seed."))
        return redirect("tournaments:manage", pk=tournament.pk)
    try:
        services.entry_seeds_set(tournament_id=tournament.pk, by=request.user, order=order)
    except services.TournamentError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("The seeding is saved."))
    return redirect("tournaments:manage", pk=tournament.pk)


@login_required
@require_POST
def arena_pause(request: HttpRequest, pk: int) -> HttpResponse:
    paused = request.POST.get("paused") != "0"
    return _act(
        request,
        pk,
        lambda: arenas.arena_pause(tournament_id=pk, user=request.user, paused=paused),
        _("Paused: you keep your points; come back whenever you like.")
        if paused
        else _("Welcome back: you are in the next pairing."),
    )


@login_required
@require_POST
def arena_berserk(request: HttpRequest, pk: int) -> HttpResponse:
    return _act(
        request,
        pk,
        lambda: arenas.arena_berserk(tournament_id=pk, user=request.user),
        _("Berserk: your clock is halved, and a win scores 1 point more."),
    )


# --- organizer tools: a message to everyone in the event, CSV files ---------------------------


@login_required
@require_POST
def message_send(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _managed(request, pk)
    form = MessageForm(request.POST)
    text = form.cleaned_data["text"] if form.is_valid() else request.POST.get("text", "")
    try:
        sent = organizer.entrants_message(tournament_id=tournament.pk, by=request.user, text=text)
    except services.TournamentError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            ngettext(
                "Sent to the %(n)s player in the event.",
                "Sent to the %(n)s players in the event.",
                sent.recipients,
            )
            % {"n": sent.recipients},
        )
    return redirect("tournaments:manage", pk=tournament.pk)


@login_required
def message_card(request: HttpRequest, pk: int, message_id: int) -> HttpResponse:
    """The notice card of an organizers' message (fetched by static/js/notices.js)."""
    message = get_object_or_404(
        TournamentMessage.objects.select_related("tournament", "sender"),
        pk=message_id,
        tournament_id=pk,
    )
    if not organizer.may_read(message, request.user):
        raise Http404("not in this event")
    return render(request, "tournaments/_message_card.html", {"message": message})


def _csv_response(tournament: Tournament, what: str, body: str) -> HttpResponse:
    response = HttpResponse(body, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="event-{tournament.pk}-{what}.csv"'
    return response


@login_required
def export_entrants(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _managed(request, pk)
    return _csv_response(tournament, "entrants", organizer.entrants_csv(tournament))


@login_required
def export_games(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _managed(request, pk)
    return _csv_response(tournament, "games", organizer.games_csv(tournament))
