"""The coach on pages it does not own: the review in a game's replay, the Hint at a practice
table. The game and table pages load these tags; their apps never import the coach."""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import reverse

from coach import selectors, services, words
from coach.models import Review
from tables.models import Game, Table

register = template.Library()


@register.inclusion_tag("coach/_review.html", takes_context=True)
def review_panel(context: dict[str, Any], game: Game) -> dict[str, Any]:
    """A player's review of their own play in this game: the button to ask for it, its progress,
    or the review itself. Nothing for anyone who did not sit in the game."""
    request = context.get("request")
    user = getattr(request, "user", None)
    seat = services.seat_of(game, user) if user is not None and user.is_authenticated else None
    if seat is None:
        return {"show": False}
    review = selectors.review_of(game, user)
    payload = selectors.review_payload(review) if review is not None else None
    return {
        "show": True,
        "request": request,
        "game": game,
        "finished": game.status == Game.Status.FINISHED,
        "review": review,
        "payload": payload,
        "strings": words.review_strings(),
        "cost_percent": round(services.COST_SCALE * 100),
    }


@register.inclusion_tag("coach/_hint.html", takes_context=True)
def hint_box(context: dict[str, Any], table: Table) -> dict[str, Any]:
    """The Hint button, for the person seated at their practice table only."""
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"show": False}
    game = table.games.filter(status=Game.Status.PLAYING).order_by("-number").first()
    if game is None or services.seat_of(game, user) is None:
        return {"show": False}
    if not services.is_practice(table, game, user):
        return {"show": False}
    return {"show": True, "request": request, "table": table}


@register.simple_tag(takes_context=True)
def review_links(context: dict[str, Any], games: list[dict[str, Any]]) -> str:
    """For a list of a player's games (history.selectors.player_history's rows): mark each one
    the reader played and that is over with its review, `row["review"]` = {"url", "status"}
    (the status "none" until asked for). Two queries for the whole list; writes nothing."""
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated or not games:
        return ""
    ids = [row["game_id"] for row in games]
    mine = {
        pk
        for pk, players in Game.objects.filter(pk__in=ids, status=Game.Status.FINISHED).values_list(
            "pk", "players"
        )
        if user.pk in (players or [])
    }
    statuses = dict(
        Review.objects.filter(user=user, game_id__in=mine).values_list("game_id", "status")
    )
    for row in games:
        if row["game_id"] in mine:
            row["review"] = {
                "url": reverse("history:game", args=[row["game_id"]]) + "#review",
                "status": statuses.get(row["game_id"], "none"),
            }
    return ""
