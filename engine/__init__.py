"""Dominologist's rules engine: a pure Python library (no Django, no I/O).

Bones, the board, table settings per mode, the game state with its legal actions and one
``apply``, events, per-seat views, and the scenario command (``python -m engine.scenario``).

>>> from engine import GameState, TableSettings, Play, Bone
>>> state = GameState.new(TableSettings.build("fives"))
>>> state.phase.value
'awaiting_deal'

The rules' hot path may run compiled (see ``engine/_native.py``); :data:`COMPILED` says whether
it does in this process. Both ways are the same rules.
"""

from ._native import loaded_compiled, use_compiled

use_compiled(__path__)

from .actions import Action, DoublesChoice, Draw, Pass, Play, Timeout, parse_action
from .board import Board, End
from .bones import Bone, full_set
from .errors import (
    ActionError,
    AmbiguousActionError,
    DealError,
    IllegalActionError,
    InvalidActionError,
    SettingsError,
    StateFormatError,
)
from .events import Event
from .rules import Mode, TableSettings, Workout, workout_owed
from .state import FORMAT_VERSION, GameResult, GameState, Phase
from .views import public_view, seat_view

COMPILED: bool = loaded_compiled()
"""Whether this process runs the compiled modules (``native/build.py``), every one of them, or
pure Python."""

__all__ = [
    "COMPILED",
    "FORMAT_VERSION",
    "Action",
    "ActionError",
    "AmbiguousActionError",
    "Board",
    "Bone",
    "DealError",
    "DoublesChoice",
    "Draw",
    "End",
    "Event",
    "GameResult",
    "GameState",
    "IllegalActionError",
    "InvalidActionError",
    "Mode",
    "Pass",
    "Phase",
    "Play",
    "SettingsError",
    "StateFormatError",
    "TableSettings",
    "Timeout",
    "Workout",
    "full_set",
    "parse_action",
    "public_view",
    "seat_view",
    "workout_owed",
]
