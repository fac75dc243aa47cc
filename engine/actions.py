"""Actions a seat can take, and the client JSON they are read from.

JSON shapes (every field required unless marked optional; no other fields):

* ``{"type": "play", "seat": 0, "bone": "6-4", "end": "left"}``; ``end`` is optional (``null`` or
  left out) when the bone fits exactly one open end, and must be left out for a lead. A lead
  written ``"4-6"`` shows 4 on the left.
* ``{"type": "draw", "seat": 0, "position": 3}``: pick the face-down bone at that position of the
  yard (0 is the first); the yard closes up after each draw.
* ``{"type": "pass", "seat": 0}``
* ``{"type": "doubles", "seat": 0, "choice": "play"}`` (or ``"reshuffle"``): the choice of a seat
  dealt five or more doubles.
* ``{"type": "timeout", "seat": 0}``: the seat's turn clock ran out (sent by the site's clock).

>>> parse_action({"type": "play", "seat": 1, "bone": "4-6", "end": "right"})
Play(seat=1, bone=Bone.parse('6-4'), end=<End.RIGHT: 'right'>, lead_left=4)
>>> parse_action({"type": "play", "seat": 1, "bone": "7-x"})
Traceback (most recent call last):
...
engine.errors.InvalidActionError: '7-x' is not a bone: write it as two halves 0-9, like "6-4"
>>> Draw(0, 3).to_dict()
{'type': 'draw', 'seat': 0, 'position': 3}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, Literal

from .board import ENDS, End
from .bones import MAX_PIP, Bone, bone_by_index, set_size
from .errors import InvalidActionError, shorten

__all__ = [
    "Action",
    "DoublesChoice",
    "Draw",
    "Pass",
    "Play",
    "Timeout",
    "parse_action",
]

MAX_SEATS: Final = 4
MAX_POSITION: Final = set_size(MAX_PIP)


@dataclass(frozen=True, slots=True)
class Play:
    """Play ``bone`` on ``end`` (``None``: the lead, or the only end it fits).

    ``lead_left`` is the half a lead shows on the left (``None``: the higher half). It is how the
    bone was written and is not part of the action's identity: any orientation of a legal lead is
    legal, so ``Play(0, b, None, lead_left=1) == Play(0, b)``.
    """

    type: ClassVar[str] = "play"
    seat: int
    bone: Bone
    end: End | None = None
    lead_left: int | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        bone = self.bone
        text = str(bone)
        if self.lead_left is not None and self.lead_left != bone.high:
            text = f"{bone.low}-{bone.high}"
        data: dict[str, Any] = {"type": "play", "seat": self.seat, "bone": text}
        if self.end is not None:
            data["end"] = self.end.value
        return data


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw the face-down bone at ``position`` in the yard."""

    type: ClassVar[str] = "draw"
    seat: int
    position: int

    def to_dict(self) -> dict[str, Any]:
        return {"type": "draw", "seat": self.seat, "position": self.position}


@dataclass(frozen=True, slots=True)
class Pass:
    """Pass: allowed only when the seat cannot play and the yard is empty."""

    type: ClassVar[str] = "pass"
    seat: int

    def to_dict(self) -> dict[str, Any]:
        return {"type": "pass", "seat": self.seat}


DoublesChoiceValue = Literal["play", "reshuffle"]


@dataclass(frozen=True, slots=True)
class DoublesChoice:
    """A seat dealt five or more doubles plays them for +100, or has everyone reshuffle."""

    type: ClassVar[str] = "doubles"
    seat: int
    choice: DoublesChoiceValue

    def to_dict(self) -> dict[str, Any]:
        return {"type": "doubles", "seat": self.seat, "choice": self.choice}


@dataclass(frozen=True, slots=True)
class Timeout:
    """The seat's turn clock ran out (Gym tables): a dumbbell, and the clock starts over."""

    type: ClassVar[str] = "timeout"
    seat: int

    def to_dict(self) -> dict[str, Any]:
        return {"type": "timeout", "seat": self.seat}


Action = Play | Draw | Pass | DoublesChoice | Timeout

# Shared instances for the legal-action lists (actions are immutable, so sharing is safe and
# saves building thousands of objects in bot simulations).
_PLAYS: Final = [
    [[Play(seat, bone_by_index(i), None if e < 0 else ENDS[e]) for e in range(-1, 4)]
     for i in range(MAX_POSITION)]
    for seat in range(MAX_SEATS)
]  # fmt: skip
_DRAWS: Final = [[Draw(seat, p) for p in range(MAX_POSITION)] for seat in range(MAX_SEATS)]
_PASSES: Final = [Pass(seat) for seat in range(MAX_SEATS)]
_CHOICES: Final = [
    [DoublesChoice(seat, "play"), DoublesChoice(seat, "reshuffle")] for seat in range(MAX_SEATS)
]


def play_table(seat: int) -> list[list[Play]]:
    """Shared plays of a seat, indexed ``[bone.index][end index + 1]`` (0 is the lead)."""
    return _PLAYS[seat]


def draws_for(seat: int, yard_size: int) -> list[Draw]:
    return _DRAWS[seat][:yard_size]


def pass_for(seat: int) -> Pass:
    return _PASSES[seat]


def choices_for(seat: int) -> list[DoublesChoice]:
    return _CHOICES[seat][:]


# ---------------------------------------------------------------- parsing

_FIELDS: Final = {
    "play": ({"type", "seat", "bone"}, {"end"}),
    "draw": ({"type", "seat", "position"}, set()),
    "pass": ({"type", "seat"}, set()),
    "doubles": ({"type", "seat", "choice"}, set()),
    "timeout": ({"type", "seat"}, set()),
}
_TYPES: Final = ", ".join(_FIELDS)


def _bad(message: str) -> InvalidActionError:
    return InvalidActionError("bad_field", message)


def parse_seat(value: object) -> int:
    """A seat number 0..3 from JSON."""
    if type(value) is not int:
        raise _bad(f"seat must be a seat number, not {shorten(value)}")
    if not 0 <= value < MAX_SEATS:
        raise InvalidActionError("no_such_seat", f"there is no seat {value}")
    return value


def parse_end(value: object) -> End | None:
    """An end name from JSON (``None`` stays ``None``)."""
    if value is None:
        return None
    if type(value) is not str or value not in End.__members__.values():
        raise _bad(f"end must be left, right, up or down, not {shorten(value)}")
    return End(value)


def parse_play_bone(value: object) -> tuple[Bone, int | None]:
    """A bone as written by a player: the bone, and the half written first when that is the
    lower one (how a lead is shown)."""
    bone = Bone.parse(value)
    first = int(value[0]) if isinstance(value, str) else bone.high
    return bone, (first if first != bone.high else None)


def parse_action(data: object) -> Action:
    """Read a client's JSON action. Raises :class:`InvalidActionError` saying what is wrong.

    >>> parse_action({"type": "doubles", "seat": 2, "choice": "reshuffle"})
    DoublesChoice(seat=2, choice='reshuffle')
    >>> parse_action({"type": "pass", "seat": 0, "bone": "6-6"})
    Traceback (most recent call last):
    ...
    engine.errors.InvalidActionError: a pass action has no field 'bone'
    """
    if not isinstance(data, Mapping):
        raise InvalidActionError("bad_action", f"an action is a JSON object, not {shorten(data)}")
    kind = data.get("type")
    if type(kind) is not str or kind not in _FIELDS:
        raise InvalidActionError(
            "unknown_type", f"unknown action type {shorten(kind)}: use one of {_TYPES}"
        )
    required, optional = _FIELDS[kind]
    for key in data:
        if key not in required and key not in optional:
            raise _bad(f"a {kind} action has no field {shorten(key)}")
    for key in sorted(required):
        if key not in data:
            raise _bad(f"a {kind} action needs the field '{key}'")
    seat = parse_seat(data["seat"])
    if kind == "play":
        bone, first = parse_play_bone(data["bone"])
        return Play(seat, bone, parse_end(data.get("end")), first)
    if kind == "draw":
        position = data["position"]
        if type(position) is not int or not 0 <= position < MAX_POSITION:
            raise _bad(f"position must be a yard position 0..{MAX_POSITION - 1}, not "
                       f"{shorten(position)}")  # fmt: skip
        return _DRAWS[seat][position]
    if kind == "pass":
        return _PASSES[seat]
    if kind == "doubles":
        choice = data["choice"]
        if choice == "play":
            return _CHOICES[seat][0]
        if choice == "reshuffle":
            return _CHOICES[seat][1]
        raise _bad(f"choice must be play or reshuffle, not {shorten(choice)}")
    return Timeout(seat)
