"""A finished game's log walked through the engine with the real deals (or tampered ones)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from engine import Bone, GameState, TableSettings, parse_action
from history.selectors import game_deals
from tables.fairdeal import shuffled_set
from tables.models import Game

Orders = dict[int, list[Bone]]


def real_orders(game: Game) -> Orders:
    """Each over hand's deal order, from its seed and washes."""
    settings = TableSettings.from_dict(game.state["settings"])
    return {
        number: shuffled_set(
            deal.seed, {int(k): v for k, v in deal.contributions.items()}, settings.max_pip
        )
        for number, deal in game_deals(game).items()
    }


def walk(game: Game, orders: Orders) -> Iterator[tuple[int, GameState, Any]]:
    """Every action of the log with the state before it (deals from `orders`); raises the
    engine's error if an action does not fit those deals."""
    state = GameState.new(TableSettings.from_dict(game.state["settings"]))
    for version, kind, data in game.actions.order_by("version").values_list(
        "version", "kind", "action"
    ):
        if kind == "deal":
            state.deal([str(b) for b in orders[state.deal_number + 1]])
            continue
        if kind == "abandon":
            state.abandon(int(data["seat"]))
            continue
        action = parse_action(dict(data))
        yield version, state, action
        state.apply(action)


def patch_deals(monkeypatch: Any, game: Game, orders: Orders) -> Callable[..., list[Bone]]:
    """The coach deals every hand of `game` from `orders` instead of its seeds."""
    by_seed = {deal.seed: orders[n] for n, deal in game_deals(game).items()}

    def tampered(seed: str, contributions: Any, max_pip: int) -> list[Bone]:
        return list(by_seed[seed])

    monkeypatch.setattr("coach.services.shuffled_set", tampered)
    return tampered
