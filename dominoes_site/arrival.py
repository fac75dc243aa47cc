"""When each WebSocket frame reached the server: daphne stamps it as it reads it.

A socket's frames are carried out one after another, each after the database work of the one
before it; under load a frame can wait in its socket's queue for a while after it came in. What
depends on when a message arrived (a move against the Gym clock: tables/services.py) must not
count that wait against the player. So every `websocket.receive` message daphne hands the
application carries `received_at`: the server's clock (epoch seconds, `time.time()`) when daphne
read the frame off the connection, before it was queued. It is the server's own reading: nothing
a client sends can set it (the client only writes the frame's text).

`install()` makes daphne's WebSocket factory build `StampedWebSocketProtocol` instead of its
own; dominoes_site/asgi.py calls it when imported, which the `daphne` command does before it
serves anything. A server that does not stamp (channels' test communicator, another ASGI
server) leaves the key out, and the consumer uses the moment it began to handle the frame
(`HouseConsumer.websocket_receive`, before any database hop).
"""

from __future__ import annotations

import logging
import math
import time
from typing import Any

from daphne.ws_protocol import WebSocketFactory, WebSocketProtocol

log = logging.getLogger("daphne.ws_protocol")

#: The key of a `websocket.receive` message with the moment the server read the frame.
RECEIVED_AT = "received_at"


class StampedWebSocketProtocol(WebSocketProtocol):  # type: ignore[misc]
    """daphne's WebSocket protocol, its incoming frames stamped with the server's clock."""

    def onMessage(self, payload: bytes, isBinary: bool) -> None:
        received_at = time.time()
        # As daphne's own (daphne 4.x), with the stamp.
        if self.muted:
            log.debug("Muting incoming frame on %s", self.client_addr)
            return
        log.debug("WebSocket incoming frame on %s", self.client_addr)
        self.last_ping = received_at
        message: dict[str, Any] = {"type": "websocket.receive", RECEIVED_AT: received_at}
        if isBinary:
            message["bytes"] = payload
        else:
            message["text"] = payload.decode("utf8")
        self.application_queue.put_nowait(message)


def install() -> None:
    """Serve WebSockets with `StampedWebSocketProtocol` (idempotent; before daphne serves)."""
    WebSocketFactory.protocol = StampedWebSocketProtocol


def received_at(message: dict[str, Any]) -> float:
    """When a `websocket.receive` message's frame reached the server (epoch seconds): the
    server's stamp, or now when it has none. Never later than now."""
    now = time.time()
    stamp = message.get(RECEIVED_AT)
    if type(stamp) is not float or not math.isfinite(stamp):
        return now
    return min(stamp, now)
