"""The game page (hands, plays, counts, replay, deal checks) and its plain-text export."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse

from history import selectors
from tables.models import Game


def _game_for(request: HttpRequest, game_id: int) -> Game:
    game = get_object_or_404(Game.objects.select_related("table"), pk=game_id)
    if not selectors.may_view_game(request.user, game):
        raise Http404("no such game")
    return game


@login_required
def game_page(request: HttpRequest, game_id: int) -> HttpResponse:
    game = _game_for(request, game_id)
    context = selectors.game_page(game)
    context["share_url"] = request.build_absolute_uri(reverse("history:game", args=[game.pk]))
    return render(request, "history/game.html", context)


@login_required
def game_export(request: HttpRequest, game_id: int) -> HttpResponse:
    game = _game_for(request, game_id)
    url = request.build_absolute_uri(reverse("history:game", args=[game.pk]))
    response = HttpResponse(
        selectors.game_export(game, url), content_type="text/plain; charset=utf-8"
    )
    response["Content-Disposition"] = f'inline; filename="dominologist-game-{game.pk}.txt"'
    return response
