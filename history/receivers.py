"""History's part when a game finishes (tables/events.py): the archive (hands revealed, one
`PlayerGame` per seat), inside the game's final transaction. It never raises: a replay error is
logged and left to `history.tasks.archive_sweep`."""

from __future__ import annotations

from history.services import game_archive
from tables.events import GameFinished, Stage, game_finished


def game_archive_on_finish(event: GameFinished) -> None:
    game_archive(game=event.game)


def subscribe() -> None:
    game_finished.subscribe(Stage.ARCHIVE, game_archive_on_finish)
