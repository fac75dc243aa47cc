"""How often something may be done: counters in the cache, one per name and window.

`hit(name, amount, seconds)` counts one more of `name` and says whether the count over the last
`seconds` is still within `amount`. The last `seconds` are estimated from two fixed windows: all
of the current window's count plus the share of the previous window's count that still lies in
the last `seconds` (a sliding window, as Cloudflare's rate limits count). So a burst at a
window's edge is not let through twice: `amount` at 0:59 and one more at 1:00 is refused.

Each count is `cache.add` then `cache.incr`, atomic on locmem (the embedded default, one
process); on Redis (production) the count and the read of the previous window are one
MULTI/EXEC, one round trip. Requests sent at once are all counted. Refused tries count
too: someone who keeps trying waits longer.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from django.core.cache import cache


def _key(name: str, seconds: int, window: int) -> str:
    return f"limit:{name}:{seconds}:{window}"


def _count_one(key: str, seconds: int) -> int:
    # a window's count is read during the next window too: keep it two windows
    cache.add(key, 0, timeout=2 * seconds + 1)
    try:
        return int(cache.incr(key))
    except ValueError:  # expired between the two calls
        cache.add(key, 0, timeout=2 * seconds + 1)
        return int(cache.incr(key))


def _counts(name: str, seconds: int, window: int) -> tuple[int, int]:
    """One more in `window`'s count, and the previous window's count. On Redis in one round
    trip (HouseRedisCache.count_window); elsewhere (locmem) an add, an incr and a get."""
    key, before = _key(name, seconds, window), _key(name, seconds, window - 1)
    both = getattr(cache, "count_window", None)
    if both is not None:
        current, previous = both(key, before, 2 * seconds + 1)
        return int(current), int(previous)
    return _count_one(key, seconds), int(cache.get(before) or 0)


def hit(name: str, amount: int, seconds: int, *, now: float | None = None) -> bool:
    """Count one of `name` now; True while at most `amount` fall in the last `seconds`."""
    at = time.time() if now is None else now
    window = int(at // seconds)
    current, previous = _counts(name, seconds, window)
    still_inside = 1.0 - (at % seconds) / seconds
    return current + previous * still_inside <= amount


@dataclass(frozen=True)
class Allowance:
    """One counted request, as a client is told it (the API's X-RateLimit-* headers)."""

    allowed: bool
    limit: int
    remaining: int
    #: Seconds until the current window ends.
    reset: int
    #: Seconds to wait before a refused request would be let through (0 when allowed).
    retry_after: int


def take(name: str, amount: int, seconds: int, *, now: float | None = None) -> Allowance:
    """As `hit`, and what is left: how many more fit in the last `seconds` now, when the window
    turns, and, when refused, how long until one more would be let through (no more counted)."""
    at = time.time() if now is None else now
    window = int(at // seconds)
    into = at % seconds
    current, previous = _counts(name, seconds, window)
    estimate = current + previous * (1.0 - into / seconds)
    allowed = estimate <= amount
    retry = 0.0
    if not allowed:
        if current + 1 <= amount and previous:
            # this window's count leaves room once enough of the previous one slides out
            retry = seconds * (1.0 - (amount - current - 1) / previous) - into
        else:
            # only once this window has turned, and enough of it slid out too
            retry = (seconds - into) + seconds * max(0.0, 1.0 - (amount - 1) / current)
    return Allowance(
        allowed=allowed,
        limit=amount,
        remaining=max(0, math.floor(amount - estimate)),
        reset=math.ceil(seconds - into),
        retry_after=max(1, math.ceil(retry)) if not allowed else 0,
    )
