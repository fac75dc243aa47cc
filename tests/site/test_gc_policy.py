"""The daphne's garbage-collection policy: freeze what survives a full collection, and now and
then unfreeze and collect it all (dominoes_site/gc_policy.py)."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from dominoes_site import gc_policy


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


@pytest.fixture
def policy() -> Iterator[gc_policy.GcPolicy]:
    installed = gc_policy.install(full_seconds=3600)
    assert installed is not None
    yield installed
    installed.uninstall()
    assert gc.get_freeze_count() == 0


def test_what_survives_a_full_collection_is_frozen(policy: gc_policy.GcPolicy) -> None:
    assert gc.get_freeze_count() > 0  # start-up's objects
    survivor = [Node() for _ in range(1000)]
    before, freezes = gc.get_freeze_count(), policy.freezes
    gc.collect()
    assert policy.freezes == freezes + 1
    assert gc.get_freeze_count() >= before + len(survivor)
    assert not any(gc.is_tracked(n) and n in gc.get_objects(generation=2) for n in survivor[:3])


def test_a_frozen_cycle_that_becomes_garbage_goes_at_the_next_whole_collection(
    policy: gc_policy.GcPolicy,
) -> None:
    a, b = Node(), Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    gc.collect()  # frozen now
    del a, b
    gc.collect()
    assert gone() is not None  # a frozen cycle is not walked
    collected = policy.full_collection()
    assert gone() is None and collected >= 2
    assert gc.get_freeze_count() > 0  # and what lives is frozen again


def test_no_policy_when_switched_off() -> None:
    callbacks = list(gc.callbacks)
    assert gc_policy.install(full_seconds=0) is None
    assert gc.callbacks == callbacks and gc.get_freeze_count() == 0
