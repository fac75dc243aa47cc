"""The garbage collector in a daphne: short pauses in a process that lives for days.

Python's cyclic collector sometimes walks every object the process holds (a "generation 2"
collection). A daphne holds Django, its apps and a few hundred sockets' worth of objects, and
on the bench's 2-core machine each such walk stopped the event loop for 90-140 ms, once or
twice a minute at 150 moves/s: every move in flight waited, and those waits were the paced
run's p99 (bench/README.md, session 6).

So, in a daphne (`install`, from dominoes_site/asgi.py):

- After start-up, and after every full collection, what survived is frozen (`gc.freeze()`): the
  collector never walks it again, and the next full collection walks only what was made since.
  Right after a full collection every cycle of garbage has just been freed, so only live
  objects are frozen.
- A frozen object that later becomes garbage in a reference cycle (a closed socket's objects)
  would never be freed, so every `full_seconds` (default 600) a thread unfreezes everything and
  makes one whole collection (one long pause every ten minutes instead of one or two a minute),
  then freezes again. Objects freed by their reference counts (most) go at once, frozen or not.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from typing import Any

log = logging.getLogger(__name__)


class GcPolicy:
    """Freeze what survives each full collection; unfreeze and collect it all now and then."""

    def __init__(self, full_seconds: float) -> None:
        self.full_seconds = full_seconds
        self.freezes = 0
        self.full_collections = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _after_collection(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "stop" and info["generation"] == 2:
            gc.freeze()
            self.freezes += 1

    def full_collection(self) -> int:
        """Unfreeze, collect everything, freeze again; the objects collected."""
        gc.unfreeze()
        started = time.perf_counter()
        collected = gc.collect()  # (its "stop" callback freezes what survived)
        self.full_collections += 1
        log.debug(
            "full collection: %d objects freed in %.0f ms, %d frozen",
            collected,
            (time.perf_counter() - started) * 1000,
            gc.get_freeze_count(),
        )
        return collected

    def _run(self) -> None:
        while not self._stop.wait(self.full_seconds):
            self.full_collection()

    def install(self) -> None:
        gc.callbacks.append(self._after_collection)
        gc.collect()  # start-up's garbage out; its callback freezes the rest
        self._thread = threading.Thread(target=self._run, name="gc-policy", daemon=True)
        self._thread.start()

    def uninstall(self) -> None:
        self._stop.set()
        if self._after_collection in gc.callbacks:
            gc.callbacks.remove(self._after_collection)
        gc.unfreeze()


def install(full_seconds: float) -> GcPolicy | None:
    """The policy for this process (none when `full_seconds` is 0 or less: Python's own)."""
    if full_seconds <= 0:
        return None
    policy = GcPolicy(full_seconds)
    policy.install()
    return policy
