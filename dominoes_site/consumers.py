"""The base of every socket: only adults with an active account get in.

`HouseConsumer` checks the user at connect (closing with 4001 when not logged in and 4003 when
the account may not play), joins the user's own group so that the house can close the user's
sockets when the account is suspended, and answers pings with the server time (clients use it
to draw clocks from the server's time, not their own).
"""

from __future__ import annotations

import json
import time
from typing import Any

import msgspec
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.utils.translation import gettext as _

from accounts.services import user_group_name, user_may_play

CLOSE_NOT_LOGGED_IN = 4001
CLOSE_NOT_ALLOWED = 4003
CLOSE_ABUSE = 4008
MAX_FRAME_BYTES = 4096
_JSON = msgspec.json.Encoder()


class HouseConsumer(AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    user_group: str | None = None

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_NOT_LOGGED_IN)
            return
        if not await database_sync_to_async(user_may_play)(user):
            await self.close(code=CLOSE_NOT_ALLOWED)
            return
        self.user_group = user_group_name(user.pk)
        await self.channel_layer.group_add(self.user_group, self.channel_name)
        await self.accept()
        await self.on_accepted()

    async def on_accepted(self) -> None:
        """Hook for subclasses: the socket is open and the user may play."""

    async def dispatch(self, message: dict[str, Any]) -> None:
        """As channels' own, without its `close_old_connections` before every message: that is
        a hop to the database thread and back for each one, group messages included (four or
        more a move). Every handler here reaches the database through `database_sync_to_async`,
        which closes old connections itself, in that thread, around each call."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def disconnect(self, code: int) -> None:
        if self.user_group:
            await self.channel_layer.group_discard(self.user_group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if text_data is None:
            await self.send_error("bad_frame", _("Only JSON text messages are understood."))
            return
        if len(text_data) > MAX_FRAME_BYTES:
            await self.send_error(
                "too_large", _("Messages are limited to %(n)d bytes.") % {"n": MAX_FRAME_BYTES}
            )
            return
        try:
            content = json.loads(text_data)
        except ValueError:
            await self.send_error("bad_json", _("That message is not valid JSON."))
            return
        if not isinstance(content, dict) or not isinstance(content.get("type"), str):
            await self.send_error("bad_message", _("A message is a JSON object with a 'type'."))
            return
        await self.receive_json(content)

    async def receive_json(self, content: dict[str, Any], **kwargs: Any) -> None:
        if content["type"] == "ping":
            await self.send_json({"type": "pong", "server_time": time.time()})
            return
        await self.send_error(
            "unknown_type", _("Unknown message type %(type)r.") % {"type": content["type"][:40]}
        )

    @classmethod
    async def encode_json(cls, content: Any) -> str:
        """msgspec writes the same JSON as `json.dumps` (compact), several times faster."""
        return _JSON.encode(content).decode()

    async def send_error(self, code: str, message: str, **extra: Any) -> None:
        await self.send_json({"type": "error", "code": code, "message": message, **extra})

    async def account_suspended(self, event: dict[str, Any]) -> None:
        """Sent to the user's group when the account may no longer play."""
        await self.send_json(
            {"type": "suspended", "message": event.get("message", "Your account is suspended.")}
        )
        await self.close(code=CLOSE_NOT_ALLOWED)


class HeartbeatConsumer(HouseConsumer):
    """`/ws/heartbeat/`: tells the page the server is there, and the server's time."""

    async def on_accepted(self) -> None:
        await self.send_json({"type": "hello", "server_time": time.time()})
