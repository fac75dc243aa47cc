"""Bones: the tiles of the game, and the sets they come in.

A bone is written ``a-b`` in either order; its canonical text writes the higher half first.

>>> bone = Bone.parse("4-6")
>>> str(bone), bone.high, bone.low, bone.pips, bone.is_double
('6-4', 6, 4, 10, False)
>>> Bone.parse("6-4") == Bone(6, 4) == Bone.of(4, 6)
True
>>> Bone.parse("3-3").pips
6
>>> len(full_set(6)), len(full_set(9))
(28, 55)
>>> Bone.parse("six-four")
Traceback (most recent call last):
...
engine.errors.InvalidActionError: 'six-four' is not a bone: write it as two halves 0-9, like "6-4"
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from .errors import InvalidActionError, shorten

__all__ = ["MAX_PIP", "Bone", "bone_by_index", "full_set", "set_name", "set_size"]

MAX_PIP: Final = 9
"""The largest half of any set the engine knows (double-nine)."""

SET_NAMES: Final = {6: "double-six", 9: "double-nine"}


_SHARED: list[Bone] = []
"""Every bone of the double-nine set, by index: each bone exists once (see ``Bone.__new__``)."""


@dataclass(frozen=True, slots=True, eq=False)
class Bone:
    """One bone. ``high >= low``; both 0..9.

    Each bone exists once: ``Bone(6, 4)``, ``Bone.parse("4-6")`` and ``Bone.of(4, 6)`` are the
    same object, so equality is identity (fast in hands and sets) and equal bones hash equal.
    ``index`` numbers every bone of the double-nine set (0-0 is 0, 1-0 is 1, 1-1 is 2, ...); a
    double-six bone has the same index in both sets.
    """

    high: int
    low: int
    pips: int = field(init=False)
    is_double: bool = field(init=False)
    index: int = field(init=False)
    mask: int = field(init=False, repr=False)

    def __new__(cls, high: int, low: int) -> Bone:
        if _SHARED and type(high) is int and type(low) is int and 0 <= low <= high <= MAX_PIP:
            return _SHARED[high * (high + 1) // 2 + low]
        return object.__new__(cls)

    def __post_init__(self) -> None:
        high, low = self.high, self.low
        if type(high) is not int or type(low) is not int or not 0 <= low <= high <= MAX_PIP:
            raise InvalidActionError(
                "unknown_bone", f"no such bone: high {shorten(high)}, low {shorten(low)}"
            )
        object.__setattr__(self, "pips", high + low)
        object.__setattr__(self, "is_double", high == low)
        object.__setattr__(self, "index", high * (high + 1) // 2 + low)
        object.__setattr__(self, "mask", (1 << high) | (1 << low))

    def __hash__(self) -> int:
        return self.index  # each bone exists once, so its index is as good as its identity

    def __reduce__(self) -> tuple[object, tuple[int, int]]:
        return (Bone.of, (self.high, self.low))

    def __str__(self) -> str:
        return f"{self.high}-{self.low}"

    def __repr__(self) -> str:
        return f"Bone.parse({str(self)!r})"

    def __lt__(self, other: Bone) -> bool:
        return self.index < other.index

    @staticmethod
    def of(a: int, b: int) -> Bone:
        """The bone with halves ``a`` and ``b``, in either order (the shared instance)."""
        if (
            type(a) is not int
            or type(b) is not int
            or not (0 <= a <= MAX_PIP and 0 <= b <= MAX_PIP)
        ):
            raise InvalidActionError("unknown_bone", f"no such bone: {shorten(a)}-{shorten(b)}")
        return _BY_HALVES[a][b]

    @staticmethod
    def parse(text: object) -> Bone:
        """Read ``"a-b"`` (either order). Raises :class:`InvalidActionError` (a ValueError)."""
        bone = _BY_TEXT.get(text) if type(text) is str else None
        if bone is None:
            raise InvalidActionError(
                "unknown_bone",
                f'{shorten(text)} is not a bone: write it as two halves 0-9, like "6-4"',
            )
        return bone

    def has(self, half: int) -> bool:
        """Whether one of the bone's halves shows ``half``.

        >>> Bone.parse("6-4").has(4), Bone.parse("6-4").has(5)
        (True, False)
        """
        return self.high == half or self.low == half

    def other(self, half: int) -> int:
        """The half opposite ``half`` (the one that shows once ``half`` is joined).

        >>> Bone.parse("6-4").other(4)
        6
        """
        return self.low if self.high == half else self.high


_ALL: Final = [Bone(high, low) for high in range(MAX_PIP + 1) for low in range(high + 1)]
_SHARED.extend(_ALL)
_BY_HALVES: Final = [
    [_ALL[max(a, b) * (max(a, b) + 1) // 2 + min(a, b)] for b in range(10)] for a in range(10)
]
_BY_TEXT: Final = {f"{a}-{b}": _BY_HALVES[a][b] for a in range(10) for b in range(10)}


def bone_by_index(index: int) -> Bone:
    """The shared bone with this index (see :attr:`Bone.index`)."""
    return _ALL[index]


def set_size(max_pip: int) -> int:
    """Number of bones in the double-``max_pip`` set: 28 for 6, 55 for 9."""
    return (max_pip + 1) * (max_pip + 2) // 2


def set_name(max_pip: int) -> str:
    """``"double-six"`` or ``"double-nine"``."""
    return SET_NAMES.get(max_pip, f"double-{max_pip}")


def full_set(max_pip: int) -> list[Bone]:
    """Every bone of the double-``max_pip`` set, 0-0 first, in index order.

    >>> [str(b) for b in full_set(1)]
    ['0-0', '1-0', '1-1']
    """
    if type(max_pip) is not int or not 0 <= max_pip <= MAX_PIP:
        raise ValueError(f"no double-{max_pip} set")
    return _ALL[: set_size(max_pip)]
