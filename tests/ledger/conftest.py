"""Ledger fixtures: the Commissary's goods and four players."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.utils import translation

from ledger.models import Good
from tests.ledger.helpers import NAMES


@pytest.fixture
def soup(db: None) -> Good:
    return Good.objects.get(name="Soup")


@pytest.fixture
def coffee(db: None) -> Good:
    return Good.objects.get(name="Coffee")


@pytest.fixture
def four(make_user: Callable[..., Any]) -> list[Any]:
    return [make_user(name) for name in NAMES]


@pytest.fixture(autouse=True)
def _english() -> Iterator[None]:
    """Services answer in the active language: a Spanish page earlier in the thread must not
    change the words these tests read."""
    with translation.override("en"):
        yield
