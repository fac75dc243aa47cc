"""Bones and sets."""

from __future__ import annotations

import copy
import pickle

import pytest

from engine import Bone, InvalidActionError, full_set
from engine.bones import bone_by_index, set_size


def test_parse_either_order_writes_higher_first() -> None:
    assert str(Bone.parse("4-6")) == "6-4"
    assert Bone.parse("4-6") == Bone.parse("6-4") == Bone(6, 4) == Bone.of(4, 6)
    assert Bone.parse("4-6") is Bone.parse("6-4")  # one instance per bone


def test_halves_pips_and_doubles() -> None:
    bone = Bone.parse("6-4")
    assert (bone.high, bone.low, bone.pips, bone.is_double) == (6, 4, 10, False)
    assert Bone.parse("4-4").pips == 8
    assert Bone.parse("4-4").is_double
    assert Bone.parse("0-0").pips == 0


@pytest.mark.parametrize(
    "junk", ["", "6", "6-", "-6", "6-4-2", "a-b", "10-1", "6 - 4", "6\u20134", " 6-4", "x" * 10_000]
)
def test_parse_refuses_junk(junk: str) -> None:
    with pytest.raises(InvalidActionError) as info:
        Bone.parse(junk)
    assert info.value.code == "unknown_bone"
    assert isinstance(info.value, ValueError)
    assert len(str(info.value)) < 120  # a huge string is not echoed back


@pytest.mark.parametrize("junk", [None, 64, 6.4, ["6-4"], b"6-4", {"bone": "6-4"}])
def test_parse_refuses_wrong_types(junk: object) -> None:
    with pytest.raises(ValueError):
        Bone.parse(junk)


def test_constructor_checks_halves() -> None:
    with pytest.raises(ValueError):
        Bone(4, 6)
    with pytest.raises(ValueError):
        Bone(10, 0)
    with pytest.raises(ValueError):
        Bone.of(-1, 3)


def test_sets() -> None:
    six, nine = full_set(6), full_set(9)
    assert len(six) == 28 == set_size(6)
    assert len(nine) == 55 == set_size(9)
    assert len(set(nine)) == 55
    assert six == nine[:28]
    assert str(six[0]) == "0-0" and str(six[-1]) == "6-6"
    assert sum(b.pips for b in six) == 168
    assert all(bone_by_index(b.index) is b for b in nine)


def test_bones_survive_copy_and_pickle() -> None:
    bone = Bone.parse("5-5")
    assert copy.copy(bone) is bone
    assert copy.deepcopy([bone])[0] is bone
    assert pickle.loads(pickle.dumps(bone)) is bone
    assert {bone: 1}[Bone(5, 5)] == 1


def test_bone_is_frozen() -> None:
    bone = Bone.parse("3-2")
    with pytest.raises(AttributeError):
        bone.high = 6  # type: ignore[misc]
