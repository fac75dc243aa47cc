"""Checking deals: the deal comes from outside (a verifiable shuffle, or a test's exact hands).

A deal must use the table's whole set exactly once, with the table's hand size for every seat.
Errors are :class:`~engine.errors.DealError` with ``.field`` naming the place at fault.

>>> from engine.rules import TableSettings
>>> t = TableSettings.build("citizen", players=4)
>>> order = [str(b) for b in reversed(full_set(6))]
>>> hands, yard = split_order(t, order)
>>> [str(b) for b in hands[0]], yard
(['6-6', '6-5', '6-4', '6-3', '6-2', '6-1', '6-0'], [])
>>> split_order(t, order[:-1] + ["6-6"])
Traceback (most recent call last):
...
engine.errors.DealError: order[27]: 6-6 is dealt twice
"""

from __future__ import annotations

from collections.abc import Sequence

from .bones import Bone, full_set, set_name
from .errors import DealError, InvalidActionError, shorten
from .rules import TableSettings

__all__ = ["check_hands", "split_order"]

_FULL_SETS = {6: frozenset(full_set(6)), 9: frozenset(full_set(9))}


def _bone(value: object, field: str, max_pip: int) -> Bone:
    if isinstance(value, Bone):
        bone = value
    else:
        try:
            bone = Bone.parse(value)
        except InvalidActionError:
            raise DealError("unknown_bone", field, f"{shorten(value)} is not a bone") from None
    if bone.high > max_pip:
        raise DealError("unknown_bone", field, f"there is no {bone} in a {set_name(max_pip)} set")
    return bone


def _read(values: object, field: str, max_pip: int, seen: set[Bone]) -> list[Bone]:
    if isinstance(values, str | bytes) or not isinstance(values, Sequence):
        raise DealError("bad_deal", field, "must be a list of bones")
    bones = []
    for i, value in enumerate(values):
        bone = _bone(value, f"{field}[{i}]", max_pip)
        if bone in seen:
            raise DealError("duplicate_bone", f"{field}[{i}]", f"{bone} is dealt twice")
        seen.add(bone)
        bones.append(bone)
    return bones


def _missing(settings: TableSettings, seen: set[Bone]) -> list[Bone]:
    return [b for b in full_set(settings.max_pip) if b not in seen]


def split_order(
    settings: TableSettings, order: Sequence[Bone | str]
) -> tuple[list[list[Bone]], list[Bone]]:
    """Deal a full shuffled order: seat ``i`` gets ``order[i*deal:(i+1)*deal]``, the rest is the
    yard, in order."""
    size = settings.set_size
    if type(order) is list and len(order) == size and set(map(type, order)) == {Bone}:
        # the common case, a shuffled list of bones: checked at C speed (bones are unique objects)
        as_set = set(order)
        if len(as_set) == size and as_set <= _FULL_SETS[settings.max_pip]:
            return _split(settings, order)
    seen: set[Bone] = set()
    bones = _read(order, "order", settings.max_pip, seen)
    missing = _missing(settings, seen)
    if missing:
        raise DealError(
            "missing_bone", "order", f"the order leaves out {', '.join(map(str, missing[:5]))}"
        )
    return _split(settings, bones)


def _split(settings: TableSettings, bones: list[Bone]) -> tuple[list[list[Bone]], list[Bone]]:
    size = settings.deal
    hands = [bones[i * size : (i + 1) * size] for i in range(settings.players)]
    return hands, bones[settings.players * size :]


def check_hands(
    settings: TableSettings,
    hands: Sequence[Sequence[Bone | str]],
    yard: Sequence[Bone | str] | None = None,
) -> tuple[list[list[Bone]], list[Bone]]:
    """Check an exact deal. ``yard`` left out (``None``): the rest of the set, in set order."""
    if isinstance(hands, str | bytes) or not isinstance(hands, Sequence):
        raise DealError("bad_deal", "hands", "must be a list of hands")
    if len(hands) != settings.players:
        raise DealError(
            "hand_count", "hands", f"the table has {settings.players} seats, not {len(hands)} hands"
        )
    seen: set[Bone] = set()
    read = []
    for seat, hand in enumerate(hands):
        bones = _read(hand, f"hands[{seat}]", settings.max_pip, seen)
        if len(bones) != settings.deal:
            raise DealError(
                "hand_size", f"hands[{seat}]", f"holds {len(bones)} bones, not {settings.deal}"
            )
        read.append(bones)
    if yard is None:
        return read, _missing(settings, seen)
    yard_bones = _read(yard, "yard", settings.max_pip, seen)
    missing = _missing(settings, seen)
    if missing:
        raise DealError(
            "missing_bone",
            "yard",
            f"the deal leaves out {', '.join(map(str, missing[:5]))}: use the whole set once",
        )
    return read, yard_bones
