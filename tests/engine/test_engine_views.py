"""Views and event forms: a seat sees its own hand and nothing of any other hand or the yard."""

from __future__ import annotations

import json

import pytest

from engine import Timeout, public_view, seat_view
from engine.events import Dealt, Lead
from tests.engine.conftest import act, bones_in, deal, new_state, position
from tests.engine.test_engine_leads import CITIZEN_DEAL


def test_seat_view_contents() -> None:
    state = new_state("citizen_gym", players=2)
    deal(state, *CITIZEN_DEAL)
    act(state, "0 play 6-6", "1 play 6-5 right")
    view = seat_view(state, 0)
    json.dumps(view)
    assert view["seat"] == 0 and view["side"] == 0
    assert view["hand"] == ["6-3", "5-0", "4-1", "2-2", "3-1", "6-0"]
    assert view["hand_sizes"] == [6, 6]
    assert view["yard"] == 14
    assert view["to_act"] == 0 and view["phase"] == "playing"
    assert view["scores"] == [0, 0] and view["on_board"] == [False, False]
    assert view["dumbbells"] == [0, 0]
    assert view["settings"]["mode"] == "citizen_gym" and view["settings"]["clock"] == 10
    assert view["rules"]["clock_name"] == "Community Service"
    assert view["last_play"] == {
        "type": "bone_played",
        "seat": 1,
        "bone": "6-5",
        "end": "right",
        "count": 17,
        "points": 0,
        "on_board_now": False,
    }
    assert {"type": "play", "seat": 0, "bone": "6-3", "end": "left"} in view["legal_actions"]
    assert view["board"]["total"] == 17
    assert view["board"]["ends"] == [
        {"end": "left", "value": 6, "counts": 12},
        {"end": "right", "value": 5, "counts": 5},
    ]
    assert view["wash"] == {"seats": [0, 1], "reason": "first_hand"}
    assert view["game"] is None
    other = seat_view(state, 1)
    assert other["legal_actions"] == []  # not its turn
    assert other["hand"] == ["5-5", "4-4", "5-4", "3-0", "2-1", "1-0"]


def test_public_view_has_no_hand() -> None:
    state = new_state("citizen", players=2)
    deal(state, *CITIZEN_DEAL)
    view = public_view(state)
    assert "hand" not in view and "legal_actions" not in view
    assert bones_in(view) == set()  # nothing on the board yet, so not a single bone
    assert view["hand_sizes"] == [7, 7]


def test_views_never_show_another_hand_or_the_yard() -> None:
    state = position("citizen", [["5-4", "3-2"], ["2-1", "1-0"]], lead="6-6", spinner="lead")
    act(state, "0 draw 6-5")
    for seat in (0, 1):
        seen = bones_in(seat_view(state, seat))
        own = {str(b) for b in state.hands[seat]}
        assert seen <= own | {"6-6"}
        assert not seen & {str(b) for b in state.yard}
    assert "6-5" not in json.dumps(seat_view(state, 1))
    assert "6-5" in json.dumps(seat_view(state, 0))


def test_forced_pass_flag() -> None:
    state = new_state("citizen", players=2)
    deal(state, *CITIZEN_DEAL)
    assert public_view(state)["forced_pass"] is False


def test_bad_seat() -> None:
    state = new_state("citizen", players=2)
    with pytest.raises(ValueError):
        seat_view(state, 2)


def test_deal_and_lead_events_are_private_where_they_must_be() -> None:
    state = new_state("citizen_gym", players=2)
    events = deal(state, *CITIZEN_DEAL)
    dealt = next(e for e in events if isinstance(e, Dealt))
    assert "hand" not in dealt.to_public() and "hands" not in dealt.to_public()
    assert dealt.to_seat(1)["hand"] == CITIZEN_DEAL[1]
    assert bones_in(dealt.to_seat(1)) == set(CITIZEN_DEAL[1])
    assert len(dealt.to_dict()["hands"]) == 2  # the server's own log has everything
    lead = next(e for e in events if isinstance(e, Lead))
    assert lead.to_public() == {"type": "lead", "seat": 0, "reason": "house_double"}
    assert lead.to_seat(0)["bone"] == "6-6" and "bone" not in lead.to_seat(1)
    for event in events + state.apply(Timeout(0)):
        for form in (event.to_public(), event.to_seat(0), event.to_seat(1), event.to_dict()):
            assert all(isinstance(key, str) for key in form)
            json.dumps(form)
