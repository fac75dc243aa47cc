"""The queues of one process's channels, shared by both of the house's channel layers.

Both layers deliver a message to a channel of their own process by putting it on that channel's
queue here (the embedded layer for its own members and for frames from other processes; the
Redis layer from its one reader a process), and a consumer's `receive` takes from it. A queue
lives on the event loop of the consumer that reads it: a put from another thread or loop crosses
with `call_soon_threadsafe`. A channel nobody has read for `expiry` seconds is forgotten (its
consumer is gone), as Redis forgets an expired key.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class _Inbox:
    """One channel's queue, on the event loop of the consumer that reads it."""

    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[dict[str, Any]]
    used: float = field(default_factory=time.monotonic)
    readers: int = 0


class Inboxes:
    def __init__(self, expiry: float) -> None:
        self.expiry = expiry
        self._by_name: dict[str, _Inbox] = {}
        self._lock = threading.Lock()
        self._swept = time.monotonic()

    def __contains__(self, channel: object) -> bool:
        return channel in self._by_name

    def open(self, channel: str) -> None:
        """A queue for `channel` on the running loop, before anything is sent to it."""
        with self._lock:
            self._by_name[channel] = _Inbox(asyncio.get_running_loop(), asyncio.Queue())

    async def get(self, channel: str) -> dict[str, Any]:
        """The next message for `channel`, waiting for it on the running loop."""
        loop = asyncio.get_running_loop()
        with self._lock:
            inbox = self._by_name.get(channel)
            if inbox is None or inbox.loop is not loop:
                inbox = self._by_name[channel] = _Inbox(loop, asyncio.Queue())
            inbox.readers += 1
        try:
            return await inbox.queue.get()
        finally:
            inbox.readers -= 1
            inbox.used = time.monotonic()

    def put(
        self, channel: str, message: dict[str, Any], capacity: int, *, known_only: bool
    ) -> bool:
        """Queue `message` for `channel`; False when its queue is full. A channel without a
        queue gets one on the running loop, or, `known_only`, drops the message (its consumer
        is gone, like a message that expired on Redis)."""
        inbox = self._by_name.get(channel)
        if inbox is None:
            if known_only:
                return True
            self.open(channel)
            inbox = self._by_name[channel]
        if inbox.queue.qsize() >= capacity:
            return False
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is inbox.loop:
            inbox.queue.put_nowait(message)
        else:
            try:
                inbox.loop.call_soon_threadsafe(inbox.queue.put_nowait, message)
            except RuntimeError:  # that consumer's event loop is gone
                with self._lock:
                    self._by_name.pop(channel, None)
        return True

    def sweep(self) -> set[str]:
        """Forget the channels nobody has read for `expiry` seconds (at most once in that
        time); the names forgotten."""
        now = time.monotonic()
        if now - self._swept < self.expiry:
            return set()
        self._swept = now
        with self._lock:
            gone = {
                name
                for name, inbox in self._by_name.items()
                if inbox.readers == 0 and now - inbox.used > self.expiry
            }
            for name in gone:
                del self._by_name[name]
        return gone

    def keep_only(self, loop: asyncio.AbstractEventLoop) -> None:
        """Forget the queues of every other event loop (a layer moving to a new loop)."""
        with self._lock:
            for name in [n for n, inbox in self._by_name.items() if inbox.loop is not loop]:
                del self._by_name[name]

    def clear(self) -> None:
        with self._lock:
            self._by_name.clear()
