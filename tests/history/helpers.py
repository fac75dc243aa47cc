"""Games played through the real services (no sockets), fast enough for many tests."""

from __future__ import annotations

import datetime as dt
import random
import secrets
from typing import Any

from django.utils import timezone

from engine import GameState
from tables import services
from tables.models import Game, Hand, Table


def start_table(players: list[Any], mode: str = "citizen", **options: Any) -> Table:
    """A table with every seat taken, washed by everyone, and the game started."""
    options.setdefault("players", len(players))
    table = services.table_create(host=players[0], mode=mode, **options)
    for number, user in enumerate(players[1:], start=1):
        services.seat_take(table_id=table.pk, user=user, number=number)
    for user in players:
        services.hand_wash(table_id=table.pk, user=user, hand=1, entropy=secrets.token_hex(32))
    for user in players:
        services.seat_ready(table_id=table.pk, user=user, ready=True)
    return table


def live_game(table: Table) -> Game:
    return Game.objects.get(table=table, status__in=[Game.Status.PLAYING, Game.Status.FINISHED])


def play(
    table: Table,
    players: list[Any],
    *,
    seed: int = 1,
    stop: Any = None,
    timeouts: float = 0.0,
) -> Game:
    """Play random legal moves until the game is over (or `stop(state)` says so). Every seat
    washes the next hand as it is committed. With `timeouts`, that share of turns at a table on
    the clock run out instead (a dumbbell), never five in a row."""
    rng = random.Random(seed)
    washed: set[int] = {1}
    in_a_row = 0
    for _ in range(5000):
        game = live_game(table)
        state = GameState.from_json(game.state)
        if state.is_over or (stop is not None and stop(state)):
            return game
        pending = Hand.objects.filter(game=game, dealt_at=None).first()
        if pending is not None and pending.number not in washed:
            washed.add(pending.number)
            for seat in state.wash_seats:
                services.hand_wash(
                    table_id=table.pk,
                    user=players[seat],
                    hand=pending.number,
                    entropy=rng.randbytes(32).hex(),
                )
        if timeouts and rng.random() < timeouts and in_a_row < 3 and not state.is_forced_pass():
            in_a_row += 1
            later = timezone.now() + dt.timedelta(hours=1)
            assert services.clock_expire(game_id=game.pk, version=game.version, now=later)
            continue
        in_a_row = 0
        action = rng.choice(state.legal_actions()).to_dict()
        action.pop("seat")
        services.game_act(
            table_id=table.pk, user=players[state.to_act], version=game.version, action=action
        )
    raise AssertionError("the game did not end")
