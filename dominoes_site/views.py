"""The house's own pages: home and the rules."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts.views import NEW_PLAYER_SESSION_KEY
from tables.lobby import player_tables


def home(request: HttpRequest) -> HttpResponse:
    """The front page; a signed-in player also finds their games in progress and "Play"."""
    context = {}
    if request.user.is_authenticated:
        context = {
            "my_tables": player_tables(request.user),
            # "Welcome back" only to someone who is back: not in the session they signed up in
            "new_player": bool(request.session.get(NEW_PLAYER_SESSION_KEY)),
        }
    return render(request, "home.html", context)


def rules(request: HttpRequest) -> HttpResponse:
    return render(request, "rules.html")
