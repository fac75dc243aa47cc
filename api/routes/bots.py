"""Becoming a bot account (docs/api.md, "Bot accounts")."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import gettext_noop
from ninja import Field, Router, Schema

from api.access import ApiError, caller, needs
from api.bots import BotError, bot_upgrade
from api.schemas import Problem

router = Router(tags=["Bots"])
REFUSALS: dict[int | str, Any] = {401: Problem, 403: Problem, 409: Problem, 429: Problem}


class BotAccount(Schema):
    id: int
    name: str
    bot: bool = Field(description="Always true: the account is a bot account now, for good.")
    bot_since: dt.datetime = Field(description="When the account became a bot.")
    url: str = Field(description="The account's profile page (marked BOT).")


@router.post(
    "/account/upgrade",
    response={200: BotAccount, **REFUSALS},
    auth=needs("play"),
    summary=gettext_noop("Make your account a bot account"),
    description=gettext_noop(
        "For good: a bot account plays only through the API, is marked BOT wherever its name "
        "shows, and never goes back. Only an account that has never played a game may become "
        "one (409 has_played), and never a staff account (409 staff) or a house player (409 "
        "house_player). Upgrading a bot again: 409 already_bot."
    ),
)
def upgrade(request: HttpRequest) -> dict[str, Any]:
    try:
        user = bot_upgrade(caller(request).user)
    except BotError as exc:
        raise ApiError(409, exc.code, exc.message) from exc
    return {
        "id": user.pk,
        "name": user.shown_name,
        "bot": user.bot,
        "bot_since": user.bot_since,
        "url": reverse("accounts:profile", args=[user.pk]),
    }
