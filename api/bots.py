"""Bot accounts (docs/api.md, "Bot accounts"): an account with no games may become a bot, for
good. A bot plays only through the API: the table socket and the pages that seat people refuse
it (accounts.bots.web_play_refusal). Whether a bot and a human may play a rated game together is the
human's choice (social.services, `bots_rated`); Play now pairs them only then (pairing)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User

#: The most seats a table has (a game's `players` lists one user id per seat).
MOST_SEATS = 4


class BotError(Exception):
    """A refused upgrade: a stable `code` and words for the player. Nothing changed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def has_played(user_id: int) -> bool:
    """Whether the account has ever sat down to play: a game with it among the players, a
    finished game in its history, or a seat at a table waiting for players or being played."""
    from django.db.models import Q

    from history.models import PlayerGame
    from tables.models import Game, Seat, Table

    if PlayerGame.objects.filter(user_id=user_id).exists():
        return True
    if Seat.objects.filter(
        user_id=user_id, table__status__in=(Table.Status.OPEN, Table.Status.PLAYING)
    ).exists():
        return True
    # `players` is a JSON list of user ids by seat: each seat compared on its own (portable to
    # SQLite and PostgreSQL alike, where `contains` is not).
    anywhere = Q()
    for seat in range(MOST_SEATS):
        anywhere |= Q(**{f"players__{seat}": user_id})
    return Game.objects.filter(anywhere).exists()


def upgrade_refusal(user: Any) -> BotError | None:
    """Why `user` may not become a bot, or None."""
    if user.bot:
        return BotError("already_bot", _("This account is a bot account already."))
    if user.house_level:
        return BotError("house_player", _("House players can't become bot accounts."))
    if user.is_staff or user.is_superuser:
        return BotError("staff", _("Staff accounts can't become bot accounts."))
    if has_played(user.pk):
        return BotError(
            "has_played",
            _(
                "Only an account that has never played a game may become a bot: this one has "
                "played, or sits at a table. Make a new account for your bot."
            ),
        )
    return None


def bot_upgrade(user: Any) -> User:
    """Make `user` a bot account, for good (nothing on the site turns it back). Under the
    account's row lock, and the flag itself set by a compare-and-set: of two upgrades at once,
    one wins and the other is told the account is a bot already. Its open sockets are told the
    account changed (they read it again, and refuse to play from then on). Raises BotError."""
    from dominoes_site.user_sockets import account_changed_on_commit

    with transaction.atomic():
        current = User.objects.select_for_update().get(pk=user.pk)
        refusal = upgrade_refusal(current)
        if refusal is not None:
            raise refusal
        now = timezone.now()
        if not User.objects.filter(pk=user.pk, bot=False).update(bot=True, bot_since=now):
            raise BotError("already_bot", _("This account is a bot account already."))
        account_changed_on_commit(user.pk)
    user.bot, user.bot_since = True, now
    return User.objects.get(pk=user.pk)


def seat_guard(table_id: int, user_id: int, number: int | None, change: str) -> str | None:
    """A seat guard (tables.services.SEAT_GUARDS): at a rated table a bot and a person sit
    together only when the person lets bots play them rated games (social's `bots_rated`),
    whichever of the two sits down last. Casual tables seat anyone."""
    if change != "take":
        return None
    from social.services import bots_rated
    from tables.models import Table

    if not Table.objects.filter(pk=table_id, rated=True).exists():
        return None
    others = list(User.objects.filter(seats__table_id=table_id).exclude(pk=user_id).distinct())
    sitter = User.objects.filter(pk=user_id).first()
    if sitter is None or not others:
        return None
    people = [u for u in [sitter, *others] if not u.bot and not u.house_level]
    if not (sitter.bot or any(u.bot for u in others)):
        return None
    for person in people:
        if not bots_rated(person):
            return _(
                "This table is rated, and %(name)s does not let bots play them rated games "
                "(challenge settings)."
            ) % {"name": person.shown_name}
    return None
