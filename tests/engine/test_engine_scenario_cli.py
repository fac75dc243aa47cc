"""The scenario command, run as a subprocess: exit codes 0 and 2, stdout JSON, one-line stderr."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.scenario import ScenarioFileError, run_scenario

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = Path(__file__).parent / "scenarios"
SAMPLES = [
    "domino_count_by_10.json",
    "inmate_smallest_score.json",
    "rejected_bone_does_not_match_end.json",
    "spinner_lead_one_side_covered.json",
]
RESULT_KEYS = {"rejected", "plays", "bonuses", "hands", "scores", "on_board", "dumbbells"}
RESULT_KEYS |= {"to_act", "game"}

HANDS = [
    ["6-6", "6-3", "5-0", "4-1", "2-2", "3-1", "6-0"],
    ["5-5", "4-4", "6-5", "5-4", "3-0", "2-1", "1-0"],
]


def run(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine.scenario", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def matches(expected: Any, actual: Any) -> bool:
    """``expected`` is a part of ``actual``: dict keys recursively; rows with an ``action`` index
    are matched to the actual row with that index; other lists element by element."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            k in actual and matches(v, actual[k]) for k, v in expected.items()
        )
    if isinstance(expected, list) and isinstance(actual, list):
        if expected and all(isinstance(r, dict) and "action" in r for r in expected):
            return all(
                any(matches(row, got) for got in actual if got.get("action") == row["action"])
                for row in expected
            )
        return len(expected) == len(actual) and all(map(matches, expected, actual))
    return bool(expected == actual)


@pytest.mark.parametrize("name", SAMPLES)
def test_samples_through_the_command(name: str) -> None:
    path = SCENARIOS / name
    data = json.loads(path.read_text())
    done = run(path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    result = json.loads(done.stdout)
    assert set(result) >= RESULT_KEYS
    assert matches(data["expect"], result), json.dumps(result, indent=1)
    assert result == run_scenario(data)  # the command and the function agree


def write(tmp_path: Path, data: Any, name: str = "scenario.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def scenario(**table: Any) -> dict[str, Any]:
    return {
        "table": {"mode": "citizen", "players": 2, **table},
        "deals": [{"hands": HANDS}],
        "actions": [{"seat": 0, "play": "6-6"}],
    }


BROKEN: list[tuple[str, Any, str]] = [
    ("not_json", "{not json", "file"),
    ("empty", "", "file"),
    ("a list", [1, 2], "scenario"),
    ("no table", {"deals": [], "actions": []}, "table"),
    ("unknown mode", scenario(mode="dominoes"), "table.mode"),
    ("inmate get-on 0", scenario(mode="inmate", get_on=0), "table.get_on"),
    ("clock of 61 s", scenario(mode="citizen_gym", clock=61), "table.clock"),
    ("clock at a plain table", scenario(clock=10), "table.clock"),
    ("bad start", {**scenario(), "start": {"scores": [0, 0, 0]}}, "start.scores"),
    ("no deals", {"table": {"mode": "citizen"}, "actions": []}, "deals"),
    ("no actions", {**scenario(), "actions": None}, "actions"),
    (
        "4 players dealt 9",
        {**scenario(players=4, deal=9), "deals": [{"hands": [HANDS[0]] * 4}]},
        "table.deal",
    ),
    ("a bone twice", {**scenario(), "deals": [{"hands": [HANDS[0], HANDS[0]]}]}, "deals[0]"),
    (
        "a bone that does not exist",
        {**scenario(), "deals": [{"hands": [HANDS[0], [*HANDS[1][:6], "7-7"]]}]},
        "deals[0].hands[1][6]",
    ),
    (
        "yard short of the set",
        {**scenario(), "deals": [{"hands": HANDS, "yard": ["1-1"]}]},
        "deals[0].yard",
    ),
    ("a short hand", {**scenario(), "deals": [{"hands": [HANDS[0][:6], HANDS[1]]}]}, "hands[0]"),
]


@pytest.mark.parametrize(("why", "data", "field"), BROKEN, ids=[b[0] for b in BROKEN])
def test_unusable_files_exit_2_naming_the_field(
    tmp_path: Path, why: str, data: Any, field: str
) -> None:
    done = run(write(tmp_path, data))
    assert done.returncode == 2, (why, done.stdout)
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert field in lines[0], lines[0]
    if not isinstance(data, str):
        with pytest.raises(ScenarioFileError):
            run_scenario(data)


def test_missing_file_and_usage(tmp_path: Path) -> None:
    done = run(tmp_path / "nope.json")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    usage = subprocess.run(
        [sys.executable, "-m", "engine.scenario"], cwd=ROOT, capture_output=True, text=True
    )
    assert usage.returncode == 2 and "usage" in usage.stderr


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"seat": 0, "play": "7-7"}, "unknown_bone"),
        ({"seat": 0, "play": "6-6-6"}, "unknown_bone"),
        ({"seat": 0, "draw": "9-9"}, "unknown_bone"),
        ({"seat": 1, "play": "5-5"}, "not_your_turn"),
        ({"seat": 0}, "bad_field"),
        ({"seat": 0, "play": "6-6", "pass": True}, "bad_field"),
        ({"seat": "zero", "play": "6-6"}, "bad_field"),
        ({"seat": 0, "play": "6-6", "end": "middle"}, "bad_field"),
        ({"seat": 0, "draw": "6-6"}, "must_play"),
        ({"seat": 0, "pass": False}, "bad_field"),
        ({"seat": 0, "timeout": True}, "no_clock"),
        ({"seat": 0, "doubles": "play"}, "no_choice"),
        ("play", "bad_action"),
    ],
)
def test_unusable_actions_are_rejected_not_broken_files(
    tmp_path: Path, action: Any, code: str
) -> None:
    data = scenario()
    data["actions"] = [action, {"seat": 0, "play": "6-6"}]
    done = run(write(tmp_path, data)) if code == "unknown_bone" else None
    result = run_scenario(data)
    assert result["rejected"]["action"] == 0
    assert result["rejected"]["code"] == code
    assert result["rejected"]["error"]
    assert result["plays"] == [] and result["to_act"] == 0
    if done is not None:
        assert done.returncode == 0 and json.loads(done.stdout)["rejected"]["code"] == code


def test_draw_names_a_bone_in_the_yard() -> None:
    data = scenario()
    data["deals"] = [
        {
            "hands": [
                ["5-4", "3-2", "5-0", "4-1", "2-2", "3-1", "2-0"],
                ["6-6", "4-4", "3-3", "5-5", "3-0", "2-1", "1-0"],
            ]
        }
    ]
    data["actions"] = [
        {"seat": 1, "play": "6-6"},
        {"seat": 0, "draw": "1-1"},
        {"seat": 0, "draw": "4-4"},
    ]
    result = run_scenario(data)
    assert result["rejected"]["action"] == 2
    assert result["rejected"]["code"] == "not_in_yard"  # 4-4 is in s1's hand
    data["actions"][2] = {"seat": 1, "draw": "6-5"}
    assert run_scenario(data)["rejected"]["code"] == "not_your_turn"
    data["actions"][2] = {"seat": 0, "draw": "6-5"}
    data["actions"] += [{"seat": 0, "draw": "6-4"}, {"seat": 0, "play": "6-5", "end": "left"}]
    result = run_scenario(data)
    assert result["rejected"]["action"] == 3
    assert result["rejected"]["code"] == "must_play"  # 6-5 fits: no more drawing
    del data["actions"][3]
    result = run_scenario(data)
    assert result["rejected"] is None
    assert result["plays"][-1]["bone"] == "6-5" and result["to_act"] == 1
    drew = [e for e in result["events"] if e["type"] == "drew"]
    assert [e["bone"] for e in drew] == ["1-1", "6-5"]


def test_the_replay_stops_where_a_deal_is_missing() -> None:
    data = json.loads((SCENARIOS / "domino_count_by_10.json").read_text())
    data["actions"].append({"seat": 1, "play": "6-6"})
    result = run_scenario(data)
    assert result["rejected"] is None and result["to_act"] is None
    assert result["phase"] == "awaiting_deal"
    # with the next deal listed, the rock (s1) is to act
    data["deals"].append({"hands": HANDS})
    data["actions"].pop()
    result = run_scenario(data)
    assert result["to_act"] == 1 and result["phase"] == "playing"


def test_players_default_from_the_deal() -> None:
    data = scenario()
    del data["table"]["players"]
    assert run_scenario(data)["scores"] == [0, 0]
