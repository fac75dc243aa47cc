"""Playing a hand: end scores, get-on, drawing, passing, blocked hands, the count, winning."""

from __future__ import annotations

from typing import Any

import pytest

from engine import Bone, Draw, GameState, Pass, Phase, Play
from engine.board import End
from engine.events import BonePlayed, Event, GameOver, HandOver, Scored, Wash
from engine.rules import round_half_up
from tests.engine.conftest import act, events_of, position, refused

# A closed line of the 24 double-six bones that are not 6-6, 5-5, 4-4 or 3-3: both ends show 0.
EULER_LINE = ["6-5", "5-4", "6-4", "6-3", "5-3", "5-2", "6-2", "6-1", "5-1", "5-0", "4-0"]
EULER_LINE += ["4-3", "3-2", "4-2", "4-1", "3-1", "3-0", "2-0", "2-2", "2-1", "1-1", "1-0", "0-0"]


def domino_position(mode: str, other_hands: list[list[str]], **kw: Any) -> GameState:
    """Seat 0 holds only 6-1 and dominoes with it on the 6-6 lead's left."""
    return position(mode, [["6-1"], *other_hands], lead="6-6", spinner="lead", **kw)


def play_out(state: GameState) -> list[Event]:
    return act(state, "0 play 6-1 left")


# -- end scores and get-on -------------------------------------------------------------------


def test_get_on_then_smaller_scores_count() -> None:
    # lead 5-0 (5): s0 plays 5-5 on the left: 10 + 0 = 10, on with exactly the get-on
    state = position(
        "citizen",
        [["5-5", "6-6"], ["1-0", "6-5"], ["5-4", "6-4"], ["6-3", "6-2"]],
        lead="5-0",
        settings={"partners": True},
    )
    played = events_of(act(state, "0 play 5-5 left"), BonePlayed)[0]
    assert (played.count, played.points, played.on_board_now) == (10, 10, True)
    assert state.scores == [10, 0] and state.on_board == [True, False]
    played = events_of(act(state, "1 play 1-0 right"), BonePlayed)[0]
    assert (played.count, played.points) == (11, 0)
    # partners get on together: s2 scores a 5 for side 0
    played = events_of(act(state, "2 play 5-4 left"), BonePlayed)[0]
    assert (played.count, played.points) == (5, 5)
    assert state.scores == [15, 0]


def test_not_on_board_a_total_below_get_on_is_lost() -> None:
    state = position("citizen", [["5-0", "6-6"], ["6-5", "6-4"]], lead="5-5", spinner="lead")
    played = events_of(act(state, "0 play 5-0 left"), BonePlayed)[0]
    assert (played.count, played.points, played.on_board_now) == (10, 10, True)
    state = position(
        "citizen", [["5-0", "6-6"], ["6-5", "6-4"]], lead="5-5", spinner="lead",
        settings={"get_on": 15},
    )  # fmt: skip
    played = events_of(act(state, "0 play 5-0 left"), BonePlayed)[0]
    assert (played.count, played.points, played.on_board_now) == (10, 0, False)
    assert state.scores == [0, 0]


def test_inmate_five_never_scores() -> None:
    state = position("inmate", [["1-0", "6-6"], ["6-5", "6-4"]], lead="4-0", on_board=[True, True])
    played = events_of(act(state, "0 play 1-0 right"), BonePlayed)[0]
    assert (played.count, played.points) == (4 + 1, 0)
    state = position(
        "inmate", [["5-0", "6-6"], ["6-5", "6-4"]], lead="5-5", spinner="lead",
        on_board=[True, True], scores=[20, 20],
    )  # fmt: skip
    act(state, "0 play 5-0 left")  # 10: scores
    act(state, "1 play 6-5 right")  # the spinner is closed: 0 + 6 = 6, no score
    assert state.scores == [30, 20]


@pytest.mark.parametrize(("mode", "points"), [("threes", 12), ("fives", 0)])
def test_threes_score_face_value(mode: str, points: int) -> None:
    state = position(mode, [["6-0", "5-5"], ["4-4", "3-3"]], lead="6-6")
    played = events_of(act(state, "0 play 6-0 left"), BonePlayed)[0]
    assert (played.count, played.points) == (12, points)  # 0 + the double at its end: 12


def test_threes_fifteen_scores_fifteen() -> None:
    state = position("threes", [["6-3", "5-5"], ["4-4", "3-3"]], lead="6-6")
    assert events_of(act(state, "0 play 6-3 right"), BonePlayed)[0].points == 15


# -- drawing and passing -----------------------------------------------------------------------


def test_draw_until_a_bone_plays_then_play_it() -> None:
    state = position("citizen", [["5-4", "3-2"], ["4-4", "3-3"]], lead="6-6", spinner="lead")
    assert state.legal_actions() == [Draw(0, i) for i in range(len(state.yard))]
    assert refused(state, Pass(0)).code == "must_draw"
    assert refused(state, "0 play 5-4 left").code == "wrong_end"
    assert refused(state, Draw(0, len(state.yard))).code == "no_such_position"
    yard_before = state.yard[:]
    at = yard_before.index(Bone.parse("1-0"))
    drew = act(state, "0 draw 1-0")[0]
    assert drew.to_public() == {"type": "drew", "seat": 0, "position": at, "yard": 22}
    assert drew.to_seat(0)["bone"] == "1-0" and "bone" not in drew.to_seat(1)
    assert state.yard == yard_before[:at] + yard_before[at + 1 :]  # the yard closes up
    assert state.to_act == 0  # drawing does not end the turn
    act(state, "0 draw 6-5")
    assert refused(state, Draw(0, 0)).code == "must_play"
    assert refused(state, Pass(0)).code == "must_play"
    assert state.legal_actions() == [
        Play(0, Bone.parse("6-5"), End.LEFT),
        Play(0, Bone.parse("6-5"), End.RIGHT),
    ]
    assert refused(state, "0 play 6-5").code == "ambiguous_end"
    act(state, "0 play 6-5 right")
    assert state.to_act == 1


def blocked_position(hands: list[list[str]], mode: str = "fives") -> GameState:
    return position(mode, hands, lead="0-6", arms=[[], EULER_LINE, [], []], yard=[])


def test_blocked_hand_fewest_pips_scores_the_others_rounded() -> None:
    state = blocked_position([["6-6", "5-5"], ["4-4", "3-3"]])
    assert state.board.ends[:2] == [0, 0]
    assert state.is_forced_pass()
    assert state.legal_actions() == [Pass(0)]
    assert refused(state, Draw(0, 0)).code == "yard_empty"
    act(state, "0 pass")
    events = act(state, "1 pass")
    over = events_of(events, HandOver)[0]
    # s1 has 14 pips, s0 22: s1 scores 22 rounded to the nearest 5 = 20
    assert (over.result, over.seat, over.pips, over.rounded, over.points) == (
        "blocked",
        1,
        22,
        20,
        20,
    )
    assert events_of(events, Scored)[0].reason == "blocked"
    assert state.scores == [0, 20]
    assert events_of(events, Wash)[0].reason == "blocked"
    assert state.rock is None


def test_blocked_hand_threes_and_equal_pips() -> None:
    state = blocked_position([["6-6", "5-5"], ["4-4", "3-3"]], mode="threes")
    over = events_of(act(state, "0 pass", "1 pass"), HandOver)[0]
    assert (over.seat, over.pips, over.points) == (1, 22, 21)
    state = blocked_position([["6-6", "3-3"], ["5-5", "4-4"]])
    over = events_of(act(state, "0 pass", "1 pass"), HandOver)[0]
    assert (over.seat, over.pips, over.points) == (None, 18, 0)
    assert state.scores == [0, 0]


# -- dominoing and the count -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("other", "pips", "rounded"),
    [(["5-5", "4-1"], 15, 20), (["5-5", "4-0"], 14, 10), (["4-0"], 4, 0), (["5-0"], 5, 10)],
)
def test_count_by_ten_halves_up(other: list[str], pips: int, rounded: int) -> None:
    state = domino_position("citizen", [other])
    events = play_out(state)
    over = events_of(events, HandOver)[0]
    assert (over.result, over.seat, over.pips, over.rounded, over.points) == (
        "domino",
        0,
        pips,
        rounded,
        rounded,
    )
    assert state.scores == [rounded, 0]
    assert state.on_board == [rounded >= 10, False]


@pytest.mark.parametrize(("pips_hand", "rounded"), [(["2-0"], 0), (["3-0"], 5), (["5-5"], 10)])
def test_count_by_five(pips_hand: list[str], rounded: int) -> None:
    state = domino_position("citizen", [pips_hand], settings={"count_by": 5, "get_on": 0})
    assert events_of(play_out(state), HandOver)[0].points == rounded


def test_count_must_reach_get_on_for_a_side_not_on() -> None:
    state = domino_position("inmate", [["5-5", "4-0"]])  # 14 -> 10, short of 15
    over = events_of(play_out(state), HandOver)[0]
    assert (over.rounded, over.points) == (10, 0)
    assert state.on_board == [False, False] and state.scores == [0, 0]
    state = domino_position("inmate", [["5-5", "4-1"]])  # 15 -> 20: on
    assert events_of(play_out(state), HandOver)[0].points == 20
    assert state.on_board == [True, False]


def test_inmate_smallest_score_does_not_apply_to_the_count() -> None:
    state = domino_position("inmate", [["3-0"]], settings={"count_by": 5}, on_board=[True, True])
    assert events_of(play_out(state), HandOver)[0].points == 5


def test_cut_throat_counts_every_other_hand_rounded_once() -> None:
    state = domino_position("citizen", [["2-2"], ["4-0"]], on_board=[True, True, True])
    over = events_of(play_out(state), HandOver)[0]
    assert (over.pips, over.rounded, over.points) == (8, 10, 10)  # not 0 + 0


def test_partners_count_only_the_two_opponents() -> None:
    state = domino_position(
        "citizen", [["4-3"], ["5-5", "4-4"], ["3-3", "4-0"]],
        settings={"partners": True}, on_board=[True, True],
    )  # fmt: skip
    over = events_of(play_out(state), HandOver)[0]
    assert (over.pips, over.rounded, over.side) == (7 + 10, 20, 0)
    assert state.scores == [20, 0]


@pytest.mark.parametrize(
    ("mode", "hand", "points"),
    [
        ("threes", ["4-3"], 6),
        ("threes", ["5-3"], 9),
        ("fives", ["5-5", "2-0"], 10),
        ("fives", ["5-5", "3-0"], 15),
    ],
)  # fmt: skip
def test_head_to_head_domino_rounds_to_the_unit(mode: str, hand: list[str], points: int) -> None:
    state = domino_position(mode, [hand], settings={"spinner": True})
    assert events_of(play_out(state), HandOver)[0].points == points


# -- winning --------------------------------------------------------------------------------


def test_target_reached_by_an_end_score_wins_at_once_before_the_count() -> None:
    state = position(
        "citizen", [["6-3"], ["5-5", "4-1"]], lead="6-6", spinner="lead",
        arms=[["6-2"], [], [], []], scores=[145, 40], on_board=[True, True],
    )  # fmt: skip
    events = act(state, "0 play 6-3 right")  # 2 + 3 = 5: 150
    assert not events_of(events, HandOver)  # no count
    over = events_of(events, GameOver)[0]
    assert (over.winner, over.skunked, over.reason, over.scores) == (0, [1], "target", [150, 40])
    assert over.hands is not None and [str(b) for b in over.hands[1]] == ["5-5", "4-1"]
    assert state.phase is Phase.GAME_OVER and state.to_act is None
    assert state.legal_actions() == []
    assert refused(state, "1 play 5-5").code == "game_over"


def test_target_reached_mid_hand_with_bones_left() -> None:
    state = position(
        "citizen", [["6-3", "2-2"], ["5-5", "4-1"]], lead="6-6", spinner="lead",
        arms=[["6-2"], [], [], []], scores=[145, 85], on_board=[True, True],
    )  # fmt: skip
    over = events_of(act(state, "0 play 6-3 right"), GameOver)[0]
    assert (over.winner, over.skunked) == (0, [])  # 85 is not under 80


def test_target_reached_by_the_count() -> None:
    state = domino_position("citizen", [["5-5", "4-1"]], scores=[140, 79], on_board=[True, True])
    events = play_out(state)
    kinds = [e.type for e in events]
    assert kinds == ["bone_played", "hand_over", "scored", "game_over"]
    over = events_of(events, GameOver)[0]
    assert (over.winner, over.skunked, over.hands) == (0, [1], None)
    assert state.result is not None and state.result.winner == 0


def test_skunk_lines_at_250_and_per_loser_in_cut_throat() -> None:
    state = domino_position(
        "citizen", [["5-5", "4-1"]], settings={"target": 250}, scores=[240, 129],
        on_board=[True, True],
    )  # fmt: skip
    assert events_of(play_out(state), GameOver)[0].skunked == [1]
    state = domino_position(
        "citizen", [["5-5", "4-1"]], settings={"target": 250}, scores=[240, 130],
        on_board=[True, True],
    )  # fmt: skip
    assert events_of(play_out(state), GameOver)[0].skunked == []
    state = domino_position(
        "citizen", [["5-5"], ["4-1"]], scores=[140, 90, 50], on_board=[True, True, True]
    )
    assert events_of(play_out(state), GameOver)[0].skunked == [2]


def test_head_to_head_has_no_skunk_and_wins_at_its_limit() -> None:
    state = domino_position(
        "fives", [["5-5", "4-1"]], settings={"limit": 50, "spinner": True}, scores=[40, 0]
    )
    over = events_of(play_out(state), GameOver)[0]
    assert (over.winner, over.skunked) == (0, [])


def test_rounding_is_integer_and_halves_up() -> None:
    for pips in range(0, 200):
        for unit in (3, 5, 10):
            expected = int((pips / unit) + 0.5) * unit  # exact here: pips/unit has no float error
            assert round_half_up(pips, unit) == expected
    assert round(25, -1) == 20  # why the engine never uses round()
    assert round_half_up(25, 10) == 30
