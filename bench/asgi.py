"""The ASGI application of the WebSocket load bench (`bench/ws_load.py`); never used in production.

It is the house's own stack (`dominoes_site.asgi`): the same Django HTTP app, and for WebSockets
the same origin validator, session auth middleware and routes, plus ONE extra route for the bare
broadcast baseline:

    /ws/bench/fanout/<group>/

served by `FanoutConsumer`, a trivial consumer with no database and no game logic. Each socket
joins the channel-layer group `bench.fanout.<group>`; when a member sends `{"type": "move",
"seq": n}`, the consumer makes one `group_send` to the group of a message shaped and sized like a
real table update after a move (a seat's game view and its events; no table picture, which real
updates leave out unless it changed), and every member forwards it to its client as
`{"type": "update", "seq": n, ...}`. So the baseline goes through the same daphne, the same auth
stack and the same channel layer as a real move; only the database transaction, the rules and
the per-seat view building are missing.

`BENCH_FANOUT_SERIAL=1` makes the group_sends of one process one at a time (a process-wide lock);
the default is concurrent, as the real broadcasts are now (each process's sender task sends one
move's audiences together; bench/README.md's older figures were taken with channels-lite's SQLite
layer, which deadlocked on ten concurrent group_sends, and were serial there).

    daphne -b 127.0.0.1 -p 8000 bench.asgi:application
"""

from __future__ import annotations

import asyncio
import os
import random
from typing import Any

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dominoes_site.settings")

# isort: off
from dominoes_site.asgi import auth_stack, django_asgi_app  # first: it sets Django up

# isort: on
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.routing import ProtocolTypeRouter, URLRouter
from channels.security.websocket import AllowedHostsOriginValidator
from django.urls import path

from dominoes_site.routing import websocket_urlpatterns
from engine import GameState, Pass, Phase, TableSettings, full_set, seat_view

CLOSE_NOT_LOGGED_IN = 4001


def sample_update(moves: int = 12, seed: int = 2024) -> dict[str, Any]:
    """A realistic table update (picture, seat view, events) from a seeded Cut Throat game."""
    settings = TableSettings.build("citizen", players=4, partners=False)
    rng = random.Random(seed)
    state = GameState.new(settings)
    order = list(full_set(6))
    rng.shuffle(order)
    state.deal(order)
    events: list[Any] = []
    for _ in range(moves):
        if state.phase not in (Phase.PLAYING, Phase.CHOOSING_DOUBLES):
            break
        if state.is_forced_pass():
            assert state.to_act is not None
            events += state.apply(Pass(state.to_act))
            continue
        events = list(state.apply(rng.choice(state.legal_actions())))
    seat = state.to_act if state.to_act is not None else 0
    view = seat_view(state, seat)
    view["version"] = moves
    # Like most real updates (tables/broadcast.py): the table's picture is left out when it did
    # not change, which is every move but a deal's or the game's last.
    return {"events": [e.to_seat(seat) for e in events], "table": None, "game": view}


SAMPLE = sample_update()


def _serial_default() -> bool:
    return os.environ.get("BENCH_FANOUT_SERIAL", "").lower() in ("1", "true", "yes")


SERIAL = _serial_default()
_send_lock: asyncio.Lock | None = None


def _lock() -> asyncio.Lock:
    global _send_lock
    if _send_lock is None:
        _send_lock = asyncio.Lock()
    return _send_lock


class FanoutConsumer(AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    """The bare broadcast: one group_send per `move`, forwarded by every member."""

    group: str | None = None

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_NOT_LOGGED_IN)
            return
        self.group = f"bench.fanout.{self.scope['url_route']['kwargs']['group']}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content: dict[str, Any], **kwargs: Any) -> None:
        if content.get("type") != "move" or not self.group:
            return
        message = {"type": "bench.fanout", "seq": content.get("seq"), **SAMPLE}
        if SERIAL:
            async with _lock():
                await self.channel_layer.group_send(self.group, message)
        else:
            await self.channel_layer.group_send(self.group, message)

    async def bench_fanout(self, message: dict[str, Any]) -> None:
        await self.send_json(
            {
                "type": "update",
                "seq": message["seq"],
                "events": message["events"],
                "game": message["game"],
            }
        )


bench_urlpatterns = [path("ws/bench/fanout/<slug:group>/", FanoutConsumer.as_asgi())]

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            auth_stack(URLRouter([*websocket_urlpatterns, *bench_urlpatterns]))
        ),
    }
)
