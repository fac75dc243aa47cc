"""The game state: atomic refusals, the JSON format, copies, deals, determinism."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine import (
    FORMAT_VERSION,
    ActionError,
    AmbiguousActionError,
    Bone,
    DealError,
    Draw,
    End,
    GameState,
    IllegalActionError,
    InvalidActionError,
    Pass,
    Phase,
    Play,
    SettingsError,
    StateFormatError,
    TableSettings,
    Timeout,
    full_set,
)
from tests.engine.conftest import act, deal, new_state, play_random_game, position, refused
from tests.engine.test_engine_leads import CITIZEN_DEAL, DOMINO_DEAL, DOMINO_MOVES, DOMINO_YARD


def started() -> GameState:
    state = new_state("citizen", players=2)
    deal(state, *CITIZEN_DEAL)
    act(state, "0 play 6-6", "1 play 6-5 right")
    return state


@pytest.mark.parametrize(
    ("action", "kind", "code"),
    [
        ("not an action", InvalidActionError, "bad_action"),
        (None, InvalidActionError, "bad_action"),
        (Play(0, Bone.parse("9-9")), InvalidActionError, "unknown_bone"),
        (Play(0, "6-3", End.LEFT), InvalidActionError, "bad_field"),  # type: ignore[arg-type]
        (Play(0, Bone.parse("6-3"), "left"), InvalidActionError, "bad_field"),  # type: ignore[arg-type]
        (Play(7, Bone.parse("6-3"), End.LEFT), InvalidActionError, "no_such_seat"),
        (Play(True, Bone.parse("6-3"), End.LEFT), InvalidActionError, "no_such_seat"),
        (Draw(0, "1"), InvalidActionError, "bad_field"),  # type: ignore[arg-type]
        (Play(1, Bone.parse("5-4"), End.RIGHT), IllegalActionError, "not_your_turn"),
        (Play(0, Bone.parse("5-4"), End.RIGHT), IllegalActionError, "bone_not_held"),
        (Play(0, Bone.parse("6-3"), End.RIGHT), IllegalActionError, "wrong_end"),
        (Play(0, Bone.parse("6-3"), End.UP), IllegalActionError, "spinner_not_closed"),
        (Play(0, Bone.parse("2-2")), IllegalActionError, "does_not_fit"),
        (Draw(0, 0), IllegalActionError, "must_play"),
        (Pass(0), IllegalActionError, "must_play"),
        (Timeout(0), IllegalActionError, "no_clock"),
    ],
)
def test_refusals_change_nothing(action: Any, kind: type[ActionError], code: str) -> None:
    state = started()
    before = json.dumps(state.to_json())
    with pytest.raises(kind) as info:
        state.apply(action)
    assert info.value.code == code
    assert json.dumps(state.to_json()) == before
    # and the state still plays on normally
    act(state, "0 play 6-3 left")


def test_ambiguous_play_changes_nothing() -> None:
    state = position("citizen", [["6-1", "2-2"], ["5-5"]], lead="6-3", arms=[[], ["3-1"], [], []])
    before = state.to_json()
    with pytest.raises(AmbiguousActionError) as info:
        state.apply(Play(0, Bone.parse("6-1")))
    assert info.value.code == "ambiguous_end" and info.value.kind == "ambiguous"
    assert state.to_json() == before
    act(state, "0 play 6-1 right")


def test_every_error_is_a_value_error_with_a_code() -> None:
    state = started()
    for action in (Play(0, Bone.parse("9-9")), Pass(1), Play(0, Bone.parse("6-0"))):
        try:
            state.apply(action)
        except ActionError as exc:
            assert isinstance(exc, ValueError)
            assert exc.code and exc.kind in ("invalid", "illegal", "ambiguous")
            assert exc.to_dict()["error"] == str(exc)


def test_json_round_trip_is_exact_in_every_phase() -> None:
    state = new_state("citizen_gym", players=2)
    snapshots = [state.to_json()]
    deal(state, *DOMINO_DEAL, yard=DOMINO_YARD)
    state.apply(Timeout(1))
    snapshots.append(state.to_json())
    for move in DOMINO_MOVES:
        act(state, move)
        snapshots.append(state.to_json())
    assert state.phase is Phase.AWAITING_DEAL
    for data in snapshots:
        text = json.dumps(data)
        again = GameState.from_json(json.loads(text))
        assert again.to_json() == data
        assert len(text) < 2048
    assert snapshots[0]["v"] == FORMAT_VERSION


def test_round_trip_keeps_playing_identically() -> None:
    settings = TableSettings.build("inmate", players=3, deal=9)
    game = play_random_game(settings, seed=7)
    assert game.phase is Phase.GAME_OVER
    # replay the same seed, stopping half way, and carry on from a JSON copy
    rng = random.Random(3)
    a = GameState.new(settings)
    order = full_set(6)
    rng.shuffle(order)
    a.deal(order)
    for _ in range(10):
        a.apply(rng.choice(a.legal_actions()))
    b = GameState.from_json(json.loads(json.dumps(a.to_json())))
    for _ in range(10):
        if a.phase is not Phase.PLAYING:
            break
        action = rng.choice(a.legal_actions())
        assert [e.to_dict() for e in a.apply(action)] == [e.to_dict() for e in b.apply(action)]
        assert a.to_json() == b.to_json()


@pytest.mark.parametrize(
    "change",
    [
        {"v": 2},
        {"v": None},
        {"phase": "napping"},
        {"scores": [0]},
        {"scores": [0, -5]},
        {"to_act": 5},
        {"hands": [["6-6"], []]},
        {"yard": ["7-7"]},
        {"board": {"lead": "6-6", "arms": [["5-3"], [], [], []], "spinner": "lead"}},
        {"settings": {"mode": "citizen", "clock": 10}},
        {"last_play": {"bone": "6-6"}},
        {"extra": 1},
    ],
)
def test_from_json_refuses_what_it_did_not_write(change: dict[str, Any]) -> None:
    data = started().to_json()
    data.update(change)
    with pytest.raises(StateFormatError):
        GameState.from_json(data)


def test_from_json_refuses_non_objects() -> None:
    data: object
    for data in (None, [], "state"):
        with pytest.raises(StateFormatError):
            GameState.from_json(data)


def test_copy_is_independent() -> None:
    state = started()
    copy = state.copy()
    assert copy.to_json() == state.to_json()
    act(copy, "0 play 6-3 left")
    assert copy.to_json() != state.to_json()
    assert len(state.hands[0]) == 6 and len(copy.hands[0]) == 5
    assert len(state.board) == 2 and len(copy.board) == 3


def test_same_deal_same_actions_same_game() -> None:
    runs = []
    for _ in range(2):
        state = new_state("citizen", players=2)
        events = deal(state, *DOMINO_DEAL, yard=DOMINO_YARD) + act(state, *DOMINO_MOVES)
        runs.append(([e.to_dict() for e in events], state.to_json()))
    assert runs[0] == runs[1]


def test_deal_from_a_full_order() -> None:
    state = new_state("citizen", players=3, deal=9)
    order = full_set(6)[::-1]
    deal_events = state.deal(order)
    assert [str(b) for b in state.hands[0]] == [str(b) for b in order[:9]]
    assert [str(b) for b in state.hands[2]] == [str(b) for b in order[18:27]]
    assert state.yard == [order[27]]
    assert deal_events[0].to_dict()["hand_sizes"] == [9, 9, 9]
    state = new_state("citizen", players=2)
    state.deal([str(b) for b in order])  # bone strings are fine too
    assert state.hands[0][0] == Bone.parse("6-6")


@pytest.mark.parametrize(
    ("hands", "yard", "code", "field"),
    [
        ([CITIZEN_DEAL[0]], None, "hand_count", "hands"),
        ([CITIZEN_DEAL[0][:6], CITIZEN_DEAL[1]], None, "hand_size", "hands[0]"),
        ([CITIZEN_DEAL[0], [*CITIZEN_DEAL[1][:6], "6-6"]], None, "duplicate_bone", "hands[1][6]"),
        ([CITIZEN_DEAL[0], [*CITIZEN_DEAL[1][:6], "7-7"]], None, "unknown_bone", "hands[1][6]"),
        ([CITIZEN_DEAL[0], [*CITIZEN_DEAL[1][:6], "x"]], None, "unknown_bone", "hands[1][6]"),
        (list(CITIZEN_DEAL), ["0-0"], "missing_bone", "yard"),
        (list(CITIZEN_DEAL), "0-0 1-1", "bad_deal", "yard"),
        ("hands", None, "bad_deal", "hands"),
    ],
)
def test_bad_deals_are_refused_and_change_nothing(
    hands: Any, yard: Any, code: str, field: str
) -> None:
    state = new_state("citizen", players=2)
    before = state.to_json()
    with pytest.raises(DealError) as info:
        state.deal_hands(hands, yard)
    assert (info.value.code, info.value.field) == (code, field)
    assert state.to_json() == before


def test_bad_orders_are_refused() -> None:
    state = new_state("fives", set="double-nine")
    with pytest.raises(DealError) as info:
        state.deal(full_set(6))
    assert info.value.code == "missing_bone"
    with pytest.raises(DealError):
        state.deal([*full_set(9)[:-1], full_set(9)[0]])
    state = new_state("citizen")
    with pytest.raises(DealError) as info:
        state.deal(full_set(9))
    assert info.value.code == "unknown_bone"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"scores": [0, 0, 0]}, "scores"),
        ({"scores": [0, 150]}, "scores"),
        ({"scores": [0, "5"]}, "scores"),
        ({"on_board": [True]}, "on_board"),
        ({"on_board": [1, 0]}, "on_board"),
        ({"rock": 2}, "rock"),
        ({"rock": "0"}, "rock"),
    ],
)
def test_new_game_start_is_checked(kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(SettingsError) as info:
        GameState.new(TableSettings.build("citizen", players=2), **kwargs)
    assert info.value.field == field


def test_get_on_zero_means_everyone_is_on() -> None:
    state = GameState.new(TableSettings.build("inmate_gym", players=2), on_board=[False, False])
    assert state.on_board == [True, True]
    assert GameState.new(TableSettings.build("citizen", players=2)).on_board == [False, False]


def test_legal_actions_are_members_and_apply() -> None:
    state = started()
    legal = state.legal_actions()
    assert Play(0, Bone.parse("6-3"), End.LEFT) in legal
    assert Play(0, Bone.parse("6-3")) not in legal  # listed plays always name their end
    for action in legal:
        copy = state.copy()
        copy.apply(action)
    assert refused(state, Play(0, Bone.parse("6-3"), End.RIGHT)).code == "wrong_end"
