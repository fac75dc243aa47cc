"""The board: ends, the spinner, and counting the ends exactly per the rule book."""

from __future__ import annotations

import pytest

from engine import AmbiguousActionError, Bone, End, IllegalActionError, StateFormatError
from engine.board import Board

L, R, U, D = End.LEFT, End.RIGHT, End.UP, End.DOWN


def build(*plays: tuple[str, End | None], spinner: bool = True, left: int | None = None) -> Board:
    board = Board(spinner_on=spinner)
    for i, (text, end) in enumerate(plays):
        board.play(Bone.parse(text), end, left if i == 0 else None)
    return board


def counts(*plays: tuple[str, End | None], spinner: bool = True) -> list[int]:
    board = Board(spinner_on=spinner)
    return [board.play(Bone.parse(text), end) for text, end in plays]


def test_rule_book_example() -> None:
    # 6-6 alone 12; 6-3 right 12+3 = 15; 6-2 left 3+2 = 5; 6-5 up 10; 6-0 down 10
    assert counts(("6-6", None), ("6-3", R), ("6-2", L), ("6-5", U), ("6-0", D)) == [
        12,
        15,
        5,
        10,
        10,
    ]


def test_spinner_alone_counts_once() -> None:
    assert counts(("5-5", None)) == [10]
    assert counts(("6-6", None)) == [12]
    assert counts(("0-0", None)) == [0]


def test_lead_written_a_b_shows_a_on_the_left() -> None:
    board = build(("4-1", None), left=1)
    assert board.ends[:2] == [1, 4]
    assert board.fitting_ends(Bone.parse("6-1")) == [L]
    board = build(("4-1", None))
    assert board.ends[:2] == [4, 1]  # default: the higher half on the left
    with pytest.raises(IllegalActionError) as info:
        board.play(Bone.parse("6-1"), L)
    assert info.value.code == "wrong_end"


def test_plain_lead_counts_both_ends() -> None:
    assert counts(("4-1", None), ("6-1", R)) == [5, 10]


def test_double_at_the_end_of_a_line_counts_both_halves() -> None:
    # 6-6 spinner, 6-3 right (15), 3-3 on the right end: 12 + 6 = 18
    assert counts(("6-6", None), ("6-3", R), ("3-3", R)) == [12, 15, 18]
    # and at the end of up: 3-3 spinner closed by 5-3 and 4-3, 3-2 up, then 2-2 up counts 4
    assert counts(("3-3", None), ("5-3", R), ("4-3", L), ("3-2", U), ("2-2", U)) == [
        6,
        6 + 5,
        4 + 5,
        4 + 5 + 2,
        4 + 5 + 4,
    ]


def test_spinner_counts_while_at_most_one_side_covered() -> None:
    board = build(("5-5", None), ("5-0", R))
    assert board.total == 10
    assert board.play(Bone.parse("4-0"), R) == 14
    assert board.play(Bone.parse("5-3"), L) == 4 + 3  # both sides covered: spinner counts nothing
    assert board.opened


def test_up_and_down_only_after_both_sides_covered() -> None:
    board = build(("6-6", None), ("6-3", R))
    for end in (U, D):
        with pytest.raises(IllegalActionError) as info:
            board.play(Bone.parse("6-5"), end)
        assert info.value.code == "spinner_not_closed"
    assert board.open_ends() == [L, R]
    board.play(Bone.parse("6-2"), L)
    assert board.open_ends() == [L, R, U, D]
    assert board.ends == [2, 3, 6, 6]


def test_empty_up_and_down_add_nothing() -> None:
    board = build(("6-6", None), ("6-3", R), ("6-2", L))
    assert board.total == 5
    assert [c for _, _, c in board.end_counts()] == [2, 3, 0, 0]


def test_first_double_later_in_line_is_the_spinner() -> None:
    board = build(("6-4", None), ("4-4", R))
    assert board.spinner == Bone.parse("4-4")
    assert board.total == 6 + 8  # at the end of its line: both halves
    board.play(Bone.parse("4-1"), R)  # covers its far side: both in-line sides covered
    assert board.total == 6 + 1
    assert board.open_ends() == [L, R, U, D]
    assert board.ends[2:] == [4, 4]
    assert board.play(Bone.parse("4-3"), U) == 6 + 1 + 3
    # a later double sits in line and is no spinner
    board.play(Bone.parse("6-6"), L)
    assert board.spinner == Bone.parse("4-4")
    assert board.total == 12 + 1 + 3


def test_spinner_off_doubles_sit_in_line() -> None:
    board = build(("5-5", None), ("5-0", R), spinner=False)
    assert board.spinner is None
    assert board.total == 10  # the lead double still counts both halves at its open side
    assert board.play(Bone.parse("5-3"), L) == 3
    assert board.open_ends() == [L, R]
    with pytest.raises(IllegalActionError) as info:
        board.play(Bone.parse("5-4"), U)
    assert info.value.code == "no_spinner"
    assert counts(("6-4", None), ("4-4", R), ("4-1", R), spinner=False) == [10, 14, 7]


def test_end_may_be_left_out_only_when_one_end_fits() -> None:
    board = build(("6-4", None))
    assert board.play(Bone.parse("6-1"), None) == 1 + 4  # fits only the left
    with pytest.raises(IllegalActionError) as info:
        board.play(Bone.parse("5-5"), None)
    assert info.value.code == "does_not_fit"
    board = build(("6-3", None), ("3-1", R))
    # ends 6 and 1: 6-1 fits both, so it must say which
    with pytest.raises(AmbiguousActionError) as amb:
        board.play(Bone.parse("6-1"), None)
    assert amb.value.code == "ambiguous_end"
    assert "left or right" in str(amb.value)


def test_same_number_on_two_ends_is_still_ambiguous() -> None:
    board = build(("3-3", None), ("3-1", R), ("3-0", L))
    # spinner closed: up and down both show 3 and are empty
    assert board.fitting_ends(Bone.parse("3-2")) == [U, D]
    with pytest.raises(AmbiguousActionError):
        board.play(Bone.parse("3-2"), None)


def test_lead_takes_no_end() -> None:
    board = Board(spinner_on=True)
    with pytest.raises(IllegalActionError) as info:
        board.play(Bone.parse("6-6"), L)
    assert info.value.code == "lead_has_no_end"


def test_three_doubles_at_the_ends_and_a_five_make_35() -> None:
    plays = [("0-0", None), ("6-0", R), ("5-0", L), ("6-6", R), ("5-5", L), ("4-0", U)]
    plays += [("4-4", U), ("1-0", D), ("5-1", D)]
    assert counts(*plays) == [0, 6, 11, 17, 22, 26, 30, 31, 35]


def test_json_round_trip_keeps_orientation_and_spinner() -> None:
    board = build(("6-4", None), ("4-4", L), ("4-1", L), ("4-3", U), ("6-6", R), left=4)
    data = board.to_json()
    assert data == {
        "lead": "4-6",
        "arms": [["4-4", "4-1"], ["6-6"], ["4-3"], []],
        "spinner": ["left", 0],
    }
    again = Board.from_json(data, spinner_on=True)
    assert again.to_json() == data
    assert again.total == board.total and again.ends == board.ends
    assert again.to_view() == board.to_view()


@pytest.mark.parametrize(
    "data",
    [
        {"lead": "6-4", "arms": [["5-3"], [], [], []], "spinner": None},  # does not join
        {"lead": "6-4", "arms": [[], [], ["4-4"], []], "spinner": None},  # up without spinner
        {"lead": "6-6", "arms": [[], [], [], []], "spinner": None},  # double lead, no spinner
        {"lead": "6-4", "arms": [["6-4"], [], [], []], "spinner": None},  # a bone twice
        {"lead": "x", "arms": [], "spinner": None},
        ["6-4"],
    ],
)
def test_board_json_refuses_broken_boards(data: object) -> None:
    with pytest.raises(StateFormatError):
        Board.from_json(data, spinner_on=True)


def test_view_lists_arms_outwards_with_orientation() -> None:
    board = build(("6-6", None), ("6-3", R), ("3-1", R), ("6-2", L), ("6-5", U))
    view = board.to_view()
    assert view["lead"] == {"bone": "6-6", "left": 6, "right": 6}
    assert view["spinner"] == {"bone": "6-6", "arm": "lead", "index": None, "closed": True}
    assert view["arms"]["right"] == [
        {"bone": "6-3", "inner": 6, "outer": 3},
        {"bone": "3-1", "inner": 3, "outer": 1},
    ]
    assert view["arms"]["up"] == [{"bone": "6-5", "inner": 6, "outer": 5}]
    assert view["ends"] == [
        {"end": "left", "value": 2, "counts": 2},
        {"end": "right", "value": 1, "counts": 1},
        {"end": "up", "value": 5, "counts": 5},
        {"end": "down", "value": 6, "counts": 0},
    ]
    assert view["total"] == 8 == sum(e["counts"] for e in view["ends"])
    assert view["size"] == 5
