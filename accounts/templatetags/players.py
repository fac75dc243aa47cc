"""Players' names on pages, each a link to the player's profile.

`{% player_link user %}` wherever a name is shown (lobby, home, history, tournaments), so that
every name leads to its profile; house players' names are shown in the reader's language
(`User.shown_name`), and a bot account's name is marked BOT (`{% bot_badge user %}` where a name
is shown without a link). `{% game_players game as players %}` then `{% side_links players side
partners %}` name a game's side ("Ana & Bob" for Partners), `{% entry_links entry %}` a
tournament entry (a player, or a player and partner).
"""

from __future__ import annotations

from typing import Any

from django import template
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext

register = template.Library()


@register.filter
def player_name(user: Any) -> str:
    """The name to show for `user` (a house player's in the reader's language)."""
    if user is None:
        return ""
    return str(getattr(user, "shown_name", None) or getattr(user, "display_name", user))


@register.simple_tag
def bot_badge(user: Any) -> SafeString:
    """The BOT mark after a bot account's name (docs/api.md, "Bot accounts"): "BOT" to the
    eye, "(bot)" to a screen reader. Nothing for anyone else. `user` may also be a player as
    JSON carries it (a mapping with "bot")."""
    bot = user.get("bot") if isinstance(user, dict) else getattr(user, "bot", False)
    if not bot:
        return SafeString("")
    return format_html(
        '<span class="badge badge-bot" title="{}"><span aria-hidden="true">{}</span>'
        '<span class="visually-hidden">{}</span></span>',
        gettext("A bot account: a program plays it through the API."),
        gettext("BOT"),
        gettext("(bot)"),
    )


@register.simple_tag
def player_link(user: Any, css: str = "") -> SafeString:
    """The player's name as a link to their profile (nothing for an empty seat), marked BOT
    after it for a bot account."""
    if user is None or getattr(user, "pk", None) is None:
        return SafeString("")
    classes = f"player-link {css}".strip()
    house = " house" if getattr(user, "house_level", "") else ""
    bot = getattr(user, "bot", False)
    return format_html(
        '<a class="{}{}{}" href="{}">{}</a>{}',
        classes,
        house,
        " bot" if bot else "",
        reverse("accounts:profile", args=[user.pk]),
        player_name(user),
        format_html(" {}", bot_badge(user)) if bot else "",
    )


def _joined(users: list[Any]) -> SafeString:
    links = [player_link(u) for u in users if u is not None]
    if len(links) == 2:
        return format_html(gettext("{a} & {b}"), a=links[0], b=links[1])
    return format_html_join(", ", "{}", ((link,) for link in links))


@register.simple_tag
def game_players(game: Any) -> list[Any]:
    """The game's players by seat number (None for an empty seat), in one query."""
    ids = [p for p in (game.players or []) if p is not None]
    users = get_user_model().objects.in_bulk(ids)
    return [users.get(p) if p is not None else None for p in game.players or []]


@register.simple_tag
def side_links(players: list[Any], side: int, partners: bool) -> SafeString:
    """A side's players as links: seats `side` and `side + 2` for Partners, else seat `side`."""
    seats = (side, side + 2) if partners else (side,)
    return _joined([players[s] for s in seats if s < len(players)])


@register.simple_tag
def entry_links(entry: Any) -> SafeString:
    """A tournament entry: its player, and its partner if it has one, as links."""
    if entry is None:
        return SafeString("")
    return _joined([entry.player, getattr(entry, "partner", None)])


@register.simple_tag
def players_links(users: list[Any]) -> SafeString:
    """Several players as links, separated by commas."""
    return format_html_join(", ", "{}", ((player_link(u),) for u in users if u is not None))
