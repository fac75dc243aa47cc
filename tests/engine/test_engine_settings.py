"""Table settings: the modes' defaults, what each allows, and refusals naming the field."""

from __future__ import annotations

from typing import Any

import pytest

from engine import Mode, SettingsError, TableSettings, Workout, workout_owed


def test_mode_defaults_from_the_rule_book() -> None:
    rows = {
        "citizen": (10, 10, 5, None, 6, 6),
        "citizen_gym": (10, 5, 5, 10, 6, 6),
        "inmate": (15, 10, 10, None, 0, 0),
        "inmate_gym": (0, 10, 10, 20, 0, 0),
    }
    for mode, (get_on, count_by, smallest, clock, house_double, _) in rows.items():
        t = TableSettings.build(mode)
        assert (t.get_on, t.count_by, t.smallest_score, t.clock) == (
            get_on,
            count_by,
            smallest,
            clock,
        ), mode
        assert t.lead_order[0] == house_double
        assert (t.target, t.max_pip, t.deal, t.spinner, t.partners) == (150, 6, 7, True, False)
        assert t.house and t.unit == 5
    assert TableSettings.build("citizen").lead_order == (6, 5, 4, 3, 2, 1, 0)
    assert TableSettings.build("inmate_gym").lead_order == (0, 1, 2, 3, 4, 5, 6)


def test_head_to_head_defaults() -> None:
    fives = TableSettings.build("fives")
    assert (fives.players, fives.deal, fives.max_pip, fives.unit, fives.target) == (2, 7, 6, 5, 150)
    assert (fives.get_on, fives.count_by, fives.spinner, fives.clock) == (0, 5, False, None)
    assert fives.skunk_line is None and not fives.house
    threes = TableSettings.build("threes", set="double-nine", spinner=True, limit=300)
    assert (threes.unit, threes.smallest_score, threes.deal, threes.max_pip) == (3, 3, 9, 9)
    assert (threes.target, threes.spinner) == (300, True)
    assert threes.lead_order[0] == 9


@pytest.mark.parametrize(
    ("mode", "settings"),
    [
        ("citizen", {"get_on": 0}),
        ("citizen", {"get_on": 20, "count_by": 5, "target": 250}),
        ("citizen_gym", {"clock": 3}),
        ("citizen_gym", {"clock": 60}),
        ("citizen_gym", {"clock": None}),
        ("inmate", {"get_on": 10}),
        ("inmate_gym", {"get_on": 15, "clock": 45}),
        ("citizen", {"players": 3, "deal": 9}),
        ("citizen", {"players": 2, "deal": 9}),
        ("inmate", {"players": 4, "partners": True}),
        ("citizen", {"spinner": True, "set": "double-six", "clock": None}),
        ("fives", {"limit": 50}),
        ("fives", {"limit": 500, "set": "double-nine", "deal": 9}),
        ("threes", {"target": 200}),
        ("threes", {"deal": 9}),
        ("citizen_gym", {"workout": {"kind": "run", "amount": 15}}),
        ("inmate_gym", {"workout": Workout("timed", 60)}),
    ],
)
def test_allowed_settings(mode: str, settings: dict[str, Any]) -> None:
    table = TableSettings.build(mode, **settings)
    assert TableSettings.from_dict(table.to_dict()) == table


@pytest.mark.parametrize(
    ("mode", "settings", "field"),
    [
        ("checkers", {}, "mode"),
        (None, {}, "mode"),
        ("inmate", {"get_on": 0}, "get_on"),
        ("citizen", {"get_on": 5}, "get_on"),
        ("citizen", {"count_by": 3}, "count_by"),
        ("citizen_gym", {"clock": 61}, "clock"),
        ("inmate_gym", {"clock": 2}, "clock"),
        ("citizen", {"clock": 10}, "clock"),
        ("citizen", {"players": 4, "deal": 9}, "deal"),
        ("citizen", {"deal": 8}, "deal"),
        ("citizen", {"players": 1}, "players"),
        ("citizen", {"players": 5}, "players"),
        ("citizen", {"players": 3, "partners": True}, "partners"),
        ("citizen", {"target": 200}, "target"),
        ("citizen", {"limit": 150}, "limit"),
        ("citizen", {"set": "double-nine"}, "set"),
        ("citizen", {"spinner": False}, "spinner"),
        ("citizen", {"workout": {"kind": "reps", "amount": 10}}, "workout"),
        ("citizen", {"colour": "green"}, "colour"),
        ("citizen", {"players": "4"}, "players"),
        ("citizen", {"players": True}, "players"),
        ("citizen", {"partners": "yes"}, "partners"),
        ("fives", {"players": 3}, "players"),
        ("fives", {"set": "double-twelve"}, "set"),
        ("fives", {"set": "double-six", "deal": 9}, "deal"),
        ("fives", {"limit": 49}, "limit"),
        ("fives", {"limit": 501}, "limit"),
        ("fives", {"get_on": 10}, "get_on"),
        ("threes", {"count_by": 5}, "count_by"),
        ("threes", {"clock": 10}, "clock"),
        ("citizen_gym", {"workout": {"kind": "swim", "amount": 10}}, "workout.kind"),
        ("citizen_gym", {"workout": {"kind": "reps", "amount": 0}}, "workout.amount"),
        ("citizen_gym", {"workout": None}, "workout"),
    ],
)
def test_refused_settings_name_the_field(mode: Any, settings: dict[str, Any], field: str) -> None:
    with pytest.raises(SettingsError) as info:
        TableSettings.build(mode, **settings)
    assert info.value.field == field
    assert str(info.value).startswith(f"{field}: ")


def test_from_dict_refusals() -> None:
    with pytest.raises(SettingsError) as info:
        TableSettings.from_dict({"players": 2})
    assert info.value.field == "mode"
    with pytest.raises(SettingsError):
        TableSettings.from_dict(["citizen"])


def test_sides_and_yard() -> None:
    partners = TableSettings.build("citizen", players=4, partners=True)
    assert partners.sides == 2
    assert [partners.side_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert partners.yard_size == 0
    cut_throat = TableSettings.build("citizen", players=3, deal=9)
    assert cut_throat.sides == 3 and cut_throat.yard_size == 1
    assert TableSettings.build("fives", set="double-nine").yard_size == 37


def test_skunk_lines() -> None:
    assert TableSettings.build("citizen").skunk_line == 80
    assert TableSettings.build("inmate", target=250).skunk_line == 130
    assert TableSettings.build("threes").skunk_line is None


def test_every_mode_is_buildable() -> None:
    for mode in Mode:
        table = TableSettings.build(mode.value)
        assert table.describe()["title"]


def test_workouts_owed() -> None:
    assert workout_owed(Workout("reps", 20), 0, False) == Workout("reps", 20)
    assert workout_owed(Workout("reps", 20), 3, False) == Workout("reps", 35)
    assert workout_owed(Workout("reps", 20), 3, True) == Workout("reps", 70)
    assert workout_owed(Workout("timed", 60), 2, False) == Workout("timed", 120)
    # runs in tenths of a mile: 1 mile + 3 half miles = 2.5 miles
    assert workout_owed(Workout("run", 10), 3, False) == Workout("run", 25)
    assert workout_owed(Workout("run", 10), 3, True).describe() == "5 miles"
