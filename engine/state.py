"""The game state: one table's game, from the first wash to the winner.

The state says what it needs next (:attr:`GameState.phase`): a deal (``awaiting_deal``, with the
seats that wash it and why), a doubles choice (``choosing_doubles``), a play (``playing``), or
nothing (``game_over``). :meth:`GameState.apply` either changes the state and returns events,
or raises an :class:`~engine.errors.ActionError` and changes nothing.

>>> from engine.rules import TableSettings
>>> from engine.actions import Play
>>> from engine.board import End
>>> from engine.bones import Bone
>>> state = GameState.new(TableSettings.build("citizen", players=2))
>>> state.phase, state.wash_seats, state.wash_reason
(<Phase.AWAITING_DEAL: 'awaiting_deal'>, [0, 1], 'first_hand')
>>> _ = state.deal_hands(
...     [["6-6", "6-3", "5-0", "4-1", "2-2", "3-1", "6-0"],
...      ["5-5", "4-4", "6-5", "5-4", "3-0", "2-1", "1-0"]])
>>> state.to_act, [str(a.bone) for a in state.legal_actions()]  # the house double leads
(0, ['6-6'])
>>> [e.to_public()["count"] for e in state.apply(Play(0, Bone.parse("6-6")))]
[12]
>>> state.apply(Play(1, Bone.parse("6-5"), End.RIGHT))[0].to_public()["count"]
17
>>> state.apply(Play(1, Bone.parse("5-4")))
Traceback (most recent call last):
...
engine.errors.IllegalActionError: it is seat 0's turn, not seat 1's
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, NoReturn, cast

from .actions import (
    Action,
    DoublesChoice,
    Draw,
    Pass,
    Play,
    Timeout,
    choices_for,
    draws_for,
    pass_for,
)
from .actions import play_table as _play_table
from .board import END_INDEX, ENDS, LEAD, Board, End
from .bones import Bone, full_set, set_name
from .dealing import check_hands, split_order
from .errors import (
    DealError,
    IllegalActionError,
    InvalidActionError,
    SettingsError,
    StateFormatError,
    shorten,
)
from .events import (
    BonePlayed,
    Bonus,
    Dealt,
    DoublesChosen,
    DoublesToChoose,
    Drew,
    Dumbbell,
    Event,
    GameOver,
    HandOver,
    Lead,
    Passed,
    Scored,
    Wash,
)
from .rules import TableSettings, Workout, round_half_up, workout_owed
from .scoring import blocked_result, forfeit_winner, skunked_sides

__all__ = ["FORMAT_VERSION", "GameResult", "GameState", "Phase"]

FORMAT_VERSION: Final = 1
"""Version of :meth:`GameState.to_json`'s format (the ``"v"`` key)."""

_PLAY_TABLE: Final = [_play_table(seat) for seat in range(4)]

# The action classes as constants of this module: compiled, a constant is read at once, where
# a name imported from a module that is not compiled (actions) is looked up on every use.
_PLAY: Final = Play
_PASS: Final = Pass
_DRAW: Final = Draw
_TIMEOUT: Final = Timeout
_DOUBLES_CHOICE: Final = DoublesChoice

FORFEIT_DUMBBELLS: Final = 5
"""Dumbbells in one turn that forfeit the game."""

FOUR_DOUBLES_BONUS: Final = 50
FIVE_DOUBLES_BONUS: Final = 100


class Phase(StrEnum):
    """What the game needs next."""

    AWAITING_DEAL = "awaiting_deal"
    CHOOSING_DOUBLES = "choosing_doubles"
    PLAYING = "playing"
    GAME_OVER = "game_over"


AWAITING_DEAL: Final = Phase.AWAITING_DEAL
CHOOSING_DOUBLES: Final = Phase.CHOOSING_DOUBLES
PLAYING: Final = Phase.PLAYING
GAME_OVER: Final = Phase.GAME_OVER


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a game ended: the winning side, skunked sides, the forfeiting seat, and (Gym) the
    workout each seat owes (``None`` for the winners)."""

    winner: int
    skunked: tuple[int, ...]
    forfeit: int | None
    reason: str
    workouts: tuple[Workout | None, ...] | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "skunked": list(self.skunked),
            "forfeit": self.forfeit,
            "reason": self.reason,
            "workouts": None
            if self.workouts is None
            else [None if w is None else w.to_dict() for w in self.workouts],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameResult:
        workouts = data["workouts"]
        return cls(
            winner=data["winner"],
            skunked=tuple(data["skunked"]),
            forfeit=data["forfeit"],
            reason=data["reason"],
            workouts=None
            if workouts is None
            else tuple(None if w is None else Workout.from_dict(w) for w in workouts),
        )


class GameState:
    """One game at one table. Build it with :meth:`new`; deal with :meth:`deal` or
    :meth:`deal_hands`; act with :meth:`apply`."""

    __slots__ = (
        "_count_by",
        "_get_on",
        "_house",
        "_max_pip",
        "_n",
        "_partners",
        "_smallest",
        "_target",
        "_unit",
        "board",
        "bonus",
        "bonus_left",
        "deal_number",
        "dumbbells",
        "forced_lead",
        "hands",
        "history",
        "last_play",
        "on_board",
        "passes",
        "phase",
        "result",
        "rock",
        "scores",
        "settings",
        "to_act",
        "turn_dumbbells",
        "wash_reason",
        "wash_seats",
        "yard",
    )

    settings: TableSettings
    phase: Phase
    to_act: int | None
    """The seat to act (the player to play, or the seat choosing what to do with its doubles);
    ``None`` while waiting for a deal and once the game is over."""
    scores: list[int]
    """One per side."""
    on_board: list[bool]
    """One per side."""
    dumbbells: list[int]
    """One per seat, this game."""
    turn_dumbbells: int
    """Dumbbells taken in the current turn (five forfeit)."""
    hands: list[list[Bone]]
    yard: list[Bone]
    """The face-down yard, in its shuffled order; a draw names a position in it."""
    board: Board
    rock: int | None
    """The seat that leads this (or the next) hand with any bone; ``None``: led as a first hand."""
    wash_seats: list[int]
    """Who washes (or washed) the deal for this hand."""
    wash_reason: str
    deal_number: int
    forced_lead: Bone | None
    """The bone that must lead (house double, next in line, highest double) until it is down."""
    passes: int
    """Passes in a row."""
    bonus: list[int]
    """Per seat, the doubles bonus still at stake this hand (0, 50 or 100)."""
    bonus_left: list[int]
    """Per seat, the dealt doubles still to go down for that bonus."""
    last_play: BonePlayed | None
    result: GameResult | None
    history: list[Event]
    """This hand's moves, in order: the lead's announcement, the doubles choice, every bone
    played, every draw and every pass (see :meth:`public_history`)."""

    # -- building ------------------------------------------------------------

    @classmethod
    def new(
        cls,
        settings: TableSettings,
        *,
        scores: Sequence[object] | None = None,
        on_board: Sequence[object] | None = None,
        rock: object = None,
    ) -> GameState:
        """A game waiting for its first deal.

        ``scores`` and ``on_board`` (one per side) start a game from a given score; ``rock`` gives
        a seat the rock, so it leads the first hand with any bone. Get-on 0: every side is on.
        They are typed ``object`` because they are checked here, with :class:`SettingsError`:
        the compiled engine would refuse a wrong type on the way in, with a bare TypeError.
        """
        sides = settings.sides
        if scores is None:
            scores = [0] * sides
        if (
            isinstance(scores, str | bytes)
            or not isinstance(scores, Sequence)
            or len(scores) != sides
            or any(type(s) is not int or not 0 <= s < settings.target for s in scores)
        ):
            raise SettingsError(
                "scores", f"give {sides} whole-number scores from 0 to {settings.target - 1}"
            )
        if on_board is None:
            on_board = [settings.get_on == 0] * sides
        if (
            isinstance(on_board, str | bytes)
            or not isinstance(on_board, Sequence)
            or len(on_board) != sides
            or any(type(b) is not bool for b in on_board)
        ):
            raise SettingsError("on_board", f"give {sides} true/false flags")
        if settings.get_on == 0:
            on_board = [True] * sides  # get-on 0: everyone is on from the deal
        if rock is not None and (type(rock) is not int or not 0 <= rock < settings.players):
            raise SettingsError("rock", f"the rock is a seat 0 to {settings.players - 1} or null")
        assert rock is None or type(rock) is int
        state = cls()
        state._configure(settings)
        n = settings.players
        state.phase = AWAITING_DEAL
        state.to_act = None
        state.scores = cast(list[int], list(scores))  # each checked above
        state.on_board = cast(list[bool], list(on_board))
        state.dumbbells = [0] * n
        state.turn_dumbbells = 0
        state.hands = [[] for _ in range(n)]
        state.yard = []
        state.board = Board(settings.spinner)
        state.rock = rock
        if rock is None:
            state.wash_seats, state.wash_reason = list(range(n)), "first_hand"
        else:
            state.wash_seats = [s for s in range(n) if s != rock]
            state.wash_reason = "after_domino"
        state.deal_number = 0
        state.forced_lead = None
        state.passes = 0
        state.bonus = [0] * n
        state.bonus_left = [0] * n
        state.last_play = None
        state.result = None
        state.history = []
        return state

    def _configure(self, settings: TableSettings) -> None:
        self.settings = settings
        self._n = settings.players
        self._partners = settings.partners
        self._unit = settings.unit
        self._smallest = settings.smallest_score
        self._get_on = settings.get_on
        self._count_by = settings.count_by
        self._target = settings.target
        self._house = settings.house
        self._max_pip = settings.max_pip

    def copy(self) -> GameState:
        """A cheap independent copy (for bots and simulations)."""
        other = GameState()
        other.settings = self.settings
        other._n = self._n
        other._partners = self._partners
        other._unit = self._unit
        other._smallest = self._smallest
        other._get_on = self._get_on
        other._count_by = self._count_by
        other._target = self._target
        other._house = self._house
        other._max_pip = self._max_pip
        other.phase = self.phase
        other.to_act = self.to_act
        other.scores = self.scores[:]
        other.on_board = self.on_board[:]
        other.dumbbells = self.dumbbells[:]
        other.turn_dumbbells = self.turn_dumbbells
        other.hands = [h[:] for h in self.hands]
        other.yard = self.yard[:]
        other.board = self.board.copy()
        other.rock = self.rock
        other.wash_seats = self.wash_seats[:]
        other.wash_reason = self.wash_reason
        other.deal_number = self.deal_number
        other.forced_lead = self.forced_lead
        other.passes = self.passes
        other.bonus = self.bonus[:]
        other.bonus_left = self.bonus_left[:]
        other.last_play = self.last_play
        other.result = self.result
        other.history = self.history[:]
        return other

    # -- sides ---------------------------------------------------------------

    def side_of(self, seat: int) -> int:
        return seat % 2 if self._partners else seat

    @property
    def is_over(self) -> bool:
        return self.phase is GAME_OVER

    # -- dealing -------------------------------------------------------------

    def deal(self, order: Sequence[Bone | str]) -> list[Event]:
        """Deal a full shuffled order of the set: seat ``i`` gets its slice in seat order, the rest
        is the yard, in order. Raises :class:`DealError` (and changes nothing) on a bad order."""
        self._check_can_deal()
        hands, yard = split_order(self.settings, order)
        return self._start_hand(hands, yard)

    def deal_hands(
        self, hands: Sequence[Sequence[Bone | str]], yard: Sequence[Bone | str] | None = None
    ) -> list[Event]:
        """Deal exact hands (and the yard in order; left out: the rest of the set in set order)."""
        self._check_can_deal()
        checked, yard_bones = check_hands(self.settings, hands, yard)
        return self._start_hand(checked, yard_bones)

    def _check_can_deal(self) -> None:
        if self.phase is not AWAITING_DEAL:
            raise DealError("not_awaiting_deal", "", f"no deal is due: the game is {self.phase}")

    def _start_hand(self, hands: list[list[Bone]], yard: list[Bone]) -> list[Event]:
        n = self._n
        self.deal_number += 1
        self.hands = hands
        self.yard = yard
        self.board = Board(self.settings.spinner)
        self.passes = 0
        self.turn_dumbbells = 0
        self.forced_lead = None
        self.last_play = None
        history: list[Event] = []
        self.history = history
        bonus = self.bonus = [0] * n
        bonus_left = self.bonus_left = [0] * n
        events: list[Event] = [Dealt(self.deal_number, [h[:] for h in hands], len(yard))]
        if self._house:
            for seat, hand in enumerate(hands):
                doubles = [b for b in hand if b.is_double]
                if len(doubles) == 4:
                    bonus[seat] = FOUR_DOUBLES_BONUS
                    bonus_left[seat] = 4
                elif len(doubles) >= 5:
                    self.phase = CHOOSING_DOUBLES
                    self.to_act = seat
                    choosing = DoublesToChoose(seat, doubles)
                    events.append(choosing)
                    history.append(choosing)
                    return events
        self._start_lead(events)
        return events

    def _start_lead(self, events: list[Event]) -> None:
        self.turn_dumbbells = 0
        rock = self.rock
        if rock is not None:
            self.phase = PLAYING
            self.to_act = rock
            self.forced_lead = None
            lead = Lead(rock, None, "rock")
            events.append(lead)
            self.history.append(lead)
            return
        order = self.settings.lead_order
        for i, value in enumerate(order):
            double = Bone.of(value, value)
            for seat, hand in enumerate(self.hands):
                if double in hand:
                    self.phase = PLAYING
                    self.to_act = seat
                    self.forced_lead = double
                    if not self._house:
                        reason = "highest_double"
                    else:
                        reason = "house_double" if i == 0 else "next_double"
                    lead = Lead(seat, double, reason)
                    events.append(lead)
                    self.history.append(lead)
                    return
        # nobody holds a double: everyone washes and the bones are dealt again
        events.append(HandOver("redeal", None, None, 0, 0, 0, self._hands_copy()))
        self._await_deal(list(range(self._n)), "redeal", events)

    def _await_deal(self, seats: list[int], reason: str, events: list[Event]) -> None:
        self.phase = AWAITING_DEAL
        self.to_act = None
        self.forced_lead = None
        self.turn_dumbbells = 0
        self.wash_seats = seats
        self.wash_reason = reason
        events.append(Wash(seats[:], reason, self.rock))

    def _hands_copy(self) -> list[list[Bone]]:
        return [h[:] for h in self.hands]

    # -- what can be done ----------------------------------------------------

    def _open_mask(self) -> int:
        mask = 0
        for v in self.board.ends:
            if v >= 0:
                mask |= 1 << v
        return mask

    def can_play(self, seat: int) -> bool:
        """Whether ``seat`` holds a bone that fits the board now."""
        if self.board.lead is None:
            return bool(self.hands[seat])
        mask = self._open_mask()
        return any(b.mask & mask for b in self.hands[seat])

    def is_forced_pass(self) -> bool:
        """Whether the seat to act can only pass (no play, empty yard): the site makes that pass
        at once, with no clock."""
        if self.phase is not PLAYING or self.board.lead is None or self.yard:
            return False
        assert self.to_act is not None
        return not self.can_play(self.to_act)

    def legal_actions(self) -> list[Action]:
        """Everything the seat to act may do now (every play names its end; draws are listed by
        yard position). Timeouts are not listed: the clock sends them, not the player."""
        phase = self.phase
        if phase is PLAYING:
            seat = self.to_act
            assert seat is not None
            table = _PLAY_TABLE[seat]
            hand = self.hands[seat]
            board = self.board
            if board.lead is None:
                forced = self.forced_lead
                if forced is not None:
                    return [table[forced.index][0]]
                return [table[b.index][0] for b in hand]
            left, right, up, down = board.ends
            lbit = 1 << left
            rbit = 1 << right
            ubit = 1 << up if up >= 0 else 0
            dbit = 1 << down if down >= 0 else 0
            mask = lbit | rbit | ubit | dbit
            plays: list[Action] = []
            for b in hand:
                m = b.mask
                if m & mask:
                    row = table[b.index]
                    if m & lbit:
                        plays.append(row[1])
                    if m & rbit:
                        plays.append(row[2])
                    if m & ubit:
                        plays.append(row[3])
                    if m & dbit:
                        plays.append(row[4])
            if plays:
                return plays
            if self.yard:
                return list(draws_for(seat, len(self.yard)))
            return [pass_for(seat)]
        if phase is CHOOSING_DOUBLES:
            assert self.to_act is not None
            return list(choices_for(self.to_act))
        return []

    # -- acting --------------------------------------------------------------

    def apply(self, action: Action) -> list[Event]:
        """Apply one action and return what happened. On any error (an :class:`ActionError`) the
        state is exactly as it was."""
        kind = type(action)
        if kind is _PLAY:
            return self._play(action)  # type: ignore[arg-type]
        if kind is _PASS:
            return self._pass(action)  # type: ignore[arg-type]
        if kind is _DRAW:
            return self._draw(action)  # type: ignore[arg-type]
        if kind is _TIMEOUT:
            return self._timeout(action)  # type: ignore[arg-type]
        if kind is _DOUBLES_CHOICE:
            return self._choose(action)  # type: ignore[arg-type]
        raise InvalidActionError("bad_action", f"not an action: {shorten(action)}")

    def validate(self, action: Action) -> None:
        """Raise the error :meth:`apply` would raise for ``action``; change nothing."""
        self.copy().apply(action)

    def _check_seat(self, seat: object) -> int:
        if type(seat) is not int or not 0 <= seat < self._n:
            raise InvalidActionError("no_such_seat", f"there is no seat {shorten(seat)}")
        return seat

    def _check_turn(self, seat: int) -> None:
        """The seat may take a play, draw or pass now."""
        phase = self.phase
        if phase is not PLAYING:
            if phase is CHOOSING_DOUBLES:
                if seat == self.to_act:
                    raise IllegalActionError(
                        "must_choose", "first choose: play your doubles for +100, or reshuffle"
                    )
                raise IllegalActionError(
                    "not_your_turn", f"seat {self.to_act} is choosing what to do with its doubles"
                )
            self._check_not_stopped()
        if seat != self.to_act:
            raise IllegalActionError(
                "not_your_turn", f"it is seat {self.to_act}'s turn, not seat {seat}'s"
            )

    def _check_not_stopped(self) -> None:
        if self.phase is GAME_OVER:
            raise IllegalActionError("game_over", "the game is over")
        if self.phase is AWAITING_DEAL:
            raise IllegalActionError(
                "awaiting_deal", "the bones are being washed: wait for the deal"
            )

    def _play(self, action: Play) -> list[Event]:
        # An action's fields are read untyped and checked here: one built by hand may hold
        # anything, and the compiled engine would refuse a wrong type with a bare TypeError (or
        # read True as seat 1). Every method that takes an action does the same.
        given: Any = action
        given_bone: object = given.bone
        given_seat: object = given.seat
        given_end: object = given.end
        if (
            type(given_bone) is not Bone
            or type(given_seat) is not int
            or self.phase is not PLAYING
            or given_seat != self.to_act
            or given_bone.high > self._max_pip
            or (given_end is not None and type(given_end) is not End)
        ):
            self._refuse_play(action)
        bone: Bone = given_bone
        seat: int = given_seat
        end: End | None = given_end
        hand = self.hands[seat]
        try:
            at = hand.index(bone)
        except ValueError:
            raise IllegalActionError("bone_not_held", f"you don't hold the {bone}") from None
        board = self.board
        lead_left: int | None = None
        if board.lead is None:
            forced = self.forced_lead
            if forced is not None and bone is not forced:
                raise IllegalActionError("wrong_lead", f"this hand must be led with the {forced}")
            given_left: object = given.lead_left
            if given_left is not None and type(given_left) is not int:
                raise InvalidActionError(
                    "bad_field", f"{bone} has no {shorten(given_left)} to show left"
                )
            lead_left = given_left
            e = board.resolve(bone, end, lead_left)
        elif end is not None:
            e = END_INDEX[end]
            v = board.ends[e]
            if v < 0 or (bone.high != v and bone.low != v):
                board.resolve(bone, end)  # raises the error that says what is wrong
        else:
            e = board.resolve(bone, None)

        # -- valid: from here on nothing raises --
        del hand[at]
        total = board.place(bone, e, lead_left)
        side = seat % 2 if self._partners else seat
        on_board = self.on_board
        points = 0
        if total >= self._smallest and total % self._unit == 0:
            if on_board[side]:
                points = total
            elif total >= self._get_on:
                points = total
                on_board[side] = True
        self.passes = 0
        self.forced_lead = None
        played = BonePlayed(
            seat,
            bone,
            None if e == LEAD else ENDS[e],
            total,
            points,
            on_board[side],
            board.lead_left if e == LEAD else None,
        )
        self.last_play = played
        self.history.append(played)
        events: list[Event] = [played]
        if points:
            score = self.scores[side] + points
            self.scores[side] = score
            events.append(Scored(side, points, "ends", score))
            if score >= self._target:
                self._win(side, "target", events, None, mid_hand=True)
                return events
        if bone.is_double and self.bonus[seat]:
            self._double_down(seat, side, events)
            if self.result is not None:
                return events
        if not hand:
            self._domino(seat, side, events)
            return events
        self.to_act = seat + 1 if seat + 1 < self._n else 0
        self.turn_dumbbells = 0
        return events

    def _refuse_play(self, action: Play) -> NoReturn:
        """Raise the error for a play that failed the fast checks, in a fixed order: unreadable
        first, then the turn."""
        given: Any = action
        bone: object = given.bone
        if type(bone) is not Bone:
            raise InvalidActionError("bad_field", f"bone must be a Bone, not {shorten(bone)}")
        if bone.high > self._max_pip:
            raise InvalidActionError(
                "unknown_bone", f"there is no {bone} in a {set_name(self._max_pip)} set"
            )
        end: object = given.end
        if end is not None and type(end) is not End:
            raise InvalidActionError("bad_field", f"end must be an End, not {shorten(end)}")
        self._check_turn(self._check_seat(given.seat))
        raise AssertionError("unreachable: the play passed every check")

    def _double_down(self, seat: int, side: int, events: list[Event]) -> None:
        left = self.bonus_left[seat] - 1
        self.bonus_left[seat] = left
        if left:
            return
        value = self.bonus[seat]
        self.bonus[seat] = 0
        if not self.on_board[side]:
            return  # the bonus never puts a side on the board
        score = self.scores[side] + value
        self.scores[side] = score
        events.append(Bonus(seat, side, value))
        events.append(Scored(side, value, "bonus", score))
        if score >= self._target:
            self._win(side, "target", events, None, mid_hand=True)

    def _domino(self, seat: int, side: int, events: list[Event]) -> None:
        hands = self.hands
        if self._house:
            pips = sum(b.pips for s in range(self._n) if self.side_of(s) != side for b in hands[s])
            rounded = round_half_up(pips, self._count_by)
            points = 0
            if rounded > 0 and (self.on_board[side] or rounded >= self._get_on):
                points = rounded
                self.on_board[side] = True
        else:
            pips = sum(b.pips for b in hands[1 - seat])
            rounded = points = round_half_up(pips, self._unit)
        self.rock = seat
        events.append(HandOver("domino", seat, side, pips, rounded, points, self._hands_copy()))
        if points and self._add(side, points, "count", events):
            return
        self._await_deal([s for s in range(self._n) if s != seat], "after_domino", events)

    def _add(self, side: int, points: int, reason: str, events: list[Event]) -> bool:
        """Score ``points`` for ``side`` after a hand; True when that wins the game."""
        score = self.scores[side] + points
        self.scores[side] = score
        events.append(Scored(side, points, reason, score))
        if score >= self._target:
            self._win(side, "target", events, None, mid_hand=False)
            return True
        return False

    def _draw(self, action: Draw) -> list[Event]:
        given: Any = action
        position: object = given.position
        if type(position) is not int:
            raise InvalidActionError(
                "bad_field", f"position must be a whole number, not {shorten(position)}"
            )
        seat = self._check_seat(given.seat)
        self._check_turn(seat)
        if self.can_play(seat):
            raise IllegalActionError("must_play", "you can play, so you must: no drawing")
        yard = self.yard
        if not yard:
            raise IllegalActionError("yard_empty", "the yard is empty: you pass")
        if not 0 <= position < len(yard):
            raise IllegalActionError(
                "no_such_position",
                f"the yard has {len(yard)} bones: pick a position 0 to {len(yard) - 1}",
            )
        bone = yard.pop(position)
        self.hands[seat].append(bone)
        self.bonus[seat] = 0  # the doubles bonus needs no draw by you
        drew = Drew(seat, position, bone, len(yard))
        self.history.append(drew)
        return [drew]

    def _pass(self, action: Pass) -> list[Event]:
        given: Any = action
        seat = self._check_seat(given.seat)
        self._check_turn(seat)
        if self.can_play(seat):
            raise IllegalActionError("must_play", "you can play, so you must: no passing")
        if self.yard:
            raise IllegalActionError("must_draw", "you can't play: draw from the yard")
        passed = Passed(seat)
        self.history.append(passed)
        events: list[Event] = [passed]
        self.passes += 1
        self.turn_dumbbells = 0
        if self.passes >= self._n:
            self._blocked(events)
        else:
            self.to_act = seat + 1 if seat + 1 < self._n else 0
        return events

    def _blocked(self, events: list[Event]) -> None:
        self.rock = None  # the next hand is led like a first hand
        hands = self._hands_copy()
        if self._house:
            events.append(HandOver("locked", None, None, 0, 0, 0, hands))
            self._await_deal(list(range(self._n)), "locked", events)
            return
        pips = [sum(b.pips for b in hand) for hand in self.hands]
        winner, loser_pips, points = blocked_result(pips, self._unit)
        rounded = 0 if winner is None else points
        events.append(HandOver("blocked", winner, winner, loser_pips, rounded, points, hands))
        if winner is not None and points and self._add(winner, points, "blocked", events):
            return
        self._await_deal(list(range(self._n)), "blocked", events)

    def _timeout(self, action: Timeout) -> list[Event]:
        given: Any = action
        seat = self._check_seat(given.seat)
        if self.settings.clock is None:
            raise IllegalActionError("no_clock", "this table plays without a turn clock")
        if self.phase is not CHOOSING_DOUBLES:
            self._check_not_stopped()
        if seat != self.to_act:
            raise IllegalActionError(
                "not_your_turn", f"it is seat {self.to_act}'s turn, not seat {seat}'s"
            )
        if self.is_forced_pass():
            raise IllegalActionError("no_clock", "no clock runs on a forced pass")
        self.dumbbells[seat] += 1
        self.turn_dumbbells += 1
        events: list[Event] = [Dumbbell(seat, self.turn_dumbbells, self.dumbbells[seat])]
        if self.turn_dumbbells >= FORFEIT_DUMBBELLS:
            side = self.side_of(seat)
            winner = forfeit_winner(self.scores, side, self.settings.sides)
            events.append(HandOver("forfeit", None, None, 0, 0, 0, self._hands_copy()))
            self._win(winner, "forfeit", events, seat, mid_hand=False)
        return events

    def abandon(self, seat: int) -> list[Event]:
        """The house ends the game because ``seat`` left it (its grace ran out, or the other player
        claimed the game): that seat's side loses, as on a forfeit, with reason ``abandoned``.
        Not a player's action: only the server calls it.

        >>> from engine.rules import TableSettings
        >>> state = GameState.new(TableSettings.build("fives"))
        >>> _ = state.deal_hands([["6-6", "6-3", "5-0", "4-1", "2-2", "3-1", "6-0"],
        ...                       ["5-5", "4-4", "6-5", "5-4", "3-0", "2-1", "1-0"]])
        >>> [e.type for e in state.abandon(1)], state.result.winner, state.result.reason
        (['hand_over', 'game_over'], 0, 'abandoned')
        """
        seat = self._check_seat(seat)
        self._check_not_stopped()
        side = self.side_of(seat)
        winner = forfeit_winner(self.scores, side, self.settings.sides)
        events: list[Event] = [HandOver("abandoned", None, None, 0, 0, 0, self._hands_copy())]
        self._win(winner, "abandoned", events, seat, mid_hand=False)
        return events

    def _choose(self, action: DoublesChoice) -> list[Event]:
        given: Any = action
        seat = self._check_seat(given.seat)
        choice: object = given.choice
        if choice != "play" and choice != "reshuffle":
            raise InvalidActionError(
                "bad_field", f"choice must be play or reshuffle, not {shorten(choice)}"
            )
        if self.phase is not CHOOSING_DOUBLES:
            self._check_not_stopped()
            raise IllegalActionError("no_choice", "there is no doubles choice to make")
        if seat != self.to_act:
            raise IllegalActionError(
                "not_your_turn", f"seat {self.to_act} is choosing, not seat {seat}"
            )
        events: list[Event] = []
        if choice == "play":
            doubles = sum(1 for b in self.hands[seat] if b.is_double)
            self.bonus[seat] = FIVE_DOUBLES_BONUS
            self.bonus_left[seat] = doubles
            chosen = DoublesChosen(seat, choice, FIVE_DOUBLES_BONUS)
            events.append(chosen)
            self.history.append(chosen)
            self._start_lead(events)
        else:
            chosen = DoublesChosen(seat, choice, 0)
            events.append(chosen)
            self.history.append(chosen)
            events.append(HandOver("redeal", None, None, 0, 0, 0, self._hands_copy()))
            self._await_deal(list(range(self._n)), "reshuffle", events)
        return events

    def _win(
        self, side: int, reason: str, events: list[Event], forfeit: int | None, *, mid_hand: bool
    ) -> None:
        """End the game. ``mid_hand``: the hand ends with it, before any count and without a
        ``hand_over`` event, so ``game_over`` shows the hands."""
        settings = self.settings
        skunked = skunked_sides(self.scores, side, settings.skunk_line)
        workouts: tuple[Workout | None, ...] | None = None
        base = settings.workout
        if base is not None:
            workouts = tuple(
                None
                if self.side_of(seat) == side
                else workout_owed(base, self.dumbbells[seat], self.side_of(seat) in skunked)
                for seat in range(self._n)
            )
        self.result = GameResult(side, tuple(skunked), forfeit, reason, workouts)
        self.phase = GAME_OVER
        self.to_act = None
        self.forced_lead = None
        events.append(
            GameOver(
                side,
                skunked,
                forfeit,
                reason,
                self.scores[:],
                None if workouts is None else list(workouts),
                self._hands_copy() if mid_hand else None,
            )
        )

    # -- JSON ----------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The whole state as JSON (string keys only), versioned by ``"v"``. Secret: it holds every
        hand and the yard; clients get :func:`engine.views.seat_view` instead."""
        last = self.last_play
        return {
            "v": FORMAT_VERSION,
            "settings": self.settings.to_dict(),
            "phase": self.phase.value,
            "deal": self.deal_number,
            "to_act": self.to_act,
            "scores": self.scores[:],
            "on_board": self.on_board[:],
            "dumbbells": self.dumbbells[:],
            "turn_dumbbells": self.turn_dumbbells,
            "rock": self.rock,
            "wash": {"seats": self.wash_seats[:], "reason": self.wash_reason},
            "hands": [[str(b) for b in hand] for hand in self.hands],
            "yard": [str(b) for b in self.yard],
            "board": self.board.to_json(),
            "forced_lead": None if self.forced_lead is None else str(self.forced_lead),
            "passes": self.passes,
            "bonus": self.bonus[:],
            "bonus_left": self.bonus_left[:],
            "last_play": None if last is None else last.to_public(),
            "result": None if self.result is None else self.result.to_dict(),
            "history": [_history_json(e) for e in self.history],
        }

    @classmethod
    def from_json(cls, data: object) -> GameState:
        """Read :meth:`to_json` back exactly. Raises :class:`StateFormatError` on anything else."""
        if not isinstance(data, dict):
            raise StateFormatError("a game state is a JSON object")
        if data.get("v") != FORMAT_VERSION:
            raise StateFormatError(
                f"state format version {shorten(data.get('v'))}: this engine reads {FORMAT_VERSION}"
            )
        keys = set(data) - {"history"}  # states written before the history was kept lack it
        if keys != _STATE_KEYS:
            raise StateFormatError(f"state keys differ: {sorted(keys ^ _STATE_KEYS)}")
        try:
            settings = TableSettings.from_dict(data["settings"])
        except SettingsError as exc:
            raise StateFormatError(f"settings: {exc}") from None
        state = cls()
        state._configure(settings)
        n, sides = settings.players, settings.sides
        try:
            state.phase = Phase(data["phase"])
            state.deal_number = _int(data["deal"])
            state.to_act = _seat_or_none(data["to_act"], n)
            state.scores = _ints(data["scores"], sides)
            state.on_board = _bools(data["on_board"], sides)
            state.dumbbells = _ints(data["dumbbells"], n)
            state.turn_dumbbells = _int(data["turn_dumbbells"])
            state.rock = _seat_or_none(data["rock"], n)
            wash = data["wash"]
            assert isinstance(wash, dict) and set(wash) == {"seats", "reason"}
            state.wash_seats = [_seat(s, n) for s in wash["seats"]]
            assert isinstance(wash["reason"], str)
            state.wash_reason = wash["reason"]
            hands = data["hands"]
            assert isinstance(hands, list) and len(hands) == n
            state.hands = [[Bone.parse(b) for b in hand] for hand in hands]
            state.yard = [Bone.parse(b) for b in data["yard"]]
            state.board = Board.from_json(data["board"], settings.spinner)
            forced = data["forced_lead"]
            state.forced_lead = None if forced is None else Bone.parse(forced)
            state.passes = _int(data["passes"])
            state.bonus = _ints(data["bonus"], n)
            state.bonus_left = _ints(data["bonus_left"], n)
            last = data["last_play"]
            state.last_play = None if last is None else _bone_played(last)
            result = data["result"]
            state.result = None if result is None else GameResult.from_dict(result)
            history = data.get("history", [])
            assert isinstance(history, list)
            state.history = [_history_read(entry, n) for entry in history]
            on_table = [b for hand in state.hands for b in hand] + state.yard
            on_table += state.board.bones()
            if state.deal_number:
                assert sorted(on_table) == full_set(settings.max_pip), "bones not conserved"
            assert (state.phase is GAME_OVER) == (state.result is not None)
        except (AssertionError, ValueError, KeyError, TypeError, IndexError) as exc:
            if isinstance(exc, StateFormatError):
                raise
            raise StateFormatError(f"not a state this engine wrote ({exc!r})") from None
        return state

    def public_history(self) -> list[list[Any]]:
        """This hand's moves as everyone at the table saw them, oldest first (compact lists):

        * ``["lead", seat, reason]``: who leads and why (the events' ``lead``); the forced bone
          itself shows only once it is played;
        * ``["choosing", seat]``: that seat was dealt five or more doubles;
        * ``["chose", seat, "play" | "reshuffle"]``;
        * ``["play", seat, bone, end]``: ``end`` is ``None`` for the lead, whose bone is written
          as shown, left half first;
        * ``["draw", seat, position]``: the bone drawn is not shown;
        * ``["pass", seat]``.

        Nothing here is hidden from anyone: it repeats the public forms of the hand's events,
        so a player (or a house player) can read who drew or passed on which open ends.

        >>> from engine.rules import TableSettings
        >>> from engine.actions import Play
        >>> from engine.bones import Bone
        >>> state = GameState.new(TableSettings.build("citizen", players=2))
        >>> _ = state.deal_hands(
        ...     [["6-6", "6-3", "5-0", "4-1", "2-2", "3-1", "6-0"],
        ...      ["5-5", "4-4", "6-5", "5-4", "3-0", "2-1", "1-0"]])
        >>> _ = state.apply(Play(0, Bone.parse("6-6")))
        >>> state.public_history()
        [['lead', 0, 'house_double'], ['play', 0, '6-6', None]]
        """
        return [_history_public(e) for e in self.history]

    def __repr__(self) -> str:
        return (
            f"<GameState {self.settings.mode.value} {self.phase.value} deal={self.deal_number} "
            f"to_act={self.to_act} scores={self.scores}>"
        )


_STATE_KEYS: Final = frozenset(
    {"v", "settings", "phase", "deal", "to_act", "scores", "on_board", "dumbbells"}
    | {"turn_dumbbells", "rock", "wash", "hands", "yard", "board", "forced_lead", "passes"}
    | {"bonus", "bonus_left", "last_play", "result"}
)


def _int(value: object) -> int:
    assert type(value) is int and value >= 0, f"not a count: {shorten(value)}"
    return value


def _ints(value: object, size: int) -> list[int]:
    assert isinstance(value, list) and len(value) == size
    return [_int(v) for v in value]


def _bools(value: object, size: int) -> list[bool]:
    assert isinstance(value, list) and len(value) == size
    assert all(type(v) is bool for v in value)
    return list(value)


def _seat(value: object, n: int) -> int:
    assert type(value) is int and 0 <= value < n, f"not a seat: {shorten(value)}"
    return value


def _seat_or_none(value: object, n: int) -> int | None:
    return None if value is None else _seat(value, n)


def _bone_played(data: object) -> BonePlayed:
    assert isinstance(data, dict)
    end = data["end"]
    return BonePlayed(
        _int(data["seat"]),
        Bone.parse(data["bone"]),
        None if end is None else End(end),
        _int(data["count"]),
        _int(data["points"]),
        bool(data["on_board_now"]),
        data.get("left"),
    )


def _lead_text(played: BonePlayed) -> str:
    bone = played.bone
    left = played.lead_left
    if left is None or left == bone.high:
        return str(bone)
    return f"{bone.low}-{bone.high}"


def _history_public(event: Event) -> list[Any]:
    """One history entry as anyone may see it (see :meth:`GameState.public_history`)."""
    if type(event) is BonePlayed:
        if event.end is None:
            return ["play", event.seat, _lead_text(event), None]
        return ["play", event.seat, str(event.bone), event.end.value]
    if type(event) is Drew:
        return ["draw", event.seat, event.position]
    if type(event) is Passed:
        return ["pass", event.seat]
    if type(event) is Lead:
        return ["lead", event.seat, event.reason]
    if type(event) is DoublesToChoose:
        return ["choosing", event.seat]
    if type(event) is DoublesChosen:
        return ["chose", event.seat, event.choice]
    raise AssertionError(f"not a history event: {event!r}")


def _history_json(event: Event) -> list[Any]:
    """One history entry for the server's own state JSON: the public entry and its private
    parts (the bone drawn, the forced lead, the doubles) and the play's count."""
    entry = _history_public(event)
    if type(event) is BonePlayed:
        entry += [event.count, event.points, event.on_board_now]
    elif type(event) is Drew:
        entry += [str(event.bone), event.yard]
    elif type(event) is Lead:
        entry.append(None if event.bone is None else str(event.bone))
    elif type(event) is DoublesToChoose:
        entry.append([str(b) for b in event.doubles])
    elif type(event) is DoublesChosen:
        entry.append(event.bonus)
    return entry


def _history_read(entry: object, n: int) -> Event:
    assert isinstance(entry, list) and len(entry) >= 2
    kind = entry[0]
    seat = _seat(entry[1], n)
    if kind == "play":
        _, _, text, end, count, points, on_board_now = entry
        bone = Bone.parse(text)
        left = int(text[0]) if end is None else None
        return BonePlayed(
            seat,
            bone,
            None if end is None else End(end),
            _int(count),
            _int(points),
            bool(on_board_now),
            left,
        )
    if kind == "draw":
        _, _, position, text, yard = entry
        return Drew(seat, _int(position), Bone.parse(text), _int(yard))
    if kind == "pass":
        assert len(entry) == 2
        return Passed(seat)
    if kind == "lead":
        _, _, reason, text = entry
        assert isinstance(reason, str)
        return Lead(seat, None if text is None else Bone.parse(text), reason)
    if kind == "choosing":
        _, _, doubles = entry
        return DoublesToChoose(seat, [Bone.parse(b) for b in doubles])
    if kind == "chose":
        _, _, choice, bonus = entry
        assert choice in ("play", "reshuffle")
        return DoublesChosen(seat, choice, _int(bonus))
    raise AssertionError(f"not a history entry: {shorten(entry)}")
