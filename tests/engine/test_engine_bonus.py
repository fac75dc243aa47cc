"""The doubles bonus: +50 for four, the choice at five or more, no drawing, the on-board rule."""

from __future__ import annotations

from engine import Bone, DoublesChoice, Phase, Play
from engine.events import Bonus, DoublesChosen, DoublesToChoose, HandOver, Lead, Scored, Wash
from tests.engine.conftest import act, deal, events_of, new_state, position, refused

FOUR_DOUBLES = (
    ["6-6", "5-5", "4-4", "3-3", "2-1", "2-0", "1-0"],
    ["6-5", "6-4", "6-3", "5-4", "5-3", "4-3", "3-1"],
)
FOUR_MOVES = (
    "0 play 6-6",
    "1 play 6-5 right",
    "0 play 5-5 right",
    "1 play 6-4 left",
    "0 play 4-4 left",
    "1 play 6-3 up",
)


def test_four_doubles_score_50_when_the_fourth_goes_down() -> None:
    state = new_state("citizen", players=2, get_on=0)
    deal(state, *FOUR_DOUBLES)
    assert (state.bonus, state.bonus_left) == ([50, 0], [4, 0])
    act(state, *FOUR_MOVES)
    assert state.bonus_left == [1, 0]
    events = act(state, "0 play 3-3 up")
    assert events_of(events, Bonus)[0].points == 50
    assert [(e.reason, e.points) for e in events_of(events, Scored)] == [("bonus", 50)]
    assert state.scores == [50, 0] and state.bonus == [0, 0]


def test_no_bonus_unless_on_the_board() -> None:
    state = new_state("citizen", players=2)  # get-on 10, and no total scores on the way
    deal(state, *FOUR_DOUBLES)
    events = act(state, *FOUR_MOVES, "0 play 3-3 up")
    assert not events_of(events, Bonus)
    assert state.scores == [0, 0] and state.on_board == [False, False]


def test_the_play_that_completes_the_bonus_scores_first_and_can_put_the_side_on() -> None:
    state = new_state("citizen", players=2)
    deal(
        state,
        ["6-6", "5-5", "4-4", "1-1", "3-2", "3-0", "2-0"],
        ["6-5", "6-4", "6-1", "5-3", "4-3", "5-2", "4-2"],
    )
    act(state, *FOUR_MOVES[:5], "1 play 6-1 up")
    events = act(state, "0 play 1-1 up")  # 8 + 10 + 2 = 20: on, then the bonus
    assert [e.type for e in events] == ["bone_played", "scored", "bonus", "scored"]
    assert state.scores == [70, 0]


def test_drawing_loses_the_bonus() -> None:
    state = position(
        "citizen", [["5-5", "4-3"], ["2-1", "1-0"]], lead="6-6", spinner="lead",
        settings={"get_on": 0}, bonus=[50, 0], bonus_left=[1, 0],
    )  # fmt: skip
    act(state, "0 draw 6-5")
    assert state.bonus == [0, 0]
    act(state, "0 play 6-5 right", "1 draw 0-0")
    assert state.bonus == [0, 0]


def test_five_doubles_played_score_100_when_the_last_goes_down() -> None:
    state = position(
        "citizen", [["5-5", "2-1"], ["6-6", "1-0"]], lead="5-0",
        settings={"get_on": 0}, bonus=[100, 0], bonus_left=[1, 0],
    )  # fmt: skip
    events = act(state, "0 play 5-5 left")  # 10 + 0 = 10
    assert [(e.reason, e.points) for e in events_of(events, Scored)] == [
        ("ends", 10),
        ("bonus", 100),
    ]
    assert state.scores == [110, 0]


FIVE_DOUBLES = (
    ["6-6", "5-5", "4-4", "3-3", "2-2", "6-5", "6-4"],
    ["1-1", "0-0", "5-4", "5-3", "4-3", "3-1", "2-1"],
)


def test_five_doubles_choose_before_the_lead() -> None:
    state = new_state("citizen", players=2)
    events = deal(state, *FIVE_DOUBLES)
    choose = events_of(events, DoublesToChoose)[0]
    assert choose.to_public() == {"type": "doubles_to_choose", "seat": 0}
    assert choose.to_seat(0)["doubles"] == ["6-6", "5-5", "4-4", "3-3", "2-2"]
    assert not events_of(events, Lead)
    assert state.phase is Phase.CHOOSING_DOUBLES and state.to_act == 0
    assert state.legal_actions() == [DoublesChoice(0, "play"), DoublesChoice(0, "reshuffle")]
    assert refused(state, Play(0, Bone.parse("6-6"))).code == "must_choose"
    assert refused(state, Play(1, Bone.parse("1-1"))).code == "not_your_turn"
    assert refused(state, DoublesChoice(1, "play")).code == "not_your_turn"
    assert refused(state, DoublesChoice(0, "maybe")).code == "bad_field"  # type: ignore[arg-type]
    events = act(state, "0 doubles play")
    assert events_of(events, DoublesChosen)[0].bonus == 100
    assert (state.bonus, state.bonus_left) == ([100, 0], [5, 0])
    assert events_of(events, Lead)[0].seat == 0
    assert state.legal_actions() == [Play(0, Bone.parse("6-6"))]
    assert refused(state, DoublesChoice(0, "play")).code == "no_choice"


def test_the_lead_after_playing_doubles_follows_the_lead_rule() -> None:
    state = new_state("citizen", players=2)
    deal(
        state,
        ["5-5", "4-4", "3-3", "2-2", "1-1", "6-5", "6-4"],
        ["6-6", "0-0", "5-4", "5-3", "4-3", "3-1", "2-1"],
    )
    act(state, "0 doubles play")
    assert state.to_act == 1 and state.forced_lead == Bone.parse("6-6")


def test_reshuffle_washes_everyone_and_keeps_the_lead_rule() -> None:
    state = new_state("citizen", players=2, rock=1)
    deal(state, *FIVE_DOUBLES)
    events = act(state, "0 doubles reshuffle")
    over = events_of(events, HandOver)[0]
    assert (over.result, over.seat, over.points) == ("redeal", None, 0)
    wash = events_of(events, Wash)[0]
    assert (wash.seats, wash.reason) == ([0, 1], "reshuffle")
    assert state.phase is Phase.AWAITING_DEAL and state.rock == 1
    deal(state, FOUR_DOUBLES[1], FOUR_DOUBLES[0])
    assert state.to_act == 1 and state.forced_lead is None  # still the rock's lead


def test_head_to_head_has_no_doubles_bonus() -> None:
    state = new_state("fives")
    deal(state, *FIVE_DOUBLES)
    assert state.phase is Phase.PLAYING and state.bonus == [0, 0]
