"""A table's game kept warm in the process that serves its sockets (PostgreSQL).

A move made the usual way is four round trips to the database, each a wait of the event loop
that serves the table's sockets (dominoes_site/db_hop.py): BEGIN, read and lock the game and its
table, the writes (one statement, statements.Writes), COMMIT; and the socket's account check is
one more read before them. A process that made the last move of a game already holds what that
read would return. So each process keeps, per table, the game it last wrote (with its table) and
both rows' versions (PostgreSQL's `xmin`: any write to a row, from any process, changes it). The
next move of that game is applied to a copy of what is kept and saved by one statement, a
transaction of its own (`statements.Writes.alone`), that changes the game and the table only
where both rows are still the versions kept, the game still at the version the player saw, and
the player's account still at the generation its socket checked (dominoes_site/user_sockets.py):
one round trip, of a statement the connection prepared once. Where anything of that changed
meanwhile (another process moved, a clock ran out, a seat went away, staff edited the table, the
account changed) the statement changes nothing and the move is made the usual way, from a fresh
read under lock, after the account check.

A table another process also writes to (its house players move from the worker, its clock runs
out there) would lose that statement at every move of this process; after one lost statement,
each move reads the game afresh first (two round trips, none lost) until `SHARED_READS` moves in a
row find that nobody else wrote since this process did.

Only the common move goes this way: one that neither deals a hand (a deal writes the hand's
commitment and reads the seed) nor ends the game (the settlement and the other subscribers of
`game_finished` run in its transaction). Those raise `Cold` before anything is written, as does
anything the usual way answers with a refusal, so every refusal a player can get is made by
one code path.

The server stays authoritative: what is kept is only ever what this process wrote or read, and a
write is kept only where the database still holds exactly it.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from django.db import connections, router

from tables import statements
from tables.models import Game, Table
from tables.recent import Recent

#: Games kept per process (a daphne serves a few hundred tables; a kept game is a few KB).
MAX_KEPT = 2048
#: After a write from elsewhere made a warm move lose, how many moves in a row read the game
#: afresh (and find nobody else wrote since this process did) before what is kept is trusted
#: again: a table whose house players move from the worker, or whose clock runs out there,
#: costs a read a move instead of a lost statement a move.
SHARED_READS = 10


class Cold(Exception):
    """This move cannot be made warm: make it the usual way (nothing was written)."""


@dataclass(frozen=True)
class Kept:
    game: Game  # with its table cached; never handed out, only copies of it
    game_row: str
    table_row: str


_kept: Recent[int, Kept] = Recent(MAX_KEPT)
#: Tables another process writes to: moves left to read afresh (see SHARED_READS).
_shared: Recent[int, int] = Recent(MAX_KEPT)


def usable() -> bool:
    """Whether a move may be made warm here: PostgreSQL, and not inside a transaction."""
    connection = connections[router.db_for_write(Game)]
    return connection.vendor == "postgresql" and not connection.in_atomic_block


def _copy(kept: Kept) -> Kept:
    game = copy.copy(kept.game)
    Game._meta.get_field("table").set_cached_value(game, copy.copy(kept.game.table))
    return Kept(game, kept.game_row, kept.table_row)


def take(table_id: int) -> Kept | None:
    """A copy of the table's playing game as this process last wrote it, or as it reads it now
    (no lock: the write compares the rows' versions), with both rows' versions. None: no game
    in progress. A table another process writes to is read afresh each time for a while."""
    kept = _kept.get(table_id)
    shared = _shared.get(table_id)
    if kept is not None and shared is None:
        return _copy(kept)
    found = statements.select_with_row_versions(
        Game, "table", {"table": table_id, "status": Game.Status.PLAYING}
    )
    if found is None:
        return None
    game, game_row, table_row = found
    assert isinstance(game, Game)
    fresh = Kept(game, game_row, table_row)
    if shared is not None:
        # Nobody else wrote since this process did: one quiet move more.
        quiet = kept is not None and (kept.game_row, kept.table_row) == (game_row, table_row)
        left = shared - 1 if quiet else SHARED_READS
        if left > 0:
            _shared.put(table_id, left)
        else:
            _shared.pop(table_id)
    _kept.put(table_id, fresh)
    return _copy(fresh)


def keep(game: Game, row_versions: dict[type[Game] | type[Table], str]) -> None:
    """`game` (and its table) as just written by one statement, with the rows' new versions.
    The caller hands the instance over: it is kept as it is, and only copies are handed out."""
    _kept.put(game.table_id, Kept(game, row_versions[Game], row_versions[Table]))


def forget(table_id: int) -> None:
    """The table's game changed the usual way: read it afresh next time."""
    _kept.pop(table_id)


def lost(table_id: int) -> None:
    """A warm move of the table lost to a write from elsewhere: read it afresh for a while."""
    _kept.pop(table_id)
    _shared.put(table_id, SHARED_READS)


def forget_all() -> None:
    """Tests: a fresh process."""
    _kept.clear()
    _shared.clear()
