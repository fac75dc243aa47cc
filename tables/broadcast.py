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
) -> None:
    """Send each audience its own update: the events it may see, its view of the game, and the
    table's picture when that changed (an update without `table` leaves it as it was)."""
    table_id = table.pk
    if game is None:
        game = selectors.live_game(table)
    drawn = selectors.table_picture(table, game) if picture or lobby else None
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


def lobby_row(table: Table, picture: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": table.pk,
        "status": table.status,
        "private": table.private,
        "seats": picture["seats"],
    }
