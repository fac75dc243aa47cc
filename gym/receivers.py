"""The gym's part when a game finishes (tables/events.py): each losing player's workout at a
Gym table, inside the game's final transaction (idempotent: one row per seat and game)."""

from __future__ import annotations

from gym.services import workouts_record
from tables.events import GameFinished, Stage, game_finished


def workouts_record_on_finish(event: GameFinished) -> None:
    workouts_record(game=event.game, state=event.state)


def subscribe() -> None:
    game_finished.subscribe(Stage.WORKOUTS, workouts_record_on_finish)
