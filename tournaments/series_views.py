"""Series pages: the list, a series' page, the organizer's form and buttons, and the notice
card a follower gets when an event's registration opens. Views parse input and call one
service (`tournaments.series`)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.models import User
from tournaments import series as services
from tournaments import series_selectors as selectors
from tournaments.forms import OccurrenceCancelForm, SeriesForm
from tournaments.models import Series, Tournament
from tournaments.services import TournamentError, registration_open
from tournaments.views import _act as act
from tournaments.views import club_asked, creator_only


def _managed(request: HttpRequest, pk: int) -> Series:
    series = get_object_or_404(Series, pk=pk)
    if not services.may_manage_series(request.user, series):
        raise Http404("no such series")
    return series


@login_required
def series_list(request: HttpRequest) -> HttpResponse:
    return render(request, "tournaments/series_list.html", selectors.series_list(request.user))


@login_required
def series_detail(request: HttpRequest, pk: int) -> HttpResponse:
    series = get_object_or_404(Series.objects.select_related("organizer"), pk=pk)
    return render(
        request, "tournaments/series_detail.html", selectors.series_page(series, request.user)
    )


@login_required
def series_new(request: HttpRequest) -> HttpResponse:
    creator_only(request)
    form = SeriesForm(
        request.POST or None,
        time_zone=timezone.get_current_timezone_name(),
        user=request.user,
        club=club_asked(request),
    )
    if request.method == "POST" and form.is_valid():
        assert form.series_data is not None
        try:
            series = services.series_create(
                organizer=request.user, **form.owner, **form.series_data
            )
        except TournamentError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(
                request,
                _("The series runs: each event opens for registration on its own."),
            )
            return redirect("tournaments:series", pk=series.pk)
    return render(
        request,
        "tournaments/series_form.html",
        {"form": form, "editing": None},
        status=400 if form.errors else 200,
    )


@login_required
def series_edit(request: HttpRequest, pk: int) -> HttpResponse:
    series = _managed(request, pk)
    form = SeriesForm(request.POST or None, series=series, user=request.user)
    if request.method == "POST" and form.is_valid():
        assert form.series_data is not None
        try:
            services.series_update(series_id=series.pk, by=request.user, **form.series_data)
        except TournamentError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(request, _("Saved. The events not opened yet follow the change."))
            return redirect("tournaments:series", pk=series.pk)
    return render(
        request,
        "tournaments/series_form.html",
        {"form": form, "editing": series},
        status=400 if form.errors else 200,
    )


def _act(request: HttpRequest, pk: int, action: Any, done: str) -> HttpResponse:
    return act(request, pk, action, done, to="tournaments:series")


@login_required
@require_POST
def series_pause(request: HttpRequest, pk: int) -> HttpResponse:
    return _act(
        request,
        pk,
        lambda: services.series_pause(series_id=pk, by=request.user),
        _("Paused: no new events until you resume it."),
    )


@login_required
@require_POST
def series_resume(request: HttpRequest, pk: int) -> HttpResponse:
    return _act(
        request,
        pk,
        lambda: services.series_resume(series_id=pk, by=request.user),
        _("Running again."),
    )


@login_required
@require_POST
def series_end(request: HttpRequest, pk: int) -> HttpResponse:
    return _act(
        request,
        pk,
        lambda: services.series_end(series_id=pk, by=request.user),
        _("The series has ended. The events already open go ahead."),
    )


@login_required
@require_POST
def series_follow(request: HttpRequest, pk: int) -> HttpResponse:
    follow = request.POST.get("follow") != "0"
    return _act(
        request,
        pk,
        lambda: services.series_follow(series_id=pk, user=request.user, follow=follow),
        _("You follow this series: you are told when each event opens.")
        if follow
        else _("You no longer follow this series."),
    )


@login_required
@require_POST
def co_organizer(request: HttpRequest, pk: int) -> HttpResponse:
    series = _managed(request, pk)
    name = (request.POST.get("player") or "").strip()
    user = User.objects.filter(display_name__iexact=name, is_active=True).first()
    if request.POST.get("remove"):
        user = User.objects.filter(pk=request.POST.get("remove")).first()
        if user is None:
            raise Http404("no such player")
        return _act(
            request,
            series.pk,
            lambda: services.co_organizer_remove(series_id=series.pk, by=request.user, user=user),
            _("%(name)s no longer organizes this series.") % {"name": user.display_name},
        )
    return _act(
        request,
        series.pk,
        lambda: services.co_organizer_add(series_id=series.pk, by=request.user, user=user),
        _("%(name)s now organizes this series with you.") % {"name": name},
    )


@login_required
def occurrence_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    """GET ?occurrence=<ISO time>: the confirmation, asking why; POST: the cancellation."""
    series = _managed(request, pk)
    if request.method == "POST":
        form = OccurrenceCancelForm(request.POST)
        if form.is_valid():
            try:
                services.occurrence_cancel(
                    series_id=series.pk,
                    by=request.user,
                    occurrence=form.cleaned_data["occurrence"],
                    reason=form.cleaned_data["reason"],
                )
            except TournamentError as exc:
                form.add_error(exc.field if exc.field in form.fields else None, exc.message)
            else:
                messages.success(
                    request, _("That event is cancelled; any fees paid are given back.")
                )
                return redirect("tournaments:series", pk=series.pk)
        occurrence = form.cleaned_data.get("occurrence")
        status = 400
    else:
        occurrence = parse_datetime(request.GET.get("occurrence") or "")
        if occurrence is None or timezone.is_naive(occurrence):
            raise Http404("no such occurrence")
        form = OccurrenceCancelForm(initial={"occurrence": occurrence.isoformat()})
        status = 200
    return render(
        request,
        "tournaments/series_cancel.html",
        {"series": series, "form": form, "occurrence": occurrence},
        status=status,
    )


@login_required
def series_notice(request: HttpRequest, pk: int, tournament_id: int) -> HttpResponse:
    """The notice card of an event of a followed series that opened for registration (fetched
    by static/js/notices.js); 204 once registration is no longer open or the player entered."""
    event = get_object_or_404(
        Tournament.objects.select_related("series"), pk=tournament_id, series_id=pk
    )
    entered = event.entries.filter(player=request.user, withdrawn_at__isnull=True).exists()
    if entered or not registration_open(event, timezone.now()):
        return HttpResponse(status=204)
    return render(request, "tournaments/_series_notice_card.html", {"event": event})
