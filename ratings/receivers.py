"""Ratings' part when a game finishes (tables/events.py): rate it, last, inside the game's final
transaction (idempotent: one RatedGame per game)."""

from __future__ import annotations

from ratings.services import game_rate
from tables.events import GameFinished, Stage, game_finished


def game_rate_on_finish(event: GameFinished) -> None:
    game_rate(game=event.game)


def subscribe() -> None:
    game_finished.subscribe(Stage.RATINGS, game_rate_on_finish)
