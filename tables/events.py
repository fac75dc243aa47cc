"""The two things that happen to a game which other apps react to: it finished, or it was
called off. Owned by tables; the apps that react subscribe from their own AppConfig.ready(), so
tables imports none of them.

Both events are sent by tables.services inside the game's final transaction, after the game and
its table rows are written, and every subscriber runs inside that same transaction, in the
order of its `Stage` (not the order apps happen to load in). A subscriber's error is not caught:
it propagates, the transaction rolls back and the move (or the call-off) fails as a whole, so a
game is never over without its settlement (the ledger turns its refusals into a TableError the
player reads). A subscriber must be idempotent: it may meet a game it already handled (a sweep,
a retried call) and must then do nothing.

The order, and why (docs/architecture.md):

1. SETTLEMENT (ledger): the pot is paid. The only step that may refuse (a ledger refusal fails
   the move); first, so nothing else is written in a transaction that is about to fail.
2. ARCHIVE (history): the hands' seeds revealed and each player's `PlayerGame`; it never
   raises (a replay error is logged and left to its sweep).
3. WORKOUTS (gym): what each loser owes at a Gym table.
4. RATINGS (ratings): last, because it is the only step that may decide to do nothing (casual
   tables, house players, the farming limit) and it reads the players, not the others' rows.

None of these steps reads another's rows today, so the order is a promise kept for the future
(a step that needs another's rows must come after it) and is tested (tests/tables/
test_game_events.py). Tournaments do not subscribe: their sweep reads finished games and
claims each result with a compare-and-set (docs/tournaments.md).

On `game_called_off` (aborted before the first play, voided by staff, a table closed by staff
or as idle, a tournament calling off a match): REFUND (ledger), every stake back exactly. Games
called off are never rated and leave no history or workout.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from engine import GameState
    from tables.models import Game


class Stage(IntEnum):
    """Where a subscriber runs among the others (lowest first)."""

    SETTLEMENT = 10
    REFUND = 11  # game_called_off
    ARCHIVE = 20
    WORKOUTS = 30
    RATINGS = 50


@dataclass(frozen=True)
class GameFinished:
    """A game ended with a result: `game` (status finished, `result` set) and its final
    engine state."""

    game: Game
    state: GameState


@dataclass(frozen=True)
class GameCalledOff:
    """A game ended without a result. `voided`: staff voided it (or closed its table); `by`:
    the staff member, or None (the players aborted it, the house closed an idle table, a
    tournament called it off); `why`: the reason, in the words of whoever called it off."""

    game: Game
    why: str
    by: Any = None
    voided: bool = False


E = TypeVar("E")


class GameEvent(Generic[E]):
    """One event with its subscribers, each at a stage; `send` calls them in stage order."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._subscribers: dict[Stage, Callable[[E], None]] = {}

    def subscribe(self, stage: Stage, receiver: Callable[[E], None]) -> None:
        """Run `receiver` at `stage`. One receiver per stage; subscribing the same receiver
        again (a second ready()) changes nothing, another one at a taken stage is a bug."""
        held = self._subscribers.get(stage)
        if held is not None and held is not receiver:
            same = getattr(held, "__qualname__", None) == getattr(receiver, "__qualname__", "")
            same = same and getattr(held, "__module__", None) == getattr(receiver, "__module__", "")
            if not same:
                raise ValueError(f"{self.name}: stage {stage.name} is taken by {held!r}")
        self._subscribers[stage] = receiver

    def subscribers(self) -> list[tuple[Stage, Callable[[E], None]]]:
        return sorted(self._subscribers.items(), key=lambda item: item[0])

    def send(self, event: E) -> None:
        """Call every subscriber in stage order, inside the caller's transaction. Errors
        propagate."""
        for _stage, receiver in self.subscribers():
            receiver(event)


#: A game finished with a result (tables.services._commit_action, inside its transaction).
game_finished: GameEvent[GameFinished] = GameEvent("game_finished")
#: A game was aborted, voided or called off without a result (inside that transaction).
game_called_off: GameEvent[GameCalledOff] = GameEvent("game_called_off")
