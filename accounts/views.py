"""Account pages: sign-up with the age gate, the profile pages and the language switch."""

from __future__ import annotations

from typing import Any

from allauth.account.views import SignupView as AllauthSignupView
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from django.views.i18n import set_language as django_set_language

from accounts.age_block import block_retries, retry_block_remaining
from accounts.forms import ProfileForm
from accounts.models import ProfileVisibility, User

#: Set in the session a player signed up in: the home page greets them as new, not "back".
NEW_PLAYER_SESSION_KEY = "new_player"


def _blocked_response(request: HttpRequest, remaining: Any) -> HttpResponse:
    hours, rest = divmod(int(remaining.total_seconds()), 3600)
    return render(
        request,
        "account/signup_underage.html",
        {"hours": hours, "minutes": rest // 60},
        status=403,
    )


class SignupView(AllauthSignupView):  # type: ignore[misc]
    """allauth's sign-up, refusing under-18s kindly and blocking retries for 24 hours."""

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        remaining = retry_block_remaining(request)
        if remaining is not None:
            return _blocked_response(request, remaining)
        return super().dispatch(request, *args, **kwargs)

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        self.request.session[NEW_PLAYER_SESSION_KEY] = True
        return response

    def form_invalid(self, form: Any) -> HttpResponse:
        if getattr(form, "under_age", False):
            response = render(
                self.request, "account/signup_underage.html", {"just_refused": True}, status=403
            )
            block_retries(self.request, response)
            return response
        return super().form_invalid(form)


signup = SignupView.as_view()


def profile(request: HttpRequest, pk: int) -> HttpResponse:
    from gym.selectors import workouts_for_profile
    from history.selectors import player_history

    player = get_object_or_404(User, pk=pk, is_active=True)
    if not player.profile_visible_to(request.user):
        # Neither the name nor anything else of a profile its player keeps from this viewer.
        return render(
            request,
            "accounts/profile_refused.html",
            {"players_only": player.profile_visibility == ProfileVisibility.PLAYERS},
            status=403,
        )
    context = {"player": player, "workouts": workouts_for_profile(player, request.user)}
    context["history"] = player_history(player, request.user, request.GET.get("games"))
    return render(request, "accounts/profile.html", context)


@login_required
def profile_edit(request: HttpRequest) -> HttpResponse:
    form = ProfileForm(request.POST or None, instance=request.user)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, _("Your profile is saved."))
        response = redirect("accounts:profile", pk=request.user.pk)
        _remember_language(response, form.cleaned_data["language"])
        return response
    return render(
        request, "accounts/profile_edit.html", {"form": form}, status=400 if form.errors else 200
    )


@login_required
def my_profile(request: HttpRequest) -> HttpResponse:
    return redirect("accounts:profile", pk=request.user.pk)


def _remember_language(response: HttpResponse, language: str) -> None:
    from django.conf import settings

    response.set_cookie(settings.LANGUAGE_COOKIE_NAME, language, max_age=365 * 24 * 3600)


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """Django's language switch, also saving the choice on a logged-in player's account."""
    response = django_set_language(request)
    language = request.POST.get("language", "")
    if request.user.is_authenticated and language in ("en", "es"):
        User.objects.filter(pk=request.user.pk).update(language=language)
    return response
