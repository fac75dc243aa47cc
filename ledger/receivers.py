"""The ledger's part when a game ends (tables/events.py): the pot is settled when a game
finishes, every stake is given back when it is called off. Both inside the game's final
transaction, both idempotent (the postings' keys `game:<id>:settle` and `game:<id>:refund`).
A ledger refusal becomes the table's refusal, in the same words, and the game does not end."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ledger import services
from tables.events import GameCalledOff, GameFinished, Stage, game_called_off, game_finished
from tables.services import TableError


def _as_table_refusal(service: Callable[..., Any], **kwargs: Any) -> Any:
    try:
        return service(**kwargs)
    except services.LedgerError as exc:
        raise TableError(exc.code, exc.message) from exc


def game_settle_on_finish(event: GameFinished) -> None:
    _as_table_refusal(services.game_settle, game_id=event.game.pk)


def game_refund_on_call_off(event: GameCalledOff) -> None:
    _as_table_refusal(services.game_refund, game_id=event.game.pk, by=event.by, why=event.why)


def subscribe() -> None:
    game_finished.subscribe(Stage.SETTLEMENT, game_settle_on_finish)
    game_called_off.subscribe(Stage.REFUND, game_refund_on_call_off)
