"""Social pages: online now, friends, challenges (send, answer, withdraw), the preference.

Every answer is a POST. A page's script posts with `X-Requested-With: fetch` and gets JSON
(`{"ok": true, "url": ...}` or `{"ok": false, "message": ...}`, 409 for a refusal); without the
script the same forms redirect, the refusal shown as a message."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.bots import web_play_refusal
from accounts.models import User
from accounts.services import AccountNotAllowed
from engine import SettingsError
from ledger.services import LedgerError
from social import selectors, services
from social.forms import ChallengeForm, ChallengePreferenceForm
from social.models import Challenge
from social.terms import challenge_terms
from tables.forms import mode_rules_data


def _wants_json(request: HttpRequest) -> bool:
    return request.headers.get("X-Requested-With") == "fetch"


def _back(request: HttpRequest, default: str) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure()):
        return target
    return default


def _refused(request: HttpRequest, exc: services.SocialError, default: str) -> HttpResponse:
    if _wants_json(request):
        return JsonResponse({"ok": False, "code": exc.code, "message": exc.message}, status=409)
    messages.error(request, exc.message)
    return redirect(_back(request, default))


def _player(pk: int) -> User:
    player = get_object_or_404(User, pk=pk, is_active=True)
    return player


@login_required
def online(request: HttpRequest) -> HttpResponse:
    players, more = selectors.online_players(request.user)
    return render(
        request,
        "social/online.html",
        {"players": players, "more": more, "friends_online": sum(p.friend for p in players)},
    )


@login_required
def friends(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "social/friends.html",
        {
            "friends": selectors.friends_of(request.user),
            "followers": selectors.follower_count(request.user),
        },
    )


@login_required
@require_POST
def follow(request: HttpRequest, pk: int) -> HttpResponse:
    player = _player(pk)
    default = reverse("accounts:profile", args=[pk])
    try:
        if request.POST.get("follow") == "0":
            services.unfollow(follower=request.user, followed=player)
            text = _("You no longer follow %(name)s.") % {"name": player.display_name}
        else:
            services.follow(follower=request.user, followed=player)
            text = _("You follow %(name)s: they are among your friends.") % {
                "name": player.display_name
            }
    except services.SocialError as exc:
        return _refused(request, exc, default)
    if _wants_json(request):
        return JsonResponse({"ok": True, "message": text})
    messages.success(request, text)
    return redirect(_back(request, default))


@login_required
def challenge_new(request: HttpRequest, pk: int) -> HttpResponse:
    """The challenge form: the create-table form, addressed to one player."""
    player = _player(pk)
    refusal = services.challenge_refusal(request.user, player)
    bot_refusal = web_play_refusal(request.user)
    if bot_refusal is not None:  # a bot account challenges through the API only
        refusal = services.SocialError("bot_api_only", bot_refusal)
    form = ChallengeForm(request.POST or None)
    if request.method == "POST" and refusal is None and form.is_valid():
        try:
            challenge = services.challenge_send(
                challenger=request.user,
                challenged=player,
                mode=form.cleaned_data["mode"],
                options=form.cleaned_options,
                on_leave=form.cleaned_data.get("on_leave") or "wait",
                private=form.cleaned_data["private"],
                rated=not form.cleaned_data.get("casual"),
                stake=form.stake_spec,
            )
        except services.SocialError as exc:
            form.add_error(None, exc.message)
        except SettingsError as exc:  # the form checked; belt and braces
            form.add_error(None, str(exc))
        except LedgerError as exc:  # a stake the challenger cannot cover, or refused
            form.add_stake_refusal(exc)
        except AccountNotAllowed as exc:
            form.add_error(None, exc.message)
        else:
            return redirect("social:challenge", pk=challenge.pk)
    context = {
        "player": player,
        "form": form,
        "refusal": refusal,
        "mode_rules": mode_rules_data(),
        "seconds": services.CHALLENGE_SECONDS,
    }
    status = 400 if form.errors else 409 if refusal is not None else 200
    return render(request, "social/challenge_new.html", context, status=status)


def _own_challenge(request: HttpRequest, pk: int) -> Challenge:
    challenge = (
        Challenge.objects.select_related("challenger", "challenged", "table").filter(pk=pk).first()
    )
    if challenge is None or request.user.pk not in (
        challenge.challenger_id,
        challenge.challenged_id,
    ):
        raise Http404(_("There is no such challenge."))
    return challenge


def _challenge_context(request: HttpRequest, challenge: Challenge) -> dict[str, object]:
    return {
        "challenge": challenge,
        "terms": challenge_terms(challenge),
        "pending": selectors.is_pending(challenge),
        "mine": challenge.challenger_id == request.user.pk,
        "expires_ms": int(challenge.expires_at.timestamp() * 1000),
    }


@login_required
def challenge(request: HttpRequest, pk: int) -> HttpResponse:
    """One challenge, for either player: waiting (with its countdown), or how it ended."""
    found = _own_challenge(request, pk)
    return render(request, "social/challenge.html", _challenge_context(request, found))


@login_required
def challenge_card(request: HttpRequest, pk: int) -> HttpResponse:
    """The notice's body, rendered for its reader in the page's language (fetched by the
    notices script when a notice about this challenge arrives)."""
    found = _own_challenge(request, pk)
    context = _challenge_context(request, found)
    context["next"] = _back(request, reverse("home"))
    return render(request, "social/_challenge_card.html", context)


@login_required
def challenges(request: HttpRequest) -> HttpResponse:
    return render(request, "social/challenges.html", selectors.challenges_for(request.user))


@login_required
@require_POST
def challenge_accept(request: HttpRequest, pk: int) -> HttpResponse:
    bot_refusal = web_play_refusal(request.user)
    if bot_refusal is not None:  # a bot account accepts through the API only
        return _refused(
            request, services.SocialError("bot_api_only", bot_refusal), reverse("social:challenges")
        )
    try:
        table = services.challenge_accept(challenge_id=pk, user=request.user)
    except services.SocialError as exc:
        return _refused(request, exc, reverse("social:challenges"))
    url = table.get_absolute_url()
    if _wants_json(request):
        return JsonResponse({"ok": True, "url": url})
    return redirect(url)


@login_required
@require_POST
def challenge_decline(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        services.challenge_decline(challenge_id=pk, user=request.user)
    except services.SocialError as exc:
        return _refused(request, exc, reverse("social:challenges"))
    if _wants_json(request):
        return JsonResponse({"ok": True})
    messages.success(request, _("You declined the challenge."))
    return redirect(_back(request, reverse("social:challenges")))


@login_required
@require_POST
def challenge_withdraw(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        services.challenge_withdraw(challenge_id=pk, user=request.user)
    except services.SocialError as exc:
        return _refused(request, exc, reverse("social:challenges"))
    if _wants_json(request):
        return JsonResponse({"ok": True})
    messages.success(request, _("You withdrew the challenge."))
    return redirect(_back(request, reverse("social:challenges")))


@login_required
def preference(request: HttpRequest) -> HttpResponse:
    form = ChallengePreferenceForm(
        request.POST or None,
        initial={
            "challenges_from": services.challenges_from(request.user),
            "games_watchable": services.games_watchable(request.user),
            "bots_rated": services.bots_rated(request.user),
        },
    )
    if request.method == "POST" and form.is_valid():
        services.challenges_from_set(user=request.user, value=form.cleaned_data["challenges_from"])
        services.games_watchable_set(user=request.user, value=form.cleaned_data["games_watchable"])
        services.bots_rated_set(user=request.user, value=form.cleaned_data["bots_rated"])
        messages.success(request, _("Saved: who may challenge you and watch your games."))
        return redirect("social:preference")
    return render(
        request, "social/preference.html", {"form": form}, status=400 if form.errors else 200
    )


@login_required
def watch(request: HttpRequest) -> HttpResponse:
    """Live games anyone may watch, top-rated first (social/watching.py says which)."""
    from social.watching import watch_rows

    return render(
        request,
        "social/watch.html",
        {"rows": watch_rows(request.user), "watchable": services.games_watchable(request.user)},
    )
