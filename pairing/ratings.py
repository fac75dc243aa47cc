"""The one place pairing reads ratings from (the `ratings` app, read only)."""

from __future__ import annotations

from collections.abc import Iterable

from pairing.cells import Cell
from ratings.pools import pool_for
from ratings.selectors import player_ratings


def ratings_in_pool(user_ids: Iterable[int], cell: Cell) -> dict[int, int]:
    """Each player's rating, rounded, in the rating pool the cell's games count for."""
    ids = list(user_ids)
    found = player_ratings(ids, pool_for(cell.settings()))
    return {uid: round(found[uid].rating) for uid in ids}
