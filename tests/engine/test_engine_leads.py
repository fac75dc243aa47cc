"""Leads: the house double, the next double in line, redeals, the rock, and the wash record."""

from __future__ import annotations

from engine import Bone, DealError, IllegalActionError, Phase, Play
from engine.events import HandOver, Lead, Wash
from tests.engine.conftest import act, deal, events_of, new_state, refused

CITIZEN_DEAL = (
    ["6-6", "6-3", "5-0", "4-1", "2-2", "3-1", "6-0"],
    ["5-5", "4-4", "6-5", "5-4", "3-0", "2-1", "1-0"],
)

# RULES sample: s1 dominoes at the 14th action, counting 10 from s0's 6-4 and 2-2
DOMINO_DEAL = (
    ["3-0", "4-3", "5-3", "3-1", "2-2", "0-0", "6-4"],
    ["5-1", "3-2", "6-1", "1-0", "4-0", "5-2", "3-3"],
)
DOMINO_YARD = ["6-6", "6-5", "6-3", "6-2", "6-0", "5-5", "5-4"]
DOMINO_YARD += ["5-0", "4-4", "4-2", "4-1", "2-1", "2-0", "1-1"]
DOMINO_MOVES = (
    "1 play 3-3",
    "0 play 5-3 right",
    "1 play 5-2 right",
    "0 play 4-3 left",
    "1 play 3-2 right",
    "0 play 3-0 up",
    "1 play 4-0 left",
    "0 play 0-0 up",
    "1 play 1-0 up",
    "0 play 3-1 down",
    "1 play 5-1 up",
    "0 draw 5-5",
    "0 play 5-5 up",
    "1 play 6-1 down",
)


def test_first_hand_house_double_leads_and_is_forced() -> None:
    state = new_state("citizen", players=2)
    assert (state.phase, state.wash_seats, state.wash_reason) == (
        Phase.AWAITING_DEAL,
        [0, 1],
        "first_hand",
    )
    events = deal(state, *CITIZEN_DEAL)
    lead = events_of(events, Lead)[0]
    assert (lead.seat, str(lead.bone), lead.reason) == (0, "6-6", "house_double")
    assert state.to_act == 0
    assert state.legal_actions() == [Play(0, Bone.parse("6-6"))]
    assert refused(state, "0 play 6-3").code == "wrong_lead"
    assert refused(state, "0 play 6-6 left").code == "lead_has_no_end"
    assert refused(state, "1 play 5-5").code == "not_your_turn"
    act(state, "0 play 6-6")
    assert state.forced_lead is None and state.to_act == 1


def test_next_double_in_line_when_house_double_is_in_the_yard() -> None:
    state = new_state("citizen", players=2)
    lead = events_of(
        deal(
            state,
            ["6-3", "5-0", "4-1", "2-2", "3-1", "6-0", "6-1"],
            ["5-5", "4-4", "6-5", "5-4", "3-0", "2-1", "1-0"],
        ),
        Lead,
    )[0]
    assert (lead.seat, str(lead.bone), lead.reason) == (1, "5-5", "next_double")
    assert state.legal_actions() == [Play(1, Bone.parse("5-5"))]


def test_inmate_house_double_is_0_0_then_1_1_upwards() -> None:
    hands = (
        ["6-6", "5-5", "2-2", "6-3", "5-0", "4-1", "3-1"],
        ["1-1", "4-4", "6-5", "5-4", "3-0", "2-1", "1-0"],
    )
    inmate = new_state("inmate", players=2)
    lead = events_of(deal(inmate, *hands), Lead)[0]
    assert (lead.seat, str(lead.bone), lead.reason) == (1, "1-1", "next_double")
    citizen = new_state("citizen", players=2)
    assert str(events_of(deal(citizen, *hands), Lead)[0].bone) == "6-6"
    inmate = new_state("inmate_gym", players=2)
    hands = (["0-0", *hands[0][1:]], hands[1])
    lead = events_of(deal(inmate, *hands), Lead)[0]
    assert (lead.seat, str(lead.bone), lead.reason) == (0, "0-0", "house_double")


def test_nobody_holds_a_double_everyone_washes_and_redeals() -> None:
    state = new_state("citizen", players=2)
    events = deal(
        state,
        ["6-5", "6-4", "6-3", "6-2", "6-1", "6-0", "5-4"],
        ["5-3", "5-2", "5-1", "5-0", "4-3", "4-2", "4-1"],
    )
    over = events_of(events, HandOver)[0]
    assert (over.result, over.seat, over.points) == ("redeal", None, 0)
    wash = events_of(events, Wash)[0]
    assert (wash.seats, wash.reason) == ([0, 1], "redeal")
    assert state.phase is Phase.AWAITING_DEAL and state.to_act is None
    assert state.wash_reason == "redeal"
    deal(state, *CITIZEN_DEAL)
    assert state.to_act == 0 and state.deal_number == 2


def test_head_to_head_highest_double_in_either_hand_leads() -> None:
    state = new_state("fives", set="double-nine")
    nines = ["8-8", "9-0", "9-1", "9-2", "9-3", "9-4", "9-5", "9-6", "9-7"]
    others = ["9-9", "8-0", "8-1", "8-2", "8-3", "8-4", "8-5", "8-6", "8-7"]
    lead = events_of(deal(state, nines, others), Lead)[0]
    assert (lead.seat, str(lead.bone), lead.reason) == (1, "9-9", "highest_double")
    assert state.legal_actions() == [Play(1, Bone.parse("9-9"))]


def test_head_to_head_without_doubles_redeals() -> None:
    state = new_state("threes")
    events = deal(
        state,
        ["6-5", "6-4", "6-3", "6-2", "6-1", "6-0", "5-4"],
        ["5-3", "5-2", "5-1", "5-0", "4-3", "4-2", "4-1"],
    )
    assert events_of(events, HandOver)[0].result == "redeal"
    assert state.wash_seats == [0, 1] and state.wash_reason == "redeal"


def test_after_a_domino_the_rock_leads_any_bone_and_only_the_others_wash() -> None:
    state = new_state("citizen", players=2)
    deal(state, *DOMINO_DEAL, yard=DOMINO_YARD)
    events = act(state, *DOMINO_MOVES)
    over = events_of(events, HandOver)[-1]
    assert (over.result, over.seat, over.pips, over.rounded, over.points) == (
        "domino",
        1,
        14,
        10,
        10,
    )
    assert state.rock == 1
    assert (state.wash_seats, state.wash_reason) == ([0], "after_domino")
    assert events_of(events, Wash)[0].rock == 1
    # next hand: the rock leads anything, even with the house double dealt to the other seat
    events = deal(state, *CITIZEN_DEAL)
    lead = events_of(events, Lead)[0]
    assert (lead.seat, lead.bone, lead.reason) == (1, None, "rock")
    assert {str(a.bone) for a in state.legal_actions() if isinstance(a, Play)} == set(
        CITIZEN_DEAL[1]
    )


def test_start_with_the_rock() -> None:
    state = new_state("citizen", players=2, rock=1)
    assert (state.wash_seats, state.wash_reason) == ([0], "after_domino")
    deal(state, *CITIZEN_DEAL)
    assert state.to_act == 1 and len(state.legal_actions()) == 7


# Four players, no yard: the rock (s0) leads 0-0 and all seven 0s go down; then nobody can play.
LOCK_HANDS = (
    ["0-0", "4-3", "6-5", "1-1", "2-2", "3-1", "4-1"],
    ["2-0", "1-0", "6-0", "3-3", "5-1", "6-1", "3-2"],
    ["3-0", "4-0", "4-4", "5-5", "4-2", "5-2", "6-2"],
    ["2-1", "5-0", "6-6", "5-3", "6-3", "5-4", "6-4"],
)
LOCK_MOVES = (
    "0 play 0-0",
    "1 play 2-0 left",
    "2 play 3-0 right",
    "3 play 2-1 left",
    "0 play 4-3 right",
    "1 play 1-0 left",
    "2 play 4-0 right",
    "3 play 5-0 right",
    "0 play 6-5 right",
    "1 play 6-0 right",
)


def test_locked_board_scores_no_count_and_next_hand_leads_like_a_first_hand() -> None:
    state = new_state("citizen", players=4, rock=0)
    deal(state, *LOCK_HANDS)
    act(state, *LOCK_MOVES)
    assert state.board.ends == [0, 0, 0, 0]
    for seat in (2, 3, 0):
        assert state.is_forced_pass()
        assert act(state, f"{seat} pass")
        assert state.phase is Phase.PLAYING
    events = act(state, "1 pass")
    over = events_of(events, HandOver)[0]
    assert (over.result, over.seat, over.pips, over.points) == ("locked", None, 0, 0)
    assert [len(h) for h in over.hands] == [4, 4, 5, 5]
    assert state.scores == [0, 0, 0, 0]
    assert (state.rock, state.wash_seats, state.wash_reason) == (None, [0, 1, 2, 3], "locked")
    deal(state, *LOCK_HANDS)
    assert state.to_act == 3 and state.forced_lead == Bone.parse("6-6")


def test_deal_only_when_one_is_due() -> None:
    state = new_state("citizen", players=2)
    deal(state, *CITIZEN_DEAL)
    before = state.to_json()
    try:
        deal(state, *CITIZEN_DEAL)
    except DealError as exc:
        assert exc.code == "not_awaiting_deal"
    else:
        raise AssertionError("dealt twice")
    assert state.to_json() == before


def test_actions_while_awaiting_a_deal_are_refused() -> None:
    state = new_state("citizen", players=2)
    error = refused(state, Play(0, Bone.parse("6-6")))
    assert isinstance(error, IllegalActionError) and error.code == "awaiting_deal"
