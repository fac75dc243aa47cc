"""The rate limiter counts over the last window of time, not fixed windows."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from dominoes_site import limits


@pytest.fixture(autouse=True)
def _empty_cache() -> None:
    cache.clear()


def test_a_burst_at_a_windows_edge_is_not_let_through_twice() -> None:
    start = 60 * 1000  # the start of a minute
    for second in range(10):
        assert limits.hit("edge", 10, 60, now=start + 50 + second)
    # the next minute has begun, but all ten fell in the last sixty seconds
    assert not limits.hit("edge", 10, 60, now=start + 60.5)
    assert not limits.hit("edge", 10, 60, now=start + 62)


def test_the_count_falls_away_as_time_passes() -> None:
    start = 60 * 2000
    for _ in range(10):
        assert limits.hit("fall", 10, 60, now=start + 1)
    assert not limits.hit("fall", 10, 60, now=start + 30)  # refused tries count too: 11
    # half of the next minute gone: 11 * 0.5 = 5.5 from before, plus this one
    assert limits.hit("fall", 10, 60, now=start + 90)
    # two minutes on, nothing from the first minute is left
    for _ in range(9):
        assert limits.hit("fall", 10, 60, now=start + 180)
    assert limits.hit("fall", 10, 60, now=start + 181)
    assert not limits.hit("fall", 10, 60, now=start + 181)


def test_names_are_counted_apart() -> None:
    start = 60 * 3000
    for _ in range(3):
        limits.hit("one", 3, 60, now=start)
    assert not limits.hit("one", 3, 60, now=start)
    assert limits.hit("other", 3, 60, now=start)
