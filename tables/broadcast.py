"""The only code of the tables app that talks to the channel layer, always after commit.

Each audience has a group of its own: `table.<id>.seat.<n>` for the connections of the player in
seat n, `table.<id>.public` for everyone else. A seat's private events and hand go only to that
seat's group, so the wrong connection cannot receive them.
"""

from __future__ import annotations

from typing import Any

from dominoes_site.layer import group_send
from tables import selectors
from tables.models import Table


def seat_group(table_id: int, seat: int) -> str:
    return f"table.{table_id}.seat.{seat}"


def public_group(table_id: int) -> str:
    return f"table.{table_id}.public"


LOBBY_GROUP = "lobby"


def table_changed(
    table_id: int, seq: int, public: list[dict[str, Any]], private: dict[str, list[dict[str, Any]]]
) -> None:
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        return
    game = selectors.live_game(table)
    picture = selectors.table_picture(table, game)
    state = None
    if game is not None and game.status != game.Status.WAITING:
        from engine import GameState

        state = GameState.from_json(game.state)
    for seat in range(table.players):
        group_send(
            seat_group(table_id, seat),
            {
                "type": "table.update",
                "seq": seq,
                "events": private.get(str(seat), public),
                "table": picture,
                "game": selectors.game_view(game, seat, state),
            },
        )
    group_send(
        public_group(table_id),
        {
            "type": "table.update",
            "seq": seq,
            "events": public,
            "table": picture,
            "game": selectors.game_view(game, None, state),
        },
    )
    if not table.private:
        group_send(LOBBY_GROUP, {"type": "lobby.table", "table": lobby_row(table, picture)})


def lobby_row(table: Table, picture: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": table.pk,
        "status": table.status,
        "private": table.private,
        "seats": picture["seats"],
    }
