"""Anyone can check a deal: the Python recipe printed in docs/fair-deals.md, fed the values of a
real game's export, gives the bones each player's browser was sent; so does the browser's own
check (static/js/fairdeal.js, run here by Node). A tampered value fails both."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from history.selectors import dealt_as_sent, game_page
from tables.fairdeal import shuffled_set
from tests.history.helpers import play, start_table

ROOT = Path(__file__).resolve().parents[2]


def documented_check() -> Any:
    """The code blocks of docs/fair-deals.md that define the recipe, run as written."""
    doc = (ROOT / "docs" / "fair-deals.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", doc, re.S)
    code = next(b for b in blocks if "def check(" in b)
    namespace: dict[str, Any] = {}
    exec(compile(code, "docs/fair-deals.md", "exec"), namespace)
    return namespace["check"]


def export_values(text: str) -> dict[int, dict[str, Any]]:
    """Each hand's published values, read from the export as a person would copy them."""
    hands: dict[int, dict[str, Any]] = {}
    current: dict[str, Any] = {}
    for line in text.splitlines():
        if m := re.fullmatch(r"Hand (\d+)", line):
            current = hands.setdefault(int(m.group(1)), {"washes": {}})
        elif m := re.fullmatch(r"  Commitment \(SHA-256 of the seed\): ([0-9a-f]{64})", line):
            current["commitment"] = m.group(1)
        elif m := re.fullmatch(r"  Seed: ([0-9a-f]{64})", line):
            current["seed"] = m.group(1)
        elif m := re.fullmatch(r"  Wash by .+ \(seat (\d)\): ([0-9a-f]{64})", line):
            current["washes"][int(m.group(1))] = m.group(2)
    return hands


@pytest.fixture
def finished_game(four: list[Any]) -> Any:
    players = four[:3]
    table = start_table(players, "inmate")
    return play(table, players, seed=21)


@pytest.mark.django_db
def test_the_documented_recipe_checks_a_real_game(finished_game: Any) -> None:
    game = finished_game
    client = Client()
    client.force_login(game.table.host)
    values = export_values(client.get(f"/games/{game.pk}/export.txt").content.decode())
    sent = dealt_as_sent(game, None)
    check = documented_check()
    assert values and set(values) == set(sent)
    for number, v in values.items():
        hands, yard = check(v["seed"], v["commitment"], v["washes"], players=3)
        # Exactly the bones each player's browser was sent at the deal.
        assert {seat: hands[seat] for seat in sent[number]} == sent[number]
        assert len(hands) == 3 and len(yard) == 28 - 21
        assert hands[0] + hands[1] + hands[2] + yard == [
            str(b) for b in shuffled_set(v["seed"], v["washes"], 6)
        ]
    # A tampered seed is caught by the commitment; a tampered wash deals other bones.
    v = values[1]
    bad_seed = v["seed"][:-1] + ("1" if v["seed"][-1] == "0" else "0")
    with pytest.raises(ValueError):
        check(bad_seed, v["commitment"], v["washes"], players=3)
    seat = min(v["washes"])
    wash = v["washes"][seat]
    bad_washes = {**v["washes"], seat: wash[:-1] + ("1" if wash[-1] == "0" else "0")}
    hands, _ = check(v["seed"], v["commitment"], bad_washes, players=3)
    assert hands != [sent[1][s] for s in range(3)]


NODE_SCRIPT = """
import { verifyDeal } from "./fairdeal.mjs";
const cases = JSON.parse(process.argv[2]);
const out = [];
for (const c of cases) out.push(await verifyDeal(c));
console.log(JSON.stringify(out));
"""


@pytest.mark.django_db
def test_the_browser_check_agrees(finished_game: Any, tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node is not installed: the browser check runs in the browser test only")
    (tmp_path / "fairdeal.mjs").write_text((ROOT / "static" / "js" / "fairdeal.js").read_text())
    (tmp_path / "run.mjs").write_text(NODE_SCRIPT)
    verify = game_page(finished_game)["verify"]
    assert verify
    cases = []
    for v in verify:
        cases.append(
            {
                "seed": v["seed"],
                "commitment": v["commitment"],
                "contributions": v["contributions"],
                "maxPip": v["max_pip"],
                "players": v["players"],
                "deal": v["deal"],
                "sent": v["sent"],
                "replayed": v["replayed"],
            }
        )
    first = cases[0]
    seed = first["seed"]
    wash_seat = min(first["contributions"])
    wash = first["contributions"][wash_seat]
    tampered = [
        {**first, "seed": seed[:-1] + ("1" if seed[-1] == "0" else "0")},
        {
            **first,
            "contributions": {
                **first["contributions"],
                wash_seat: wash[:-1] + ("1" if wash[-1] == "0" else "0"),
            },
        },
        {**first, "seed": "not hex"},
    ]
    run = subprocess.run(
        [node, str(tmp_path / "run.mjs"), json.dumps(cases + tampered)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    results = json.loads(run.stdout)
    for case, result in zip(cases, results[: len(cases)], strict=True):
        assert result["ok"], result
        assert result["commitment"]["ok"]
        assert [s["source"] for s in result["seats"]] == ["sent"] * case["players"]
        contributions = {int(k): v for k, v in case["contributions"].items()}
        assert result["order"] == [str(b) for b in shuffled_set(case["seed"], contributions, 6)]
    bad_seed, bad_wash, not_hex = results[len(cases) :]
    assert not bad_seed["ok"] and not bad_seed["commitment"]["ok"]
    assert not bad_wash["ok"] and bad_wash["commitment"]["ok"]
    assert not all(s["ok"] for s in bad_wash["seats"])
    assert not not_hex["ok"] and not_hex["error"]
