"""Asking for a review and following it (JSON for the page's script, a redirect without one),
and the Hint at practice tables."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from coach import selectors, services, words
from tables.models import Game


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _refused(exc: services.CoachRefused) -> JsonResponse:
    return JsonResponse({"code": exc.code, "error": exc.message}, status=exc.status)


@login_required
@require_http_methods(["GET", "POST"])
def review(request: HttpRequest, game_id: int) -> HttpResponse:
    """GET: the player's review of this game (its status; the decisions once done). POST: ask
    for it. Only a player of the game, only once it is over."""
    game = get_object_or_404(Game, pk=game_id)
    if request.method == "POST":
        try:
            row = services.review_request(game_id=game.pk, user=request.user)
        except services.CoachRefused as exc:
            if _wants_json(request):
                return _refused(exc)
            from django.contrib import messages

            messages.error(request, exc.message)
            return redirect(reverse("history:game", args=[game.pk]))
        if not _wants_json(request):
            return redirect(reverse("history:game", args=[game.pk]) + "#review")
        row.refresh_from_db()
        return JsonResponse(selectors.review_payload(row), status=202)
    if services.seat_of(game, request.user) is None:
        return _refused(
            services.CoachRefused("not_a_player", words.not_a_player_words(), status=403)
        )
    row = selectors.review_of(game, request.user)
    if row is None:
        return JsonResponse({"status": "none"}, status=404)
    return JsonResponse(selectors.review_payload(row))


@login_required
@require_POST
def hint(request: HttpRequest, table_id: int) -> HttpResponse:
    """The Shark's preferred move for the player to act at a practice table, and why."""
    try:
        given = services.hint_give(table_id=table_id, user=request.user)
    except services.CoachRefused as exc:
        return _refused(exc)
    game = Game.objects.get(pk=given["game_id"])
    names = selectors.seat_names(game)
    shown = words.hint_words(given["facts"], names)
    action = given["action"]
    return JsonResponse(
        {
            "version": given["version"],
            "action": action,
            "bone": action.get("bone"),
            "end": action.get("end"),
            "move": shown["move"],
            "reason": shown["reason"],
        }
    )
