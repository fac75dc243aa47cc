"""What the site tells a bot account (docs/api.md, "Bot accounts") that tries to play from its
pages or the table socket: a bot plays only through the API. Here, beside the account's `bot`
flag, so that every app that seats people (tables, pairing, social, house) can ask without
importing the API app above them (docs/architecture.md, the one-way graph); becoming a bot is
api.bots."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _


def api_only_words() -> str:
    """Why a bot account may not play from the site (its pages, the table socket)."""
    return _(
        "This is a bot account: it plays only through the API (docs/api.md), never from the "
        "site's pages. It may watch games here."
    )


def web_play_refusal(user: Any) -> str | None:
    """Words for a bot account logged in on the site that tries to sit down to play (the pages
    and the table socket refuse it; watching is fine), or None for anyone else."""
    return api_only_words() if getattr(user, "bot", False) else None
