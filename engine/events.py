"""What happened: the events :meth:`GameState.apply` and :meth:`GameState.deal` return.

Every event has three JSON forms, all with string keys only:

* ``to_dict()``: everything, for the server's own log;
* ``to_public()``: what every seat and every spectator may see;
* ``to_seat(seat)``: what that seat may see (its own private parts added to the public form).

The events made during play write out their ``__init__`` (the same as the dataclass's own): a
dataclass's generated one runs as Python even in the compiled engine, and one is made for
nearly every action. ``type`` is a property for the same reason (a class attribute on a
dataclass does not survive compiling).

Private parts: :class:`Dealt` (each seat's hand), :class:`Drew` (the bone drawn),
:class:`DoublesToChoose` (which doubles) and :class:`Lead` (the forced lead bone). Hands become
public only in :class:`HandOver` and :class:`GameOver`, when the hand is over.

>>> from engine.bones import Bone
>>> e = Drew(seat=1, position=4, bone=Bone.parse("5-5"), yard=6)
>>> e.to_public()
{'type': 'drew', 'seat': 1, 'position': 4, 'yard': 6}
>>> e.to_seat(1)
{'type': 'drew', 'seat': 1, 'position': 4, 'yard': 6, 'bone': '5-5'}
>>> e.to_seat(0) == e.to_public()
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .board import End
from .bones import Bone
from .rules import Workout

__all__ = [
    "BonePlayed",
    "Bonus",
    "Dealt",
    "DoublesChosen",
    "DoublesToChoose",
    "Drew",
    "Dumbbell",
    "Event",
    "GameOver",
    "HandOver",
    "Lead",
    "Passed",
    "Scored",
    "Wash",
]


def _bones(bones: list[Bone]) -> list[str]:
    return [str(b) for b in bones]


class Event:
    """Base of all events."""

    __slots__ = ()

    @property
    def type(self) -> str:
        """The event's name on the wire (``"bone_played"``, ...)."""
        return "event"

    def to_dict(self) -> dict[str, Any]:
        """Everything, private parts included: for the server's log only."""
        return self.to_public()

    def to_public(self) -> dict[str, Any]:
        """What anyone at or watching the table may see (each event adds its fields)."""
        return {"type": self.type}

    def to_seat(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see."""
        return self.to_public()


@dataclass(slots=True)
class Wash(Event):
    """The bones are to be washed and dealt: who washes, and why.

    ``reason``: ``first_hand``, ``after_domino`` (everyone but the rock), ``locked``, ``blocked``,
    ``redeal`` (nobody held a double) or ``reshuffle`` (five or more doubles, reshuffled).
    """

    seats: list[int]
    reason: str
    rock: int | None

    def __init__(self, seats: list[int], reason: str, rock: int | None) -> None:
        self.seats = seats
        self.reason = reason
        self.rock = rock

    @property
    def type(self) -> str:
        return "wash"

    def to_public(self) -> dict[str, Any]:
        return {"type": "wash", "seats": self.seats, "reason": self.reason, "rock": self.rock}


@dataclass(slots=True)
class Dealt(Event):
    """A deal: every seat's hand (private to that seat) and the yard's size."""

    deal: int
    hands: list[list[Bone]]
    yard: int

    def __init__(self, deal: int, hands: list[list[Bone]], yard: int) -> None:
        self.deal = deal
        self.hands = hands
        self.yard = yard

    @property
    def type(self) -> str:
        return "dealt"

    def to_public(self) -> dict[str, Any]:
        return {
            "type": "dealt",
            "deal": self.deal,
            "hand_sizes": [len(h) for h in self.hands],
            "yard": self.yard,
        }

    def to_seat(self, seat: int) -> dict[str, Any]:
        data = self.to_public()
        if 0 <= seat < len(self.hands):
            data["hand"] = _bones(self.hands[seat])
        return data

    def to_dict(self) -> dict[str, Any]:
        data = self.to_public()
        data["hands"] = [_bones(h) for h in self.hands]
        return data


@dataclass(slots=True)
class DoublesToChoose(Event):
    """A seat was dealt five or more doubles and must choose: play them for +100, or reshuffle."""

    seat: int
    doubles: list[Bone]

    @property
    def type(self) -> str:
        return "doubles_to_choose"

    def to_public(self) -> dict[str, Any]:
        return {"type": "doubles_to_choose", "seat": self.seat}

    def to_seat(self, seat: int) -> dict[str, Any]:
        data = self.to_public()
        if seat == self.seat:
            data["doubles"] = _bones(self.doubles)
        return data

    def to_dict(self) -> dict[str, Any]:
        return self.to_seat(self.seat)


@dataclass(slots=True)
class DoublesChosen(Event):
    seat: int
    choice: str
    bonus: int
    """The bonus now at stake (100 when played, 0 when reshuffled)."""

    @property
    def type(self) -> str:
        return "doubles_chosen"

    def to_public(self) -> dict[str, Any]:
        return {"type": "doubles_chosen", "seat": self.seat, "choice": self.choice,
                "bonus": self.bonus}  # fmt: skip


@dataclass(slots=True)
class Lead(Event):
    """Who leads the hand and why: ``rock`` (any bone), ``house_double``, ``next_double`` or
    ``highest_double`` (that bone, forced). The forced bone itself is shown only to the leader
    until it is down."""

    seat: int
    bone: Bone | None
    reason: str

    def __init__(self, seat: int, bone: Bone | None, reason: str) -> None:
        self.seat = seat
        self.bone = bone
        self.reason = reason

    @property
    def type(self) -> str:
        return "lead"

    def to_public(self) -> dict[str, Any]:
        return {"type": "lead", "seat": self.seat, "reason": self.reason}

    def to_seat(self, seat: int) -> dict[str, Any]:
        data = self.to_public()
        if seat == self.seat and self.bone is not None:
            data["bone"] = str(self.bone)
        return data

    def to_dict(self) -> dict[str, Any]:
        return self.to_seat(self.seat)


@dataclass(slots=True)
class BonePlayed(Event):
    """A bone went down: on which end (``None`` for the lead), the ends total after it, and the
    points that total scored (0 when it scored nothing)."""

    seat: int
    bone: Bone
    end: End | None
    count: int
    points: int
    on_board_now: bool
    lead_left: int | None = None
    """For a lead: the half shown on the left."""

    def __init__(
        self,
        seat: int,
        bone: Bone,
        end: End | None,
        count: int,
        points: int,
        on_board_now: bool,
        lead_left: int | None = None,
    ) -> None:
        self.seat = seat
        self.bone = bone
        self.end = end
        self.count = count
        self.points = points
        self.on_board_now = on_board_now
        self.lead_left = lead_left

    @property
    def type(self) -> str:
        return "bone_played"

    def to_public(self) -> dict[str, Any]:
        data = {
            "type": "bone_played",
            "seat": self.seat,
            "bone": str(self.bone),
            "end": None if self.end is None else self.end.value,
            "count": self.count,
            "points": self.points,
            "on_board_now": self.on_board_now,
        }
        if self.lead_left is not None:
            data["left"] = self.lead_left
        return data


@dataclass(slots=True)
class Drew(Event):
    """A seat drew the face-down bone at ``position``; the bone is private to that seat."""

    seat: int
    position: int
    bone: Bone
    yard: int
    """The yard's size after the draw."""

    def __init__(self, seat: int, position: int, bone: Bone, yard: int) -> None:
        self.seat = seat
        self.position = position
        self.bone = bone
        self.yard = yard

    @property
    def type(self) -> str:
        return "drew"

    def to_public(self) -> dict[str, Any]:
        return {"type": "drew", "seat": self.seat, "position": self.position, "yard": self.yard}

    def to_seat(self, seat: int) -> dict[str, Any]:
        data = self.to_public()
        if seat == self.seat:
            data["bone"] = str(self.bone)
        return data

    def to_dict(self) -> dict[str, Any]:
        return self.to_seat(self.seat)


@dataclass(slots=True)
class Passed(Event):
    """A seat passed: it could not play, and the yard was empty (or there is none)."""

    seat: int

    def __init__(self, seat: int) -> None:
        self.seat = seat

    @property
    def type(self) -> str:
        return "passed"

    def to_public(self) -> dict[str, Any]:
        return {"type": "passed", "seat": self.seat}


@dataclass(slots=True)
class Scored(Event):
    """A side's score went up. ``reason``: ``ends``, ``bonus``, ``count`` (a domino) or
    ``blocked`` (head-to-head, fewest pips)."""

    side: int
    points: int
    reason: str
    score: int
    """The side's score after this."""

    def __init__(self, side: int, points: int, reason: str, score: int) -> None:
        self.side = side
        self.points = points
        self.reason = reason
        self.score = score

    @property
    def type(self) -> str:
        return "scored"

    def to_public(self) -> dict[str, Any]:
        return {"type": "scored", "side": self.side, "points": self.points,
                "reason": self.reason, "score": self.score}  # fmt: skip


@dataclass(slots=True)
class Bonus(Event):
    """A doubles bonus collected (+50 for four doubles, +100 for five or more)."""

    seat: int
    side: int
    points: int

    @property
    def type(self) -> str:
        return "bonus"

    def to_public(self) -> dict[str, Any]:
        return {"type": "bonus", "seat": self.seat, "side": self.side, "points": self.points}


@dataclass(slots=True)
class Dumbbell(Event):
    """A Gym turn clock ran out: one more dumbbell, in this turn and in this game."""

    seat: int
    in_turn: int
    in_game: int

    @property
    def type(self) -> str:
        return "dumbbell"

    def to_public(self) -> dict[str, Any]:
        return {"type": "dumbbell", "seat": self.seat, "in_turn": self.in_turn,
                "in_game": self.in_game}  # fmt: skip


@dataclass(slots=True)
class HandOver(Event):
    """The hand is over. ``result``: ``domino``, ``locked``, ``blocked``, ``redeal``, ``forfeit`` or
    ``abandoned``.

    ``seat`` is the hand's winner (``None`` for locked, redeal, forfeit and an even block);
    ``pips`` the raw pips counted (blocked: the loser's), ``rounded`` after rounding once,
    ``points`` what it added. ``hands`` shows every hand as it was left.
    """

    result: str
    seat: int | None
    side: int | None
    pips: int
    rounded: int
    points: int
    hands: list[list[Bone]]

    def __init__(
        self,
        result: str,
        seat: int | None,
        side: int | None,
        pips: int,
        rounded: int,
        points: int,
        hands: list[list[Bone]],
    ) -> None:
        self.result = result
        self.seat = seat
        self.side = side
        self.pips = pips
        self.rounded = rounded
        self.points = points
        self.hands = hands

    @property
    def type(self) -> str:
        return "hand_over"

    def to_public(self) -> dict[str, Any]:
        return {
            "type": "hand_over",
            "result": self.result,
            "seat": self.seat,
            "side": self.side,
            "pips": self.pips,
            "rounded": self.rounded,
            "points": self.points,
            "hands": [_bones(h) for h in self.hands],
        }


@dataclass(slots=True)
class GameOver(Event):
    """The game is over. ``reason``: ``target`` (a side reached it) or ``forfeit`` (five dumbbells
    in one turn). ``workouts`` (Gym) lists per seat what that player owes (``None``: nothing).
    ``hands`` shows the hands when the game ended in the middle of a hand, else ``None``."""

    winner: int
    skunked: list[int]
    forfeit: int | None
    reason: str
    scores: list[int]
    workouts: list[Workout | None] | None
    hands: list[list[Bone]] | None

    @property
    def type(self) -> str:
        return "game_over"

    def to_public(self) -> dict[str, Any]:
        return {
            "type": "game_over",
            "winner": self.winner,
            "skunked": self.skunked,
            "forfeit": self.forfeit,
            "reason": self.reason,
            "scores": self.scores,
            "workouts": None
            if self.workouts is None
            else [None if w is None else w.to_dict() for w in self.workouts],
            "hands": None if self.hands is None else [_bones(h) for h in self.hands],
        }
