"""Who is online now: players whose notices socket was open in the last minute or so.

Stored in the cache, not the database: each socket marks its player in the current 30-second
slot (`social:online:<slot>`, a set of user ids kept for a few slots) when it opens and then at
most once a slot, on the page's pings (every 25 s). "Online" is being in one of the last
`ONLINE_SLOTS` slots, so a player drops off the list 60 to 90 s after their last page closed.

Adding to a slot is a read and a write: two sockets writing the same slot at once can lose one
mark, which that socket's next ping in the slot puts back (it reads the slot and finds itself
missing). On the embedded default the cache is per process, which is right there: every socket
and every page is served by the one daphne.
"""

from __future__ import annotations

import time

from django.core.cache import cache

SLOT_SECONDS = 30
ONLINE_SLOTS = 3  # the current slot and the two before it


def current_slot(now: float | None = None) -> int:
    return int((time.time() if now is None else now) // SLOT_SECONDS)


def _key(slot: int) -> str:
    return f"social:online:{slot}"


def mark_online(user_id: int, *, now: float | None = None) -> int:
    """Mark `user_id` online in the current slot; returns the slot (a socket marks once a slot)."""
    slot = current_slot(now)
    key = _key(slot)
    present: set[int] = cache.get(key) or set()
    if user_id not in present:
        cache.set(key, present | {user_id}, timeout=SLOT_SECONDS * (ONLINE_SLOTS + 1))
    return slot


def online_user_ids(*, now: float | None = None) -> set[int]:
    """Everyone seen on a notices socket in the last `ONLINE_SLOTS` slots."""
    slot = current_slot(now)
    found = cache.get_many([_key(slot - n) for n in range(ONLINE_SLOTS)])
    online: set[int] = set()
    for ids in found.values():
        online |= ids
    return online


def is_online(user_id: int) -> bool:
    return user_id in online_user_ids()
