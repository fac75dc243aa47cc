"""The board: the lead, its arms, the spinner, the open ends and their count.

The lead has two ends, left and right; a lead written ``a-b`` shows ``a`` on the left. Each play
joins an end by its matching half, and its other half becomes that end. The spinner (when the
table has one) is the first double played; once both its in-line sides are covered, ``up`` and
``down`` open, each showing the spinner's number.

>>> from engine.bones import Bone
>>> board = Board(spinner_on=True)
>>> [board.play(Bone.parse(b), end) for b, end in
...  [("6-6", None), ("6-3", End.RIGHT), ("6-2", End.LEFT), ("6-5", End.UP), ("6-0", End.DOWN)]]
[12, 15, 5, 10, 10]
>>> [str(end) for end in board.open_ends()]
['left', 'right', 'up', 'down']
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Final

from .bones import Bone
from .errors import AmbiguousActionError, IllegalActionError, InvalidActionError, StateFormatError

__all__ = ["ENDS", "END_INDEX", "Board", "End"]


class End(StrEnum):
    """An end of the board a bone is played on."""

    LEFT = "left"
    RIGHT = "right"
    UP = "up"
    DOWN = "down"


ENDS: Final = (End.LEFT, End.RIGHT, End.UP, End.DOWN)
END_INDEX: Final = {End.LEFT: 0, End.RIGHT: 1, End.UP: 2, End.DOWN: 3}
LEFT: Final = 0
RIGHT: Final = 1
UP: Final = 2
DOWN: Final = 3
LEAD: Final = -1
"""The end index of a lead (it goes on no end)."""

NO_SPINNER: Final = -1
SPINNER_IS_LEAD: Final = 4
"""``Board.spinner_arm``: no spinner yet, the lead, or the arm (LEFT or RIGHT) it sits in."""


class Board:
    """The bones on the table. Mutated only by :meth:`play` (the state validates first)."""

    __slots__ = (
        "arms",
        "ends",
        "lead",
        "lead_left",
        "opened",
        "spinner_arm",
        "spinner_on",
        "spinner_pos",
        "total",
    )

    def __init__(self, spinner_on: bool) -> None:
        self.spinner_on = spinner_on
        self.lead: Bone | None = None
        self.lead_left = -1
        self.arms: list[list[Bone]] = [[], [], [], []]
        """Per end (left, right, up, down), the bones from the lead or spinner outwards."""
        self.ends = [-1, -1, -1, -1]
        """Per end, the number it shows, or -1 when it is not open."""
        self.spinner_arm = NO_SPINNER
        self.spinner_pos = 0
        self.opened = False
        """Whether up and down are open (both in-line sides of the spinner are covered)."""
        self.total = 0
        """The ends total (the count) right now."""

    def copy(self) -> Board:
        other = Board(self.spinner_on)
        other.spinner_on = self.spinner_on
        other.lead = self.lead
        other.lead_left = self.lead_left
        a = self.arms
        other.arms = [a[0][:], a[1][:], a[2][:], a[3][:]]
        other.ends = self.ends[:]
        other.spinner_arm = self.spinner_arm
        other.spinner_pos = self.spinner_pos
        other.opened = self.opened
        other.total = self.total
        return other

    # -- reading -------------------------------------------------------------

    def __len__(self) -> int:
        if self.lead is None:
            return 0
        a = self.arms
        return 1 + len(a[0]) + len(a[1]) + len(a[2]) + len(a[3])

    def bones(self) -> list[Bone]:
        """Every bone on the board: the lead, then the arms left, right, up, down."""
        if self.lead is None:
            return []
        return [self.lead, *self.arms[0], *self.arms[1], *self.arms[2], *self.arms[3]]

    @property
    def spinner(self) -> Bone | None:
        """The spinner, if one has been played."""
        if self.spinner_arm == NO_SPINNER:
            return None
        if self.spinner_arm == SPINNER_IS_LEAD:
            return self.lead
        return self.arms[self.spinner_arm][self.spinner_pos]

    def open_ends(self) -> list[End]:
        """The ends a bone can be played on now (none before the lead)."""
        return [ENDS[e] for e in range(4) if self.ends[e] >= 0]

    def fitting_ends(self, bone: Bone) -> list[End]:
        """The open ends ``bone`` fits, in the order left, right, up, down."""
        ends = self.ends
        return [ENDS[e] for e in range(4) if ends[e] >= 0 and bone.has(ends[e])]

    def can_take(self, bone: Bone) -> bool:
        """Whether ``bone`` fits at least one open end (any bone fits an empty board)."""
        if self.lead is None:
            return True
        return any(v >= 0 and (bone.high == v or bone.low == v) for v in self.ends)

    def resolve(self, bone: Bone, end: End | None, lead_left: int | None = None) -> int:
        """Check that ``bone`` can go on ``end`` and return the end's index (-1 for the lead).

        Raises :class:`IllegalActionError` or :class:`AmbiguousActionError`; changes nothing.
        """
        if self.lead is None:
            if end is not None:
                raise IllegalActionError(
                    "lead_has_no_end", f"{bone} leads: the first bone goes on no end"
                )
            if lead_left is not None and not bone.has(lead_left):
                raise InvalidActionError("bad_field", f"{bone} has no {lead_left} to show left")
            return LEAD
        ends = self.ends
        if end is None:
            fits = [e for e in range(4) if ends[e] >= 0 and bone.has(ends[e])]
            if len(fits) == 1:
                return fits[0]
            if not fits:
                raise IllegalActionError("does_not_fit", f"{bone} fits no open end")
            names = " or ".join(ENDS[e].value for e in fits)
            raise AmbiguousActionError(
                "ambiguous_end", f"{bone} fits more than one end: say which ({names})"
            )
        e = END_INDEX[end]
        value = ends[e]
        if value < 0:
            if not self.spinner_on:
                raise IllegalActionError(
                    "no_spinner", f"this table plays without a spinner: there is no {end.value}"
                )
            raise IllegalActionError(
                "spinner_not_closed",
                f"{end.value} opens only once both sides of the spinner are covered",
            )
        if bone.high != value and bone.low != value:
            raise IllegalActionError(
                "wrong_end", f"the {end.value} end shows {value}: {bone} does not match it"
            )
        return e

    # -- playing -------------------------------------------------------------

    def play(self, bone: Bone, end: End | None, lead_left: int | None = None) -> int:
        """Validate and place a bone; return the new ends total. For tests and tools; the state
        uses :meth:`resolve` then :meth:`place`."""
        return self.place(bone, self.resolve(bone, end, lead_left), lead_left)

    def place(self, bone: Bone, e: int, lead_left: int | None = None) -> int:
        """Place an already checked bone on end index ``e`` (-1: lead). Returns the new total."""
        if e == LEAD:
            left = bone.high if lead_left is None else lead_left
            self.lead = bone
            self.lead_left = left
            self.ends = [left, bone.low if left == bone.high else bone.high, -1, -1]
            if bone.is_double and self.spinner_on:
                self.spinner_arm = SPINNER_IS_LEAD
            self.total = total = bone.pips
            return total
        ends = self.ends
        arms = self.arms
        arm = arms[e]
        v = ends[e]
        arm.append(bone)
        ends[e] = bone.low if bone.high == v else bone.high
        if self.spinner_on and not self.opened:
            spinner_arm = self.spinner_arm
            if spinner_arm == NO_SPINNER:
                if bone.is_double:
                    self.spinner_arm = e
                    self.spinner_pos = len(arm) - 1
            elif spinner_arm == SPINNER_IS_LEAD:
                if arms[0] and arms[1]:
                    self._open()
            elif len(arms[spinner_arm]) > self.spinner_pos + 1:
                self._open()
        # the count (see _count, which this repeats inline because it runs on every play)
        lead = self.lead
        assert lead is not None
        left_arm, right_arm = arms[0], arms[1]
        if left_arm:
            last = left_arm[-1]
            total = last.pips if last.is_double else ends[0]
        else:
            total = 0 if lead.is_double else ends[0]
        if right_arm:
            last = right_arm[-1]
            total += last.pips if last.is_double else ends[1]
        elif not lead.is_double:
            total += ends[1]
        if lead.is_double and not (left_arm and right_arm):
            total += lead.pips
        if self.opened:
            arm = arms[2]
            if arm:
                last = arm[-1]
                total += last.pips if last.is_double else ends[2]
            arm = arms[3]
            if arm:
                last = arm[-1]
                total += last.pips if last.is_double else ends[3]
        self.total = total
        return total

    def _open(self) -> None:
        self.opened = True
        spinner = self.spinner
        assert spinner is not None
        self.ends[UP] = self.ends[DOWN] = spinner.high

    def _count(self) -> int:
        lead = self.lead
        if lead is None:
            return 0
        arms = self.arms
        ends = self.ends
        total = 0
        left, right = arms[0], arms[1]
        if left:
            last = left[-1]
            total += last.pips if last.is_double else ends[0]
        elif not lead.is_double:
            total += ends[0]
        if right:
            last = right[-1]
            total += last.pips if last.is_double else ends[1]
        elif not lead.is_double:
            total += ends[1]
        if lead.is_double and not (left and right):
            # a lead double counts both halves (once) while a side of it is open
            total += lead.pips
        if self.opened:
            for e in (UP, DOWN):
                arm = arms[e]
                if arm:
                    last = arm[-1]
                    total += last.pips if last.is_double else ends[e]
        return total

    def end_counts(self) -> list[tuple[End, int, int]]:
        """Each open end with the number it shows and what it adds to the total.

        >>> from engine.bones import Bone
        >>> board = Board(spinner_on=True)
        >>> _ = board.play(Bone.parse("5-5"), None)
        >>> [(str(e), v, c) for e, v, c in board.end_counts()]
        [('left', 5, 5), ('right', 5, 5)]
        """
        lead = self.lead
        if lead is None:
            return []
        arms = self.arms
        out: list[tuple[End, int, int]] = []
        for e in range(4):
            value = self.ends[e]
            if value < 0:
                continue
            arm = arms[e]
            if arm:
                last = arm[-1]
                counts = last.pips if last.is_double else value
            elif e >= UP:
                counts = 0
            elif not lead.is_double:
                counts = value
            elif arms[1 - e]:
                counts = lead.pips
            else:
                counts = lead.high  # alone: the double counts once, half on each side
            out.append((ENDS[e], value, counts))
        return out

    # -- JSON ----------------------------------------------------------------

    def to_json(self) -> dict[str, Any] | None:
        """Compact form: the lead as shown (left half first), the arms' bones, the spinner's place.

        >>> from engine.bones import Bone
        >>> board = Board(spinner_on=True)
        >>> _ = board.play(Bone.parse("4-1"), None, lead_left=1)
        >>> _ = board.play(Bone.parse("4-4"), End.RIGHT)
        >>> board.to_json()
        {'lead': '1-4', 'arms': [[], ['4-4'], [], []], 'spinner': ['right', 0]}
        """
        lead = self.lead
        if lead is None:
            return None
        other = lead.low if self.lead_left == lead.high else lead.high
        spinner: str | list[Any] | None
        if self.spinner_arm == NO_SPINNER:
            spinner = None
        elif self.spinner_arm == SPINNER_IS_LEAD:
            spinner = "lead"
        else:
            spinner = [ENDS[self.spinner_arm].value, self.spinner_pos]
        return {
            "lead": f"{self.lead_left}-{other}",
            "arms": [[str(b) for b in arm] for arm in self.arms],
            "spinner": spinner,
        }

    @classmethod
    def from_json(cls, data: object, spinner_on: bool) -> Board:
        """Read :meth:`to_json` back, checking that every bone joins its neighbour."""
        board = cls(spinner_on)
        if data is None:
            return board
        try:
            assert isinstance(data, dict) and set(data) == {"lead", "arms", "spinner"}
            lead_text = data["lead"]
            assert isinstance(lead_text, str) and len(lead_text) == 3
            lead = Bone.parse(lead_text)
            board.place(lead, LEAD, int(lead_text[0]))
            arms = data["arms"]
            assert isinstance(arms, list) and len(arms) == 4
            spinner = data["spinner"]
            if spinner_on:
                if spinner is None:
                    assert not lead.is_double
                elif spinner == "lead":
                    assert lead.is_double
                else:
                    assert isinstance(spinner, list) and len(spinner) == 2
                    assert spinner[0] in ("left", "right") and type(spinner[1]) is int
                    e = END_INDEX[End(spinner[0])]
                    assert 0 <= spinner[1] < len(arms[e])
                    assert Bone.parse(arms[e][spinner[1]]).is_double
            else:
                assert spinner is None
            board.spinner_arm = NO_SPINNER  # placed again below, in a known order
            for e in (LEFT, RIGHT):
                for text in arms[e]:
                    bone = Bone.parse(text)
                    assert board.ends[e] >= 0 and bone.has(board.ends[e])
                    board.arms[e].append(bone)
                    board.ends[e] = bone.other(board.ends[e])
            if spinner_on and spinner is not None:
                if spinner == "lead":
                    board.spinner_arm = SPINNER_IS_LEAD
                    closed = bool(board.arms[0] and board.arms[1])
                else:
                    board.spinner_arm = END_INDEX[End(spinner[0])]
                    board.spinner_pos = spinner[1]
                    closed = len(board.arms[board.spinner_arm]) > spinner[1] + 1
                if closed:
                    board._open()
            for e in (UP, DOWN):
                if arms[e]:
                    assert board.opened
                for text in arms[e]:
                    bone = Bone.parse(text)
                    assert bone.has(board.ends[e])
                    board.arms[e].append(bone)
                    board.ends[e] = bone.other(board.ends[e])
            bones = board.bones()
            assert len(set(bones)) == len(bones)
        except (AssertionError, ValueError, KeyError, TypeError, IndexError) as exc:
            raise StateFormatError(f"board: not a board this engine wrote ({exc!r})") from None
        board.total = board._count()
        return board

    def to_view(self) -> dict[str, Any]:
        """A structure a client can draw: the lead, each arm from the lead or spinner outwards
        with each bone's inner and outer half, the spinner's place, the open ends and the total."""
        lead = self.lead
        if lead is None:
            return {"lead": None, "spinner": None, "arms": None, "ends": [], "total": 0, "size": 0}
        right_half = lead.low if self.lead_left == lead.high else lead.high
        arms: dict[str, list[dict[str, Any]]] = {}
        for e in range(4):
            start = self.lead_left if e == LEFT else right_half
            if e >= UP:
                spinner = self.spinner
                start = spinner.high if spinner is not None else -1
            rows = []
            for bone in self.arms[e]:
                outer = bone.other(start)
                rows.append({"bone": str(bone), "inner": start, "outer": outer})
                start = outer
            arms[ENDS[e].value] = rows
        spinner_view: dict[str, Any] | None = None
        spinner_bone = self.spinner
        if spinner_bone is not None:
            on_lead = self.spinner_arm == SPINNER_IS_LEAD
            spinner_view = {
                "bone": str(spinner_bone),
                "arm": "lead" if on_lead else ENDS[self.spinner_arm].value,
                "index": None if on_lead else self.spinner_pos,
                "closed": self.opened,
            }
        return {
            "lead": {"bone": str(lead), "left": self.lead_left, "right": right_half},
            "spinner": spinner_view,
            "arms": arms,
            "ends": [
                {"end": end.value, "value": value, "counts": counts}
                for end, value, counts in self.end_counts()
            ],
            "total": self.total,
            "size": len(self),
        }
