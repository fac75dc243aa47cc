"""Acceptance scenarios for the rules engine (shared/ACCEPTANCE.md, shared/RULES.md).

Each tests/engine/scenarios/*.json is replayed through engine.scenario.run_scenario and its
`expect` is checked against the result. The expectations were worked out by hand from the rule
book; `why` shows the arithmetic. Matching rules:

- `expect` is a subset of the result: only the keys it names are checked.
- `plays`, `bonuses`: each expected row names an `action` index and must subset-match the one
  actual row with that index. An empty expected list means the actual list must be empty.
- `plays_count`: the number of actual plays.
- `hands`: same length, rows compared in order, each a subset match.
- `rejected`: null means null; a dict is a subset match (`{"action": 2}` checks only the index).
- `game`: null means null; a dict is a subset match (`skunked` compared as a set).
- `scores`, `on_board`, `dumbbells`, `to_act` and anything else: exact.
- A broken file has `expect_exit: 2` (and maybe `expect_stderr_contains`): run_scenario must
  raise ScenarioFileError, and `python -m engine.scenario FILE` must exit 2 with one line on
  stderr naming the field. A file that is not JSON at all (its name says `not_json`) is checked
  through the command only.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SCENARIOS = Path(__file__).parent / "scenarios"
ROOT = Path(__file__).resolve().parents[2]
SAMPLES = {
    "domino_count_by_10.json",
    "inmate_smallest_score.json",
    "rejected_bone_does_not_match_end.json",
    "spinner_lead_one_side_covered.json",
}
FILES = sorted(SCENARIOS.glob("*.json"))


def load(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError:
        return None
    assert isinstance(data, dict), f"{path.name}: a scenario is a JSON object"
    return data


def subset(expected: dict[str, Any], actual: Any, where: str) -> None:
    assert isinstance(actual, dict), f"{where}: expected a row like {expected}, got {actual!r}"
    for key, value in expected.items():
        got = actual.get(key, "<missing>")
        if key == "skunked" and isinstance(value, list) and isinstance(got, list):
            value, got = sorted(value), sorted(got)
        assert got == value, f"{where}.{key}: expected {value!r}, got {got!r} (row {actual})"


def check(result: dict[str, Any], expect: dict[str, Any]) -> None:
    for key, want in expect.items():
        if key == "plays_count":
            got = len(result["plays"])
            assert got == want, f"plays_count: expected {want}, got {got}: {result['plays']}"
        elif key in ("plays", "bonuses"):
            rows = result[key]
            if not want:
                assert rows == [], f"{key}: expected none, got {rows}"
            for row in want:
                same = [r for r in rows if r.get("action") == row["action"]]
                assert len(same) == 1, (
                    f"{key}: one row for action {row['action']} expected, got {rows}"
                )
                subset(row, same[0], f"{key}[action {row['action']}]")
        elif key == "hands":
            rows = result["hands"]
            assert len(rows) == len(want), f"hands: expected {len(want)} rows, got {rows}"
            for i, (row, got) in enumerate(zip(want, rows, strict=True)):
                subset(row, got, f"hands[{i}]")
        elif key in ("rejected", "game") and isinstance(want, dict):
            subset(want, result[key], key)
        else:
            assert result[key] == want, f"{key}: expected {want!r}, got {result[key]!r}"


def run_command(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine.scenario", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def check_broken_command(path: Path, field: str) -> None:
    done = run_command(path)
    assert done.returncode == 2, f"exit code {done.returncode}, stderr {done.stderr!r}"
    message = done.stderr.strip()
    assert message and "\n" not in message, f"stderr must be one line: {done.stderr!r}"
    assert field in message, f"stderr should name {field!r}: {message!r}"


def test_enough_scenarios() -> None:
    own = [f for f in FILES if f.name not in SAMPLES]
    assert len(own) >= 60, f"only {len(own)} scenario files beyond the samples"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_scenario(path: Path) -> None:
    from engine.scenario import ScenarioFileError, run_scenario

    data = load(path)
    if data is None:
        assert "not_json" in path.name, f"{path.name} is not JSON"
        check_broken_command(path, "")
        return
    why = data.get("why", "(no why)")
    if "expect_exit" in data:
        assert data["expect_exit"] == 2
        field = data.get("expect_stderr_contains", "")
        try:
            with pytest.raises(ScenarioFileError):
                run_scenario(data)
            check_broken_command(path, field)
        except AssertionError as e:
            raise AssertionError(f"{e}\nWHY: {why}") from None
        return
    result = run_scenario(data)
    try:
        check(result, data["expect"])
    except AssertionError as e:
        raise AssertionError(f"{e}\nWHY: {why}") from None
