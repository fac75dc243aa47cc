"""Read models of a table: its public picture, each seat's view of the game, the event log."""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings as django_settings
from django.urls import reverse

from engine import GameState, public_view, seat_view
from tables.models import Game, Table, TableEvent

#: A client further behind than this many events gets a snapshot instead of the events.
MAX_REPLAY = 200


def live_game(table: Table) -> Game | None:
    return (
        table.games.filter(status__in=[Game.Status.WAITING, Game.Status.PLAYING])
        .order_by("-number")
        .first()
        or table.games.order_by("-number").first()
    )


def table_picture(table: Table, game: Game | None) -> dict[str, Any]:
    """What anyone at or watching the table sees of it, apart from the game.

    Every field changes only with an event (a new `seq`), so two pictures at one event number
    are the same. The watcher count is not in it (it changes with no event: the answer to hello
    and the `watchers` message carry it), nor the game's version (the game view has it)."""
    from tables.presence import online_users

    seats = list(table.seats.select_related("user").order_by("number"))
    hand = game.hands.filter(dealt_at=None).order_by("number").first() if game else None
    online = online_users(table.pk)
    return {
        "id": table.pk,
        "mode": table.mode,
        "title": table.get_mode_display(),
        "status": table.status,
        "host": table.host_id,
        "private": table.private,
        "settings": table.settings,
        "seats": [
            {
                "number": s.number,
                "player": None if s.user is None else player_of(s.user),
                "ready": s.ready,
                "online": s.user_id in online or bool(s.user and s.user.house_level),
                "grace_until": None
                if s.grace_until is None
                else int(s.grace_until.timestamp() * 1000),
                "left_on_purpose": s.left_on_purpose,
                "rematch": s.rematch,
            }
            for s in seats
        ],
        "on_leave": table.on_leave,
        "commitment": None if hand is None else {"hand": hand.number, "sha256": hand.commitment},
        "game_number": None if game is None else game.number,
        "game_url": None if game is None else reverse("history:game", args=[game.pk]),
    }


def player_of(user: Any) -> dict[str, Any]:
    """A seated player as everyone sees them; `house` names a house player's level (a bot)."""
    return {"id": user.pk, "name": user.display_name, "house": user.house_level or None}


def game_view(
    game: Game | None, seat: int | None, state: GameState | None = None
) -> dict[str, Any] | None:
    """The engine's view of the game for a seat (or a spectator when `seat` is None)."""
    if game is None or game.status == Game.Status.WAITING:
        return None
    state = state or GameState.from_json(game.state)
    view = public_view(state) if seat is None else seat_view(state, seat)
    view["version"] = game.version
    view["clock"] = clock_view(game, state)
    return view


def clock_view(game: Game, state: GameState) -> dict[str, Any] | None:
    """The turn clock as clients draw it: the server's deadline (epoch milliseconds), the full
    clock and the grace; clients pair it with the server time each message carries."""
    seconds = state.settings.clock
    if seconds is None:
        return None
    deadline = game.deadline
    return {
        "seconds": seconds,
        "deadline": None if deadline is None else int(deadline.timestamp() * 1000),
        "grace_ms": django_settings.GYM_CLOCK_GRACE_MS,
    }


def server_time() -> int:
    """The server's clock in epoch milliseconds, sent with every message to a table."""
    return int(time.time() * 1000)


def seat_number(table: Table, game: Game | None, user_id: int | None) -> int | None:
    """The seat this user plays at this table (from the game once it has started)."""
    if user_id is None:
        return None
    if game is not None and game.status != Game.Status.WAITING and user_id in game.players:
        return list(game.players).index(user_id)
    return table.seats.filter(user_id=user_id).values_list("number", flat=True).first()


def events_since(table: Table, last_seq: int, seat: int | None) -> list[dict[str, Any]] | None:
    """The events after `last_seq` as `seat` may see them; None when too far behind to replay."""
    if last_seq > table.seq or table.seq - last_seq > MAX_REPLAY:
        return None
    rows = list(TableEvent.objects.filter(table=table, seq__gt=last_seq).order_by("seq"))
    if len(rows) != table.seq - last_seq:
        return None
    return [{"seq": row.seq, "events": row.for_seat(seat)} for row in rows]
