"""The house's ear on the tables: when the turn passes to a house player, queue its move."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from house import services
from tables.signals import turn_changed


@receiver(turn_changed, dispatch_uid="house.turn_changed")
def on_turn_changed(
    sender: Any, *, game_id: int, version: int, user_id: int | None, **kwargs: Any
) -> None:
    if user_id is not None and services.is_house_player(user_id):
        services.house_turn_queue(game_id=game_id, version=version)
