"""A game rebuilt from its log: each deal from its seed and washes, then every recorded action.

No Django here: callers pass plain records (`DealRecord`, `ActionRecord`). The engine does the
work, so the replay is the game exactly as it was played: the same deals (recomputed with
`tables.fairdeal.shuffled_set`), the same actions, the same events and scores.

Only hands that are over may be replayed. The caller gives a seed only for those hands; the
replay stops at the first deal it has no seed for, so the hand in play (and its seed) never
enters it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine import ActionError, DealError, GameState, TableSettings, parse_action
from engine.events import BonePlayed, Bonus, Event, GameOver, HandOver
from tables.fairdeal import shuffled_set

__all__ = ["ActionRecord", "DealRecord", "HandReplay", "Replay", "Step", "replay_game"]


@dataclass(frozen=True)
class DealRecord:
    """One dealt hand's published values (only ever built for a hand that is over)."""

    number: int
    seed: str
    commitment: str
    contributions: Mapping[str, str]
    washers: list[int] | None


@dataclass(frozen=True)
class ActionRecord:
    """One row of the game's action log."""

    version: int
    seat: int | None
    kind: str
    action: Mapping[str, Any]


def snapshot(state: GameState) -> dict[str, Any]:
    """What the replay shows after a step. Hands are face up: only over hands are replayed."""
    last = state.last_play
    return {
        "board": state.board.to_view(),
        "scores": state.scores[:],
        "on_board": state.on_board[:],
        "hands": [[str(b) for b in hand] for hand in state.hands],
        "yard": len(state.yard),
        "to_act": state.to_act,
        "dumbbells": state.dumbbells[:],
        "last": None if last is None else str(last.bone),
    }


@dataclass
class Step:
    """One recorded action and what followed it."""

    version: int
    seat: int | None
    kind: str
    action: dict[str, Any]
    events: list[dict[str, Any]]
    after: dict[str, Any]


@dataclass
class HandReplay:
    number: int
    deal: DealRecord
    washers: list[int]
    wash_reason: str
    order: list[str]
    """The whole set as the shuffle left it: seat 0's bones first, the yard last."""
    dealt: list[list[str]]
    """Each seat's bones as dealt."""
    yard: list[str]
    """The yard in its shuffled order, as dealt."""
    scores_before: list[int]
    deal_events: list[dict[str, Any]]
    start: dict[str, Any]
    steps: list[Step] = field(default_factory=list)
    over: dict[str, Any] | None = None
    """The hand_over event (None when the game ended in the middle of the hand)."""
    game_over: dict[str, Any] | None = None
    scores_after: list[int] = field(default_factory=list)
    points_by_seat: list[int] = field(default_factory=list)
    """Points each seat's own plays made this hand: ends, doubles bonus, the count or block."""
    ends_by_side: list[int] = field(default_factory=list)
    """Points each side scored on the ends (and bonuses) during the hand."""

    @property
    def finished(self) -> bool:
        return self.over is not None or self.game_over is not None

    @property
    def result(self) -> str:
        """domino, locked, blocked, redeal or forfeit; ``won`` when the game ended mid-hand."""
        if self.over is not None:
            return str(self.over["result"])
        return "won" if self.game_over is not None else "unfinished"

    @property
    def played(self) -> bool:
        """A hand someone played in (a redeal is not)."""
        return self.result != "redeal"

    @property
    def dominoed_by(self) -> int | None:
        if self.over is not None and self.over["result"] == "domino":
            return int(self.over["seat"])
        return None


@dataclass
class Replay:
    settings: TableSettings
    hands: list[HandReplay]
    state: GameState
    complete: bool
    """Every recorded action was replayed."""
    error: str | None = None

    def steps(self) -> int:
        return sum(len(h.steps) for h in self.hands)

    def matches(self, recorded: Mapping[str, Any] | None) -> bool:
        """Whether the replay agrees with a finished game's recorded result: every action
        replayed, and the engine's result the recorded one. A game the site ended outside the
        rules of play (a player who left, say) has a result the engine never reached: then the
        replay must not have ended the game itself. A side reaching the target is the engine's
        alone to decide."""
        if not self.complete or recorded is None:
            return False
        if self.state.result is None:
            return recorded.get("reason") != "target"
        return self.state.result.to_dict() == dict(recorded)


def _credit(hand: HandReplay, events: list[Event], side_of: Any) -> None:
    """Add the points each seat's own plays made to the hand's tallies."""
    for event in events:
        if isinstance(event, BonePlayed) and event.points:
            hand.points_by_seat[event.seat] += event.points
            hand.ends_by_side[side_of(event.seat)] += event.points
        elif isinstance(event, Bonus):
            hand.points_by_seat[event.seat] += event.points
            hand.ends_by_side[event.side] += event.points
        elif isinstance(event, HandOver):
            hand.over = event.to_dict()
            if event.result in ("domino", "blocked") and event.seat is not None:
                hand.points_by_seat[event.seat] += event.points
        elif isinstance(event, GameOver):
            hand.game_over = event.to_dict()


def replay_game(
    settings: Mapping[str, Any],
    deals: Mapping[int, DealRecord],
    actions: Iterable[ActionRecord],
) -> Replay:
    """Replay the log. Stops (``complete`` False) at a deal with no record (a hand not over) or
    at an action the engine refuses (``error`` says which)."""
    table_settings = TableSettings.from_dict(dict(settings))
    state = GameState.new(table_settings)
    n = table_settings.players
    hands: list[HandReplay] = []
    current: HandReplay | None = None
    for record in actions:
        if record.kind == "deal":
            number = state.deal_number + 1
            deal = deals.get(number)
            if deal is None:
                return Replay(table_settings, hands, state, complete=False)
            washers = state.wash_seats[:]
            reason = state.wash_reason
            contributions = {int(k): v for k, v in deal.contributions.items()}
            order = [str(b) for b in shuffled_set(deal.seed, contributions, table_settings.max_pip)]
            scores_before = state.scores[:]
            try:
                events = state.deal(order)
            except DealError as exc:
                error = f"hand {number}: {exc}"
                return Replay(table_settings, hands, state, complete=False, error=error)
            dealt = [[str(b) for b in hand] for hand in state.hands]
            # The yard as dealt: what is left of the order after the hands.
            yard = order[sum(len(h) for h in dealt) :]
            current = HandReplay(
                number=number,
                deal=deal,
                washers=washers,
                wash_reason=reason,
                order=order,
                dealt=dealt,
                yard=yard,
                scores_before=scores_before,
                deal_events=[e.to_dict() for e in events],
                start=snapshot(state),
                points_by_seat=[0] * n,
                ends_by_side=[0] * table_settings.sides,
            )
            hands.append(current)
            _credit(current, events, state.side_of)
            current.scores_after = state.scores[:]
            continue
        try:
            if current is None:
                raise DealError("not_dealt", "", "an action before the first deal")
            if record.kind == "abandon":  # the house ended the game: a player left it
                events = state.abandon(int(record.action["seat"]))
            else:
                events = state.apply(parse_action(dict(record.action)))
        except (ActionError, DealError) as exc:
            error = f"version {record.version}: {exc}"
            return Replay(table_settings, hands, state, complete=False, error=error)
        step = Step(
            version=record.version,
            seat=record.seat,
            kind=record.kind,
            action=dict(record.action),
            events=[e.to_dict() for e in events],
            after=snapshot(state),
        )
        current.steps.append(step)
        _credit(current, events, state.side_of)
        current.scores_after = state.scores[:]
    return Replay(table_settings, hands, state, complete=True)
