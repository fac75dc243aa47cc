"""The leaderboards: one page per pool."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from ratings import selectors
from ratings.pools import Pool


@login_required
def leaderboard(request: HttpRequest, pool: str = Pool.ALLFIVES_1V1.value) -> HttpResponse:
    if pool not in Pool.values:
        raise Http404("no such pool")
    context = {
        "pool": Pool(pool),
        "pools": list(Pool),
        "top": selectors.leaderboard(pool),
        "climbers": selectors.climbers(pool),
        "standing": selectors.standing(request.user, pool),
        "min_games": selectors.LEADERBOARD_MIN_GAMES,
        "active_days": selectors.LEADERBOARD_ACTIVE_DAYS,
        "climb_days": selectors.CLIMBERS_DAYS,
    }
    return render(request, "ratings/leaderboard.html", context)
