"""Client JSON actions: every shape, and every kind of unreadable input refused clearly."""

from __future__ import annotations

from typing import Any

import pytest

from engine import (
    Bone,
    DoublesChoice,
    Draw,
    End,
    InvalidActionError,
    Pass,
    Play,
    Timeout,
    parse_action,
)


@pytest.mark.parametrize(
    ("data", "action"),
    [
        ({"type": "play", "seat": 0, "bone": "6-4", "end": "left"}, Play(0, Bone(6, 4), End.LEFT)),
        ({"type": "play", "seat": 3, "bone": "4-6", "end": "down"}, Play(3, Bone(6, 4), End.DOWN)),
        ({"type": "play", "seat": 1, "bone": "5-5"}, Play(1, Bone(5, 5))),
        ({"type": "play", "seat": 1, "bone": "5-0", "end": None}, Play(1, Bone(5, 0))),
        ({"type": "draw", "seat": 2, "position": 0}, Draw(2, 0)),
        ({"type": "pass", "seat": 1}, Pass(1)),
        ({"type": "doubles", "seat": 0, "choice": "play"}, DoublesChoice(0, "play")),
        ({"type": "doubles", "seat": 0, "choice": "reshuffle"}, DoublesChoice(0, "reshuffle")),
        ({"type": "timeout", "seat": 2}, Timeout(2)),
    ],
)
def test_shapes(data: dict[str, Any], action: Any) -> None:
    parsed = parse_action(data)
    assert parsed == action
    assert parse_action(parsed.to_dict()) == parsed


def test_lead_orientation_is_kept_but_not_part_of_identity() -> None:
    play = parse_action({"type": "play", "seat": 0, "bone": "1-4"})
    assert isinstance(play, Play)
    assert play.lead_left == 1
    assert play == Play(0, Bone(4, 1))
    assert play.to_dict() == {"type": "play", "seat": 0, "bone": "1-4"}
    assert parse_action({"type": "play", "seat": 0, "bone": "4-1"}).to_dict()["bone"] == "4-1"


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (None, "bad_action"),
        ("play 6-4", "bad_action"),
        ([1, 2], "bad_action"),
        ({}, "unknown_type"),
        ({"type": "resign", "seat": 0}, "unknown_type"),
        ({"type": 5, "seat": 0}, "unknown_type"),
        ({"type": "play", "bone": "6-4"}, "bad_field"),
        ({"type": "play", "seat": 0}, "bad_field"),
        ({"type": "play", "seat": "0", "bone": "6-4"}, "bad_field"),
        ({"type": "play", "seat": True, "bone": "6-4"}, "bad_field"),
        ({"type": "play", "seat": 1.0, "bone": "6-4"}, "bad_field"),
        ({"type": "play", "seat": 4, "bone": "6-4"}, "no_such_seat"),
        ({"type": "play", "seat": -1, "bone": "6-4"}, "no_such_seat"),
        ({"type": "play", "seat": 0, "bone": "6-4", "end": "middle"}, "bad_field"),
        ({"type": "play", "seat": 0, "bone": "6-4", "end": 1}, "bad_field"),
        ({"type": "play", "seat": 0, "bone": "x-y"}, "unknown_bone"),
        ({"type": "play", "seat": 0, "bone": "10-10"}, "unknown_bone"),
        ({"type": "play", "seat": 0, "bone": 64}, "unknown_bone"),
        ({"type": "play", "seat": 0, "bone": "6-4", "extra": 1}, "bad_field"),
        ({"type": "draw", "seat": 0}, "bad_field"),
        ({"type": "draw", "seat": 0, "position": -1}, "bad_field"),
        ({"type": "draw", "seat": 0, "position": "3"}, "bad_field"),
        ({"type": "draw", "seat": 0, "position": 10**100}, "bad_field"),
        ({"type": "draw", "seat": 0, "position": 2, "bone": "6-6"}, "bad_field"),
        ({"type": "pass", "seat": 0, "forced": True}, "bad_field"),
        ({"type": "doubles", "seat": 0, "choice": "keep"}, "bad_field"),
        ({"type": "doubles", "seat": 0}, "bad_field"),
        ({"type": "timeout"}, "bad_field"),
        ({1: "play"}, "unknown_type"),
    ],
)
def test_unreadable_actions_are_refused(data: object, code: str) -> None:
    with pytest.raises(InvalidActionError) as info:
        parse_action(data)
    assert info.value.code == code
    assert info.value.kind == "invalid"
    assert info.value.message


def test_huge_strings_are_not_echoed() -> None:
    huge = "6" * 1_000_000
    for data in (
        {"type": "play", "seat": 0, "bone": huge},
        {"type": huge, "seat": 0},
        {"type": "play", "seat": 0, "bone": "6-4", "end": huge},
        {"type": "pass", "seat": 0, huge: 1},
    ):
        with pytest.raises(InvalidActionError) as info:
            parse_action(data)
        assert len(str(info.value)) < 200


def test_error_dict() -> None:
    with pytest.raises(InvalidActionError) as info:
        parse_action({"type": "play", "seat": 0, "bone": "7-x"})
    assert info.value.to_dict() == {
        "kind": "invalid",
        "code": "unknown_bone",
        "error": "'7-x' is not a bone: write it as two halves 0-9, like \"6-4\"",
    }
