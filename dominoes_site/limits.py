"""How often something may be done: counters in the cache, one per name and window.

`hit(name, amount, seconds)` counts one more of `name` and says whether the count over the last
`seconds` is still within `amount`. The last `seconds` are estimated from two fixed windows: all
of the current window's count plus the share of the previous window's count that still lies in
the last `seconds` (a sliding window, as Cloudflare's rate limits count). So a burst at a
window's edge is not let through twice: `amount` at 0:59 and one more at 1:00 is refused.

Each count is `cache.add` then `cache.incr`: atomic on Redis (production) and on locmem (the
embedded default, one process), so requests sent at once are all counted. Refused tries count
too: someone who keeps trying waits longer.
"""

from __future__ import annotations

import time

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


def hit(name: str, amount: int, seconds: int, *, now: float | None = None) -> bool:
    """Count one of `name` now; True while at most `amount` fall in the last `seconds`."""
    at = time.time() if now is None else now
    window = int(at // seconds)
    current = _count_one(_key(name, seconds, window), seconds)
    previous = int(cache.get(_key(name, seconds, window - 1)) or 0)
    still_inside = 1.0 - (at % seconds) / seconds
    return current + previous * still_inside <= amount
