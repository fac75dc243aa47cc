"""Template tags for other apps' pages: a profile's Follow / Challenge buttons, a challenge's
card in a list."""

from __future__ import annotations

from typing import Any

from django import template

from social import presence
from social.models import Challenge
from social.selectors import is_pending
from social.services import challenge_refusal, is_following
from social.terms import challenge_terms

register = template.Library()


@register.inclusion_tag("social/_profile_actions.html", takes_context=True)
def profile_social(context: dict[str, Any], player: Any) -> dict[str, Any]:
    """Follow / Unfollow and Challenge on another person's profile; links on one's own."""
    viewer = context.get("user")
    known = viewer is not None and viewer.is_authenticated
    mine = known and viewer.pk == player.pk
    show = known and not mine and not player.is_house_player
    refusal = challenge_refusal(viewer, player) if show else None
    return {
        "request": context.get("request"),
        "csrf_token": context.get("csrf_token"),
        "player": player,
        "social": {
            "show": show,
            "mine": mine,
            "following": show and is_following(viewer.pk, player.pk),
            "online": show and presence.is_online(player.pk),
            "refusal": refusal.message if refusal is not None else "",
        },
    }


@register.inclusion_tag("social/_challenge_card.html", takes_context=True)
def challenge_card(context: dict[str, Any], challenge: Challenge) -> dict[str, Any]:
    user = context["user"]
    return {
        "request": context.get("request"),
        "csrf_token": context.get("csrf_token"),
        "challenge": challenge,
        "terms": challenge_terms(challenge),
        "pending": is_pending(challenge),
        "mine": challenge.challenger_id == user.pk,
        "expires_ms": int(challenge.expires_at.timestamp() * 1000),
        "page": True,
    }
