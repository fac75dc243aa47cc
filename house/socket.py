"""The host's house-player controls on the table socket: `house_sit` and `house_remove`
(docs/protocol.md). Added to the table socket from HouseConfig.ready() (tables imports nothing
of the house)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from house import services as house
from tables.consumers import add_handler, whole_field
from tables.services import TableError


async def on_house_sit(consumer: Any, content: dict[str, Any]) -> None:
    """The host seats a house player (house/services.py)."""
    number = whole_field(content, "seat")
    level = content.get("level")
    if type(level) is not str:
        raise TableError("bad_field", _("level is rookie, regular or shark."), field="level")
    await consumer.call(
        house.house_seat_add,
        table_id=consumer.table_id,
        host=consumer.scope["user"],
        number=number,
        level=level,
    )


async def on_house_remove(consumer: Any, content: dict[str, Any]) -> None:
    number = whole_field(content, "seat")
    await consumer.call(
        house.house_seat_remove,
        table_id=consumer.table_id,
        host=consumer.scope["user"],
        number=number,
    )


def register() -> None:
    add_handler("house_sit", on_house_sit)
    add_handler("house_remove", on_house_remove)
