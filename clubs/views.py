"""Club pages: the list (search, and the form to found one), a club's page (its members, the
leaders' answers and controls, its leaderboard, other apps' panels), the leaders' edit page,
and the card a notice fetches. Views parse input and call one service; the services hold every
rule. Every change is a POST that comes back to the club's page, its refusal shown as a message."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.models import User
from clubs import panels, selectors, services
from clubs.forms import ClubEditForm, ClubFoundForm, ClubSearchForm
from clubs.models import Club, Policy
from ratings.pools import Pool


def _club(slug: str) -> Club:
    return get_object_or_404(Club.objects.select_related("founded_by"), slug=slug)


def _list_context(request: HttpRequest, form: ClubFoundForm) -> dict[str, Any]:
    search = ClubSearchForm(request.GET or None)
    query = search.cleaned_data["q"].strip() if search.is_valid() else ""
    rows, more = selectors.club_rows(request.user, query=query)
    return {
        "rows": rows,
        "more": more,
        "query": query,
        "search": search,
        "form": form,
        "mine": selectors.clubs_of(request.user),
        "max_founded": services.MAX_CLUBS_FOUNDED,
    }


@login_required
def club_list(request: HttpRequest) -> HttpResponse:
    """The clubs (searched by name), the player's own, and the form to found one (posted
    here: a refusal is shown on its field, with the list around it)."""
    form = ClubFoundForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            club = services.club_found(
                user=request.user,
                name=form.cleaned_data["name"],
                description=form.cleaned_data["description"],
                policy=form.cleaned_data["policy"],
            )
        except services.ClubError as exc:
            form.add_error(exc.field, exc.message)
        else:
            messages.success(
                request, _("You founded %(club)s: you are its leader.") % {"club": club.name}
            )
            return redirect(club)
    status = 400 if form.errors else 200
    return render(request, "clubs/list.html", _list_context(request, form), status=status)


@login_required
def club_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """A club's page; `?pool=` chooses its leaderboard's rating pool."""
    club = _club(slug)
    context = selectors.club_page(club, request.user)
    chosen = request.GET.get("pool", "")
    pool = Pool(chosen) if chosen in Pool.values else selectors.pool_default(club)
    context.update(
        {
            "board": selectors.club_leaderboard(club, pool.value),
            "pools": list(Pool),
            "panels": panels.panels_render(request, club),
            "policies": Policy,
        }
    )
    return render(request, "clubs/detail.html", context)


@login_required
def club_edit(request: HttpRequest, slug: str) -> HttpResponse:
    """A leader's page to change the club's description and who may join."""
    club = _club(slug)
    if not selectors.is_leader(club.pk, request.user):
        messages.error(request, _("Only the club's leaders can do that."))
        return redirect(club)
    form = ClubEditForm(
        request.POST or None, initial={"description": club.description, "policy": club.policy}
    )
    if request.method == "POST" and form.is_valid():
        try:
            services.club_update(
                club_id=club.pk,
                by=request.user,
                description=form.cleaned_data["description"],
                policy=form.cleaned_data["policy"],
            )
        except services.ClubError as exc:
            form.add_error(exc.field, exc.message)
        else:
            messages.success(request, _("The club is saved."))
            return redirect(club)
    status = 400 if form.errors else 200
    return render(request, "clubs/edit.html", {"club": club, "form": form}, status=status)


def _wants_json(request: HttpRequest) -> bool:
    return request.headers.get("X-Requested-With") == "fetch"


def _shown_on(request: HttpRequest) -> str:
    """The page a notice card was shown on (its `next`), when it is a page of this site."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure()):
        return target
    return ""


def _act(request: HttpRequest, club: Club, action: Callable[[], Any], done: str) -> HttpResponse:
    try:
        action()
    except services.ClubError as exc:
        if _wants_json(request):
            return JsonResponse({"ok": False, "code": exc.code, "message": exc.message}, status=409)
        messages.error(request, exc.message)
    else:
        if _wants_json(request):
            # A card on the club's own page: the page loads again, showing the change.
            shown_on = _shown_on(request)
            on_club = shown_on.split("?")[0].split("#")[0] == club.get_absolute_url()
            return JsonResponse({"ok": True, **({"url": shown_on} if on_club else {})})
        messages.success(request, done)
    return redirect(club)


@login_required
@require_POST
def join(request: HttpRequest, slug: str) -> HttpResponse:
    club = _club(slug)
    try:
        membership = services.club_join(club_id=club.pk, user=request.user)
    except services.ClubError as exc:
        messages.error(request, exc.message)
        return redirect(club)
    if membership.status == membership.Status.REQUESTED:
        text = _("You asked to join %(club)s: its leaders will answer.")
    elif membership.is_leader:
        text = _("You joined %(club)s. It had no members: you are its leader.")
    else:
        text = _("You are a member of %(club)s.")
    messages.success(request, text % {"club": club.name})
    return redirect(club)


@login_required
@require_POST
def leave(request: HttpRequest, slug: str) -> HttpResponse:
    club = _club(slug)
    try:
        was_member = services.club_leave(club_id=club.pk, user=request.user)
    except services.ClubError as exc:
        messages.error(request, exc.message)
        return redirect(club)
    if was_member:
        text = _("You left %(club)s.")
    else:
        text = _("You withdrew your request to join %(club)s.")
    messages.success(request, text % {"club": club.name})
    return redirect(club)


def _member(user_id: int) -> User:
    return get_object_or_404(User, pk=user_id)


@login_required
@require_POST
def approve(request: HttpRequest, slug: str, user_id: int) -> HttpResponse:
    club, player = _club(slug), _member(user_id)
    return _act(
        request,
        club,
        lambda: services.membership_approve(club_id=club.pk, member_id=player.pk, by=request.user),
        _("%(name)s is a member now.") % {"name": player.shown_name},
    )


@login_required
@require_POST
def decline(request: HttpRequest, slug: str, user_id: int) -> HttpResponse:
    club, player = _club(slug), _member(user_id)
    return _act(
        request,
        club,
        lambda: services.membership_decline(club_id=club.pk, member_id=player.pk, by=request.user),
        _("You declined %(name)s's request.") % {"name": player.shown_name},
    )


@login_required
@require_POST
def appoint(request: HttpRequest, slug: str, user_id: int) -> HttpResponse:
    club, player = _club(slug), _member(user_id)
    return _act(
        request,
        club,
        lambda: services.leader_appoint(club_id=club.pk, member_id=player.pk, by=request.user),
        _("%(name)s is a leader now.") % {"name": player.shown_name},
    )


@login_required
@require_POST
def remove(request: HttpRequest, slug: str, user_id: int) -> HttpResponse:
    club, player = _club(slug), _member(user_id)
    return _act(
        request,
        club,
        lambda: services.member_remove(club_id=club.pk, member_id=player.pk, by=request.user),
        _("%(name)s is no longer a member.") % {"name": player.shown_name},
    )


@login_required
def notice_card(request: HttpRequest, slug: str) -> HttpResponse:
    """A notice's card for the notices region of any page (fetched by static/js/notices.js):
    `?about=request&player=<id>` for a leader while that player's request waits (with Approve
    and Decline), `?about=joined` for a player let in. 204 when there is nothing to say to this
    reader any more (answered, withdrawn, or not theirs)."""
    club = _club(slug)
    about = request.GET.get("about", "")
    page = selectors.club_page(club, request.user)
    context: dict[str, Any] = {**page, "about": about, "next": _shown_on(request)}
    if about == "request" and page["leading"]:
        player = request.GET.get("player", "")
        waiting = [m for m in page["requests"] if str(m.user_id) == player]
        if waiting:
            return render(request, "clubs/_notice_card.html", {**context, "asking": waiting[0]})
    elif about == "joined" and page["place"] in ("member", "leader"):
        return render(request, "clubs/_notice_card.html", context)
    return HttpResponse(status=204)
