"""Values every template can use: the site's name and the navigation."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext_lazy as _

# Navigation entries, each shown once its page exists (later apps add their URL names).
NAVIGATION = [
    ("tables:lobby", _("Lobby")),
    ("social:watch", _("Watch")),
    ("tournaments:list", _("Tournaments")),
    ("clubs:list", _("Clubs")),
    ("ratings:leaderboard", _("Leaderboards")),
    ("social:online", _("Players")),
    ("ledger:locker", _("Locker")),
    ("accounts:my_profile", _("Profile")),
    ("rules", _("Rules")),
]


def _navigation(request: HttpRequest) -> list[dict[str, Any]]:
    items = []
    for name, label in NAVIGATION:
        try:
            url = reverse(name)
        except NoReverseMatch:
            continue
        items.append({"url": url, "label": label, "current": request.path.startswith(url)})
    return items


def _my_games(request: HttpRequest) -> dict[str, Any] | None:
    """The header's "My games": where it leads and how many of the player's tables are waiting
    or being played (one count query; nothing for a visitor)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return None
    try:
        url = reverse("my_games")
    except NoReverseMatch:
        return None
    from tables.lobby import LIVE
    from tables.models import Seat

    count = Seat.objects.filter(user=user, table__status__in=LIVE).count()
    return {"url": url, "count": count, "current": request.path == url}


def site(request: HttpRequest) -> dict[str, Any]:
    return {
        "site_name": "Dominologist",
        "navigation": _navigation(request),
        "my_games": _my_games(request),
        "support_email": settings.SUPPORT_EMAIL,  # how players reach the staff
    }
