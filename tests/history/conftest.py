"""Fixtures for game history: four players, and server seeds that repeat from run to run."""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture
def four(make_user: Any) -> list[Any]:
    return [make_user(name) for name in ("Alice", "Bob", "Carol", "Dave")]


@pytest.fixture
def fixed_seeds(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Server seeds from a counter instead of the system's randomness: with the washes drawn
    from a seeded generator too, a game is the same on every run."""
    counter = itertools.count()
    monkeypatch.setattr(
        "tables.services.new_seed",
        lambda: hashlib.sha256(f"test-seed-{next(counter)}".encode()).hexdigest(),
    )
    yield
