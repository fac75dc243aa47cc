"""What the tables app tells other apps, always after commit.

`turn_changed` is sent once a change that may hand the turn to someone has committed: a game
started (and was dealt), or an action was applied (with the deals and forced passes after it).
House players listen to it (house/receivers.py); a listener must not assume it is the only one,
nor that the game is still at that version when it acts.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.dispatch import Signal

#: kwargs: game_id, table_id, version, seat (to act; None when nobody is), user_id (of that seat),
#: players (the user ids by seat, fixed when the game started)
turn_changed = Signal()


def announce_turn(game: Any, state: Any) -> None:
    """After commit, send `turn_changed` for this game at its current version."""
    seat = None if state.is_over else state.to_act
    user_id = None if seat is None else game.players[seat]
    details = {
        "game_id": game.pk,
        "table_id": game.table_id,
        "version": game.version,
        "seat": seat,
        "user_id": user_id,
        "players": tuple(game.players),
    }
    transaction.on_commit(lambda: turn_changed.send(sender=type(game), **details))
