"""The only code of the tables app that talks to the channel layer, always after commit.

Each audience has a group of its own: `table.<id>.seat.<n>` for the connections of the player in
seat n, `table.<id>.public` for everyone else. A seat's private events and hand go only to that
seat's group, so the wrong connection cannot receive them.
"""

from __future__ import annotations

from typing import Any

from dominoes_site.layer import group_send_many
from engine import GameState, public_view
from tables import selectors
from tables.models import Game, Table
from tables.recent import Recent


def seat_group(table_id: int, seat: int) -> str:
    return f"table.{table_id}.seat.{seat}"


def public_group(table_id: int) -> str:
    return f"table.{table_id}.public"


LOBBY_GROUP = "lobby"


def all_groups(table_id: int, players: int) -> list[str]:
    """Every audience of a table: each seat's group and the public one."""
    return [seat_group(table_id, seat) for seat in range(players)] + [public_group(table_id)]


def table_changed(
    table: Table,
    seq: int,
    public: list[dict[str, Any]],
    private: dict[str, list[dict[str, Any]]],
    *,
    game: Game | None = None,
    state: GameState | None = None,
    lobby: bool = True,
    picture: bool = True,
    commitment: dict[str, Any] | None = None,
) -> None:
    """Send each audience its own update: the events it may see, its view of the game, and the
    table's picture when that changed (an update without `table` leaves it as it was).
    `commitment`: the picture changed in the next hand's commitment alone (a deal)."""
    table_id = table.pk
    if game is None:
        game = selectors.live_game(table)
    if picture or lobby:
        drawn = _picture(table, game, seq, commitment if picture else None)
    else:
        drawn = None
        _carry(table_id, seq)
    if state is None and game is not None and game.status != Game.Status.WAITING:
        state = GameState.from_json(game.state)
    # The engine's public view once: each seat's view is it plus the seat's own part.
    public_part = public_view(state) if state is not None else None

    def update(seat: int | None) -> dict[str, Any]:
        return {
            "type": "table.update",
            "seq": seq,
            "events": public if seat is None else private.get(str(seat), public),
            "table": drawn if picture else None,
            "game": selectors.game_view(game, seat, state, public_part),
        }

    outgoing = [(seat_group(table_id, seat), update(seat)) for seat in range(table.players)]
    outgoing.append((public_group(table_id), update(None)))
    if lobby and drawn is not None and not table.private:
        outgoing.append((LOBBY_GROUP, {"type": "lobby.table", "table": lobby_row(table, drawn)}))
    group_send_many(outgoing)


#: The picture this process last sent of each table, and the event number it is the picture
#: at. Each event this process sends that leaves the picture as it was carries it to the next
#: number; an event made elsewhere (another process) breaks the chain. A deal changes only the
#: next hand's commitment, so a deal right after an unbroken chain sends the kept picture with
#: its new commitment instead of reading the seats, the presence and the ratings again.
MAX_PICTURES_KEPT = 2048
_sent: Recent[int, tuple[int, dict[str, Any]]] = Recent(MAX_PICTURES_KEPT)


def _picture(
    table: Table, game: Game | None, seq: int, commitment: dict[str, Any] | None
) -> dict[str, Any]:
    kept = _sent.get(table.pk)
    if commitment is not None and kept is not None and kept[0] == seq - 1:
        drawn = {**kept[1], "commitment": commitment}
    else:
        drawn = selectors.table_picture(table, game)
    _sent.put(table.pk, (seq, drawn))
    return drawn


def picture_at(table: Table, game: Game | None) -> dict[str, Any]:
    """The table's picture at its event number now (`table` read under its row lock, `game` its
    live game): the one this process keeps for that number, else drawn and kept. Sockets that
    arrive together at one table (its players and watchers, moved by a drain or a lost server)
    draw it once. Pictures are shared: read them, never change them."""
    kept = _sent.get(table.pk)
    if kept is not None and kept[0] == table.seq:
        return kept[1]
    drawn = selectors.table_picture(table, game)
    _sent.put(table.pk, (table.seq, drawn))
    return drawn


def _carry(table_id: int, seq: int) -> None:
    kept = _sent.get(table_id)
    if kept is None:
        return
    if kept[0] == seq - 1:
        _sent.put(table_id, (seq, kept[1]))
    else:
        _sent.pop(table_id)


def forget_pictures() -> None:
    """Tests: a fresh process."""
    _sent.clear()


def lobby_row(table: Table, picture: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": table.pk,
        "status": table.status,
        "private": table.private,
        "seats": picture["seats"],
    }
