"""The repository itself: no merge left half done in any tracked file."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Git's conflict markers, each alone at the start of a line: "<<<<<<< ours", a bare "=======",
#: ">>>>>>> theirs" (and "||||||| base" in the diff3 style).
MARKER = re.compile(r"^(<{7} |>{7} |\|{7} |={7}$)", re.MULTILINE)


def tracked_files() -> list[Path]:
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
        ).stdout
    except (OSError, subprocess.CalledProcessError) as exc:  # an export without .git
        pytest.skip(f"not a git checkout: {exc}")
    return [ROOT / name for name in listed.decode().split("\0") if name]


def conflict_lines(text: str) -> list[int]:
    return [text.count("\n", 0, m.start()) + 1 for m in MARKER.finditer(text)]


def test_the_marker_pattern_finds_a_conflict_and_nothing_else() -> None:
    conflict = "a\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> branch\nb\n"
    assert conflict_lines(conflict) == [2, 4, 6]
    # Look-alikes that are not markers: a Markdown/RST underline, longer rules, quoted arrows.
    assert conflict_lines("Title\n========\n<<<<<<<<\n> >>>>>>> x\n x =======\n") == []


def test_no_tracked_file_holds_a_merge_conflict() -> None:
    found = []
    for path in tracked_files():
        if not path.is_file():  # deleted in the working tree, not yet committed
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:  # binary (images, the compiled catalog)
            continue
        found += [f"{path.relative_to(ROOT)}:{line}" for line in conflict_lines(text)]
    assert not found, "merge conflict markers left in: " + ", ".join(found)
