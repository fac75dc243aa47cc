"""`/ws/tournaments/` and `/ws/tournaments/<id>/`: tell a page that the list or the event changed.

The message carries no private data (the event's id and its new seq): the page fetches its live
part again, rendered for its own viewer. Drafts are not announced to anyone but the organizer's
pages, which fetch them the same way."""

from __future__ import annotations

from typing import Any

from dominoes_site.consumers import HouseConsumer
from tournaments.broadcast import LIST_GROUP, group_name


class TournamentConsumer(HouseConsumer):
    group: str | None = None

    async def on_accepted(self) -> None:
        tournament_id = self.scope["url_route"]["kwargs"].get("tournament_id")
        self.group = LIST_GROUP if tournament_id is None else group_name(int(tournament_id))
        await self.channel_layer.group_add(self.group, self.channel_name)

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)
        await super().disconnect(code)

    async def tournament_changed(self, message: dict[str, Any]) -> None:
        await self.send_json(
            {"type": "changed", "tournament": message["tournament"], "seq": message["seq"]}
        )
