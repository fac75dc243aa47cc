"""The coach's tests: eager tasks, fewer sampled deals per decision (the figures that matter are
measured by bench/review.py at the default), server seeds from a counter."""

from __future__ import annotations

import hashlib
import itertools
import random
import types
from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture
def eager(settings: Any) -> Iterator[None]:
    from dominoes_site.celery import app

    settings.HOUSE_PLAYER_PACE_SECONDS = 0
    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


@pytest.fixture(autouse=True)
def few_worlds(settings: Any) -> None:
    settings.COACH_WORLDS = 24


@pytest.fixture
def fixed_seeds(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Server seeds from a counter, and the first hand's washes from a seeded generator: with
    the later washes seeded by `play`, a game is the same on every run."""
    counter = itertools.count()
    monkeypatch.setattr(
        "tables.services.new_seed",
        lambda: hashlib.sha256(f"coach-seed-{next(counter)}".encode()).hexdigest(),
    )
    washes = random.Random(17)
    monkeypatch.setattr(
        "tests.history.helpers.secrets",
        types.SimpleNamespace(token_hex=lambda n: washes.randbytes(n).hex()),
    )
    yield
