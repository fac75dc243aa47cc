"""The house's own pages: home and the rules."""

from django.contrib.auth.decorators import login_required
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


@login_required
def my_games(request: HttpRequest) -> HttpResponse:
    """The player's games in progress (a way back to each table) and their finished games (the
    game page and the Shark's review of each), one tap from any page."""
    from history.selectors import player_history

    return render(
        request,
        "my_games.html",
        {
            "my_tables": player_tables(request.user),
            "player": request.user,
            "history": player_history(request.user, request.user, request.GET.get("games")),
        },
    )


def rules(request: HttpRequest) -> HttpResponse:
    return render(request, "rules.html")
