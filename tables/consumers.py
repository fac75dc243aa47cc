"""`/ws/tables/<id>/`: one socket per open table page. The protocol is docs/protocol.md.

The consumer parses and checks the shape of each message, then makes one service call (one short
transaction). It never decides a rule. It listens to exactly one group: its seat's when the user
sits at the table, the public one otherwise, so it can only ever receive what its user may see.
"""

from __future__ import annotations

import time
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _

from chat.services import ChatError, chat_recent, chat_report, chat_send
from dominoes_site.consumers import CLOSE_ABUSE, HouseConsumer
from tables import broadcast, presence, selectors, services
from tables.models import Table

CLOSE_NO_TABLE = 4004

#: Token bucket per connection: a steady rate with a burst; far past it is abuse.
RATE_PER_SECOND = 10.0
BURST = 30.0
ABUSE_STRIKES = 50


class TableConsumer(HouseConsumer):
    table_id: int
    seat: int | None = None
    group: str | None = None
    is_host: bool = False
    present: bool = False

    async def on_accepted(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.language = _language(self.scope)
        self.tokens = BURST
        self.refilled = time.monotonic()
        self.strikes = 0
        found = await database_sync_to_async(self._load)()
        if not found:
            await self.close(code=CLOSE_NO_TABLE)
            return
        await self._join_group()
        await database_sync_to_async(presence.presence_join)(
            table_id=self.table_id, user=self.scope["user"], channel_name=self.channel_name
        )
        self.present = True

    def _load(self) -> bool:
        table = Table.objects.filter(pk=self.table_id).first()
        if table is None:
            return False
        user = self.scope["user"]
        game = selectors.live_game(table)
        self.seat = selectors.seat_number(table, game, user.pk)
        self.is_host = table.host_id == user.pk
        if table.private and self.seat is None and not self.is_host:
            code = _query_value(self.scope, "code")
            if code != table.invite_code:
                return False
        return True

    async def _join_group(self) -> None:
        wanted = (
            broadcast.public_group(self.table_id)
            if self.seat is None
            else broadcast.seat_group(self.table_id, self.seat)
        )
        if wanted == self.group:
            return
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)
        await self.channel_layer.group_add(wanted, self.channel_name)
        self.group = wanted

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)
        if self.present:
            # 1000/1001: the page closed the socket itself (left or navigated away); anything
            # else is a lost connection, which gets the longer grace.
            await database_sync_to_async(presence.presence_leave)(
                channel_name=self.channel_name, on_purpose=code in (1000, 1001)
            )
        await super().disconnect(code)

    # --- incoming -------------------------------------------------------------------------

    def _take_token(self) -> bool:
        now = time.monotonic()
        self.tokens = min(BURST, self.tokens + (now - self.refilled) * RATE_PER_SECOND)
        self.refilled = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    async def receive_json(self, content: dict[str, Any], **kwargs: Any) -> None:
        if not self._take_token():
            self.strikes += 1
            if self.strikes >= ABUSE_STRIKES:
                await self.close(code=CLOSE_ABUSE)
                return
            await self.send_error("rate_limited", _("Too many messages; wait a moment."))
            return
        kind = content["type"]
        handler = self.HANDLERS.get(kind)
        with translation.override(self.language):
            if handler is None:
                await super().receive_json(content)
                return
            try:
                await handler(self, content)
            except (services.TableError, ChatError) as exc:
                await self.send_error(
                    exc.code, exc.message, request_id=_request_id(content), **exc.extra
                )

    async def on_hello(self, content: dict[str, Any]) -> None:
        last = content.get("last_seq")
        if last is not None and (type(last) is not int or last < 0):
            raise services.TableError(
                "bad_field", _("last_seq is a whole number or null."), field="last_seq"
            )
        await self.send_json(await database_sync_to_async(self._catch_up)(last))

    def _catch_up(self, last: int | None) -> dict[str, Any]:
        table = Table.objects.get(pk=self.table_id)
        game = selectors.live_game(table)
        picture = self._with_you(selectors.table_picture(table, game))
        view = selectors.game_view(game, self.seat)
        if last is not None:
            missed = selectors.events_since(table, last, self.seat)
            if missed is not None:
                return {
                    "type": "resume",
                    "seq": table.seq,
                    "events": missed,
                    "table": picture,
                    "game": view,
                    "server_time": selectors.server_time(),
                    "chat": chat_recent(table_id=self.table_id, user_id=self.scope["user"].pk),
                }
        return {
            "type": "snapshot",
            "seq": table.seq,
            "table": picture,
            "game": view,
            "server_time": selectors.server_time(),
            "chat": chat_recent(table_id=self.table_id, user_id=self.scope["user"].pk),
        }

    async def on_sit(self, content: dict[str, Any]) -> None:
        number = _int_field(content, "seat")
        user = self.scope["user"]
        await database_sync_to_async(services.seat_take)(
            table_id=self.table_id, user=user, number=number
        )

    async def on_stand(self, content: dict[str, Any]) -> None:
        await database_sync_to_async(services.seat_leave)(
            table_id=self.table_id, user=self.scope["user"]
        )

    async def on_ready(self, content: dict[str, Any]) -> None:
        ready = content.get("ready", True)
        if type(ready) is not bool:
            raise services.TableError("bad_field", _("ready is true or false."), field="ready")
        await database_sync_to_async(services.seat_ready)(
            table_id=self.table_id, user=self.scope["user"], ready=ready
        )

    async def on_remove(self, content: dict[str, Any]) -> None:
        number = _int_field(content, "seat")
        await database_sync_to_async(services.seat_remove)(
            table_id=self.table_id, host=self.scope["user"], number=number
        )

    async def on_wash(self, content: dict[str, Any]) -> None:
        hand = _int_field(content, "hand")
        await database_sync_to_async(services.hand_wash)(
            table_id=self.table_id,
            user=self.scope["user"],
            hand=hand,
            entropy=content.get("entropy"),
        )

    async def on_act(self, content: dict[str, Any]) -> None:
        result = await database_sync_to_async(services.game_act)(
            table_id=self.table_id,
            user=self.scope["user"],
            version=content.get("version"),
            action=content.get("action"),
        )
        await self.send_json(
            {"type": "ack", "request_id": _request_id(content), "version": result.version}
        )

    async def on_ping(self, content: dict[str, Any]) -> None:
        await database_sync_to_async(presence.presence_seen)(channel_name=self.channel_name)
        await self.send_json({"type": "pong", "server_time": time.time()})

    async def on_claim(self, content: dict[str, Any]) -> None:
        await database_sync_to_async(presence.game_claim)(
            table_id=self.table_id, user=self.scope["user"]
        )

    async def on_abort(self, content: dict[str, Any]) -> None:
        await database_sync_to_async(services.game_abort)(
            table_id=self.table_id, user=self.scope["user"]
        )

    async def on_rematch(self, content: dict[str, Any]) -> None:
        want = content.get("want", True)
        if type(want) is not bool:
            raise services.TableError("bad_field", _("want is true or false."), field="want")
        await database_sync_to_async(services.rematch_offer)(
            table_id=self.table_id, user=self.scope["user"], want=want
        )

    async def on_chat(self, content: dict[str, Any]) -> None:
        await database_sync_to_async(chat_send)(
            table_id=self.table_id, user=self.scope["user"], content=content
        )

    async def on_report(self, content: dict[str, Any]) -> None:
        await database_sync_to_async(chat_report)(
            table_id=self.table_id,
            reporter=self.scope["user"],
            reported_id=content.get("user"),
            reason=content.get("reason"),
        )
        await self.send_json({"type": "reported", "request_id": _request_id(content)})

    HANDLERS = {
        "ping": on_ping,
        "claim": on_claim,
        "abort": on_abort,
        "rematch": on_rematch,
        "chat": on_chat,
        "report": on_report,
        "hello": on_hello,
        "sit": on_sit,
        "stand": on_stand,
        "ready": on_ready,
        "remove": on_remove,
        "wash": on_wash,
        "act": on_act,
    }

    # --- outgoing -------------------------------------------------------------------------

    def _with_you(self, picture: dict[str, Any]) -> dict[str, Any]:
        return {**picture, "you": {"seat": self.seat, "host": self.is_host}}

    async def table_update(self, message: dict[str, Any]) -> None:
        picture = message["table"]
        if picture is not None and picture["status"] == Table.Status.OPEN:
            # Before the game, a seat can change hands: follow this user to their seat's group.
            user_id = self.scope["user"].pk
            mine = next(
                (
                    s["number"]
                    for s in picture["seats"]
                    if s["player"] and s["player"]["id"] == user_id
                ),
                None,
            )
            if mine != self.seat:
                # Before the deal every audience sees the same; the client drops a repeated seq.
                self.seat = mine
                await self._join_group()
        update = {"type": "update", "seq": message["seq"], "events": message["events"]}
        if picture is not None:
            update["table"] = self._with_you(picture)
        update["game"] = message["game"]
        update["server_time"] = selectors.server_time()
        await self.send_json(update)

    async def table_watchers(self, message: dict[str, Any]) -> None:
        await self.send_json({"type": "watchers", "watchers": message["watchers"]})

    async def chat_message(self, message: dict[str, Any]) -> None:
        await self.send_json({"type": "chat", "message": message["message"]})


def _language(scope: dict[str, Any]) -> str:
    """The page's language: the switcher's cookie, else the account's, else English."""
    chosen = scope.get("cookies", {}).get(settings.LANGUAGE_COOKIE_NAME)
    user = scope.get("user")
    for language in (chosen, getattr(user, "language", None)):
        if language in dict(settings.LANGUAGES):
            return str(language)
    return settings.LANGUAGE_CODE


def _int_field(content: dict[str, Any], name: str) -> int:
    value = content.get(name)
    if type(value) is not int:
        raise services.TableError(
            "bad_field", _("%(field)s must be a whole number.") % {"field": name}, field=name
        )
    return value


def _request_id(content: dict[str, Any]) -> str | None:
    value = content.get("request_id")
    return value[:64] if isinstance(value, str) else None


def _query_value(scope: dict[str, Any], name: str) -> str | None:
    from urllib.parse import parse_qs

    values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get(name)
    return values[0] if values else None


class LobbyConsumer(HouseConsumer):
    """`/ws/lobby/`: tells the lobby page that a public table changed."""

    async def on_accepted(self) -> None:
        await self.channel_layer.group_add(broadcast.LOBBY_GROUP, self.channel_name)

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(broadcast.LOBBY_GROUP, self.channel_name)
        await super().disconnect(code)

    async def lobby_table(self, message: dict[str, Any]) -> None:
        await self.send_json({"type": "table", "table": message["table"]})

    async def lobby_watchers(self, message: dict[str, Any]) -> None:
        await self.send_json(
            {"type": "watchers", "table": message["table"], "watchers": message["watchers"]}
        )
