"""The house's ear on the tables: when the turn passes to a house player, queue its move; when
a game with house players is over, they offer (or accept) the rematch."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from house import services
from tables.signals import turn_changed

#: The house players among each game's players (a game's players never change once it has
#: started, and an account is a house player from its creation or never), so that a turn costs
#: no query: the first turn of a game asks once. Keyed by the game and its players, so a test
#: database that hands out an id again is never answered from another game. Bounded.
_HOUSE_AMONG: dict[tuple[int, tuple[int, ...]], frozenset[int]] = {}
_REMEMBERED = 10_000


@receiver(turn_changed, dispatch_uid="house.turn_changed")
def on_turn_changed(
    sender: Any,
    *,
    game_id: int,
    version: int,
    user_id: int | None,
    players: tuple[int, ...] = (),
    **kwargs: Any,
) -> None:
    if user_id is None and not players:
        return
    key = (game_id, players)
    house = _HOUSE_AMONG.get(key)
    if house is None:
        house = services.house_players_among(players or (user_id,))
        if len(_HOUSE_AMONG) >= _REMEMBERED:
            _HOUSE_AMONG.clear()
        _HOUSE_AMONG[key] = house
    if user_id is None:
        if house:  # nobody to act: perhaps the game is over, and the house wants a rematch
            services.house_rematch_queue(game_id=game_id)
        return
    if user_id in house:
        services.house_turn_queue(game_id=game_id, version=version)
