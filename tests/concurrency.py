"""Running calls really at once, from threads released together (for compare-and-set races)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import close_old_connections


def at_once(*calls: Callable[[], Any]) -> list[Any]:
    """Run the calls in threads released together; return their results (or exceptions)."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(i: int, call: Callable[[], Any]) -> None:
        barrier.wait()
        try:
            results[i] = call()
        except Exception as exc:  # reported to the test that asked
            results[i] = exc
        finally:
            close_old_connections()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads)
    return results
