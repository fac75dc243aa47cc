"""Read models of a table: its public picture, each seat's view of the game, the event log."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.conf import settings as django_settings
from django.urls import reverse

from engine import GameState, public_view, seat_view
from tables import stakes
from tables.models import Game, Table, TableEvent

#: A client further behind than this many events gets a snapshot instead of the events.
MAX_REPLAY = 200
#: How many of the latest event numbers a `hello` asking for the `log` gets (a page's move list).
LOG_BATCHES = 120


#: Apps above tables add their part to a table's picture (ratings: each seat's rating and the
#: finished game's rating changes). Each takes (table, game, picture) and adds to the picture in
#: place, from what changes only with an event. Registered from the app's ready(): tables
#: imports none of them.
PICTURE_PARTS: list[Callable[[Table, Game | None, dict[str, Any]], None]] = []


def live_game(table: Table, *, only: tuple[str, ...] = ()) -> Game | None:
    """The table's game being played or waiting to start, else its last one. `only`: read just
    these fields (a game's state is its largest part)."""
    games = table.games.only(*only) if only else table.games.all()
    return (
        games.filter(status__in=[Game.Status.WAITING, Game.Status.PLAYING])
        .order_by("-number")
        .first()
        or games.order_by("-number").first()
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
    picture = {
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
        "clock_halving": table.clock_halving,
        "commitment": None if hand is None else {"hand": hand.number, "sha256": hand.commitment},
        "game_number": None if game is None else game.number,
        "game_url": None if game is None else reverse("history:game", args=[game.pk]),
        "settlement": settlement_of(game),
    }
    for part in PICTURE_PARTS:
        part(table, game, picture)
    return picture


def settlement_of(game: Game | None) -> dict[str, Any] | None:
    """What each seat won or paid when a staked game was settled: per seat, each unit's signed
    amount (what the settlement paid it, less the stake and skunk reserve held from it at the
    start; the stake keeper reads it, tables/stakes.py). None before the settlement, and for a
    game played for nothing."""
    if game is None or game.status != Game.Status.FINISHED:
        return None
    return stakes.keeper().settlement_of(game)


def player_of(user: Any) -> dict[str, Any]:
    """A seated player as everyone sees them; `house` names a house player's level (a bot the
    house runs), `bot` is true for a bot account (a program playing through the API: the page
    marks its name BOT)."""
    return {
        "id": user.pk,
        "name": user.display_name,
        "house": user.house_level or None,
        "bot": bool(getattr(user, "bot", False)),
    }


def game_view(
    game: Game | None,
    seat: int | None,
    state: GameState | None = None,
    public: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    """The engine's view of the game for a seat (or a spectator when `seat` is None).
    `public`: the engine's public view of `state`, when the caller made it already (a move's
    broadcast makes it once for all its audiences)."""
    if game is None or game.status == Game.Status.WAITING:
        return None
    state = state or GameState.from_json(game.state)
    if seat is None:
        view = dict(public) if public is not None else public_view(state)
    else:
        view = seat_view(state, seat, public)
    view["version"] = game.version
    view["clock"] = clock_view(game, state)
    return view


def clock_view(game: Game, state: GameState) -> dict[str, Any] | None:
    """The turn clock as clients draw it: the server's deadline (epoch milliseconds), the full
    clock, when it starts after a hand's summary (`starts`, null when it did not wait), the
    grace, and each seat's own full clock where it differs from the table's (`seats`, by seat
    number: a player who halved theirs); clients pair it with the server time each message
    carries."""
    seconds = state.settings.clock
    if seconds is None:
        return None
    deadline = game.deadline
    starts = game.clock_starts_at
    return {
        "seconds": seconds,
        "deadline": None if deadline is None else int(deadline.timestamp() * 1000),
        "starts": None if starts is None else int(starts.timestamp() * 1000),
        "grace_ms": django_settings.GYM_CLOCK_GRACE_MS,
        "seats": {
            seat: own
            for seat, own in sorted(game.seat_clocks.items(), key=lambda item: int(item[0]))
            if own != seconds
        },
    }


def server_time() -> int:
    """The server's clock in epoch milliseconds, sent with every message to a table."""
    return int(time.time() * 1000)


def seat_number(
    table: Table, game: Game | None, user_id: int | None, picture: dict[str, Any] | None = None
) -> int | None:
    """The seat this user plays at this table (from the game once it has started).
    `picture`: the table's picture at its event number now, when the caller has it (its seats
    are the table's seats then: no read)."""
    if user_id is None:
        return None
    if game is not None and game.status != Game.Status.WAITING and user_id in game.players:
        return list(game.players).index(user_id)
    if picture is not None:
        return next(
            (
                s["number"]
                for s in picture["seats"]
                if s["player"] is not None and s["player"]["id"] == user_id
            ),
            None,
        )
    return table.seats.filter(user_id=user_id).values_list("number", flat=True).first()


def seated_users(picture: dict[str, Any]) -> set[int]:
    """The users holding a seat in a table's picture."""
    return {s["player"]["id"] for s in picture["seats"] if s["player"] is not None}


def events_recent(table_id: int, upto: int, seat: int | None) -> list[dict[str, Any]]:
    """The latest LOG_BATCHES event numbers up to `upto`, as `seat` may see them, oldest first:
    what a page opened mid-game draws its move list from (it keeps those of the current game)."""
    rows = list(
        TableEvent.objects.filter(table_id=table_id, seq__lte=upto).order_by("-seq")[:LOG_BATCHES]
    )
    return [{"seq": row.seq, "events": row.for_seat(seat)} for row in reversed(rows)]


def events_since(table: Table, last_seq: int, seat: int | None) -> list[dict[str, Any]] | None:
    """The events after `last_seq` as `seat` may see them; None when too far behind to replay."""
    if last_seq > table.seq or table.seq - last_seq > MAX_REPLAY:
        return None
    rows = list(TableEvent.objects.filter(table=table, seq__gt=last_seq).order_by("seq"))
    if len(rows) != table.seq - last_seq:
        return None
    return [{"seq": row.seq, "events": row.for_seat(seat)} for row in rows]
