"""The API's live streams (NDJSON over HTTP, docs/api.md "Streams"): a seat's game stream and
the account's event stream. Each is an async generator served by the ASGI server: it joins the
same channel-layer groups as the sockets do (so it hears what a socket of the same audience
hears, and nothing more), writes one JSON object per line, and an empty line every
`KEEPALIVE_SECONDS` so that proxies and clients know it is alive.

A stream survives what the sockets survive:
- updates that overtake one another (two daphnes, a worker) or were lost (Redis restarted: the
  layer sends `layer.resync`) are never shown out of order or missed: a gap is filled by reading
  the table's events since the last one sent (the same read as a socket's `hello`);
- a client that reconnects with `since` (the last `seq` it saw) gets a `resume` with what it
  missed, or a fresh `snapshot` when the log no longer reaches back;
- a daphne that is being drained ends each stream with `{"type": "reconnect"}`: reconnect at
  once with `since`;
- a read the stream needs that fails on a database restarting ends it with `reconnect` too;
- every `KEEPALIVE_SECONDS` the token is checked again: a revoked token, or an account that
  may no longer play, ends the stream with `{"type": "end", "code": ...}`.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

from channels.layers import get_channel_layer
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.http import StreamingHttpResponse

from dominoes_site import db_hop, draining
from dominoes_site.consumers import server_time
from dominoes_site.metrics import API_STREAMS_OPEN

log = logging.getLogger(__name__)

#: An empty line this often when nothing else was sent (clients: treat 3 missed as a drop).
KEEPALIVE_SECONDS = 15.0
#: How often a quiet stream looks at whether its server is being drained.
TICK_SECONDS = 1.0


@contextmanager
def open_stream(kind: str) -> Iterator[None]:
    """Counted among the open streams (dominoes_api_streams_open) while it lasts."""
    API_STREAMS_OPEN.labels(kind=kind).inc()
    try:
        yield
    finally:
        API_STREAMS_OPEN.labels(kind=kind).dec()


def ndjson_response(lines: AsyncGenerator[bytes, None]) -> StreamingHttpResponse:
    """A stream's answer. When the answer ends (the client went, the server closes it), the
    stream's generator is closed at once, on its loop: its groups are left and it is counted
    out, without waiting for the garbage collector to find it."""
    response = StreamingHttpResponse(lines, content_type="application/x-ndjson")
    response["Cache-Control"] = "no-store"
    response["X-Accel-Buffering"] = "no"  # a proxy must pass each line on at once
    loop = asyncio.get_running_loop()

    def close_lines() -> None:
        with suppress(RuntimeError):  # the loop is gone: so is the generator
            loop.call_soon_threadsafe(lambda: asyncio.ensure_future(lines.aclose()))

    response._resource_closers.append(close_lines)
    return response


def line(message: dict[str, Any]) -> bytes:
    return json.dumps(message, cls=DjangoJSONEncoder, separators=(",", ":")).encode() + b"\n"


class GroupListener:
    """A channel of the layer's own, in some groups, as a consumer has; closed after use."""

    def __init__(self) -> None:
        self.layer = get_channel_layer()
        self.channel = ""
        self.groups: set[str] = set()
        self.pending: asyncio.Future[dict[str, Any]] | None = None

    async def open(self) -> None:
        self.channel = await self.layer.new_channel("api.")
        # The channel's queue on this loop now, before it joins a group: a message delivered
        # from another thread (a move's commit) before the first receive finds it there.
        inboxes = getattr(self.layer, "inboxes", None)
        if inboxes is not None:
            inboxes.open(self.channel)

    async def join(self, group: str) -> None:
        if group not in self.groups:
            await self.layer.group_add(group, self.channel)
            self.groups.add(group)

    async def leave(self, group: str) -> None:
        if group in self.groups:
            self.groups.discard(group)
            await self.layer.group_discard(group, self.channel)

    async def receive(self, timeout: float) -> dict[str, Any] | None:
        """The next message, or None after `timeout` seconds without one. One receive from the
        layer stays pending across the waits: a wait that times out leaves it be (cancelling a
        layer's receive at every tick of every stream, as wait_for did, cost more than the
        messages)."""
        if self.pending is None:
            self.pending = asyncio.ensure_future(self.layer.receive(self.channel))
        done, _ = await asyncio.wait({self.pending}, timeout=timeout)
        if not done:
            return None
        received, self.pending = self.pending, None
        message: dict[str, Any] = received.result()
        return message

    async def close(self) -> None:
        pending, self.pending = self.pending, None
        if pending is not None:
            pending.cancel()  # its end is read (and dropped) when it comes
            pending.add_done_callback(lambda done: done.cancelled() or done.exception())
        for group in list(self.groups):
            with suppress(Exception):  # the layer may be away; its groups expire
                await self.leave(group)


def still_allowed(user_id: int, token_id: int | None) -> Any:
    """For `ticking`: run at each keepalive, a refusal code when the stream of this account
    (and token) may not go on."""

    def check() -> str | None:
        from accounts.models import User
        from accounts.services import refusal_reason
        from api.models import AccessToken

        user = User.objects.filter(pk=user_id).first()
        if user is None or refusal_reason(user) is not None:
            return "account_refused"
        if (
            token_id is not None
            and not AccessToken.objects.filter(pk=token_id, revoked_at=None).exists()
        ):
            return "bad_token"
        return None

    return check


async def ticking(
    listener: GroupListener, still_allowed: Callable[[], Any]
) -> AsyncIterator[dict[str, Any] | str]:
    """The listener's messages, with "keepalive" when nothing came for KEEPALIVE_SECONDS,
    "reconnect" once the server is being drained, and "end:<code>" when `still_allowed` (run
    with the database at each keepalive) answers a refusal code."""
    quiet = 0.0
    while True:
        if draining.active():
            yield "reconnect"
            return
        message = await listener.receive(TICK_SECONDS)
        if message is not None:
            quiet = 0.0
            yield message
            continue
        quiet += TICK_SECONDS
        if quiet >= KEEPALIVE_SECONDS:
            quiet = 0.0
            try:
                refusal = await db_hop.run(still_allowed)
            except db_hop.DatabaseUnavailable:
                refusal = None  # the database restarting: checked again at the next keepalive
            if refusal:
                yield f"end:{refusal}"
                return
            yield "keepalive"


# --- a seat's game stream ----------------------------------------------------------------------


class GameStream:
    """What one caller may see of one table, from `since` on (see the module's docstring)."""

    def __init__(self, table_id: int, user: Any, still_allowed: Callable[[], Any]) -> None:
        self.table_id = table_id
        self.user = user
        self.still_allowed = still_allowed
        self.seat: int | None = None
        self.sent_seq = -1
        self.group: str | None = None
        self.listener = GroupListener()

    def _read(self, since: int | None) -> dict[str, Any] | None:
        """The answer to a socket's hello, as the seat sees the table now: under the table's
        row lock, so the picture, the game and the number are one moment."""
        from tables import broadcast, selectors
        from tables.models import Table

        with transaction.atomic():
            table = Table.objects.select_for_update().filter(pk=self.table_id).first()
            if table is None:
                return None
            game = selectors.live_game(table)
            picture = broadcast.picture_at(table, game)
            self.seat = selectors.seat_number(table, game, self.user.pk, picture)
            answer: dict[str, Any] = {
                "type": "snapshot",
                "seq": table.seq,
                "table": {
                    **picture,
                    "you": {"seat": self.seat, "host": table.host_id == self.user.pk},
                },
                "game": selectors.game_view(game, self.seat),
            }
            if since is not None:
                missed = selectors.events_since(table, since, self.seat)
                if missed is not None:
                    answer["type"] = "resume"
                    answer["events"] = missed
            answer["server_time"] = server_time()
            return answer

    def _group(self) -> str:
        from tables import broadcast

        if self.seat is None:
            return broadcast.public_group(self.table_id)
        return broadcast.seat_group(self.table_id, self.seat)

    async def _follow_seat(self) -> None:
        """Into the seat's group (or the public one): the new one before leaving the old."""
        wanted = self._group()
        if wanted != self.group:
            await self.listener.join(wanted)
            if self.group:
                await self.listener.leave(self.group)
            self.group = wanted

    async def _catch_up(self, since: int | None) -> bytes | None:
        answer = await db_hop.run(self._read, since)
        if answer is None:
            return line({"type": "end", "code": "no_such_table"})
        await self._follow_seat()
        self.sent_seq = max(self.sent_seq, answer["seq"])
        return line(answer)

    def _update(self, message: dict[str, Any]) -> bytes:
        update: dict[str, Any] = {
            "type": "update",
            "seq": message["seq"],
            "events": message["events"],
        }
        if message["table"] is not None:
            update["table"] = {
                **message["table"],
                "you": {"seat": self.seat, "host": message["table"].get("host") == self.user.pk},
            }
        update["game"] = message["game"]
        update["server_time"] = server_time()
        self.sent_seq = message["seq"]
        return line(update)

    def _seat_in(self, picture: dict[str, Any]) -> int | None:
        for s in picture.get("seats", []):
            if s.get("player") and s["player"].get("id") == self.user.pk:
                return int(s["number"])
        return None

    async def lines(self, since: int | None) -> AsyncIterator[bytes]:
        """The stream; when a read it needs fails on a database that is restarting, it ends
        with `reconnect` (and the `since` to resume from), and loses nothing."""
        try:
            with open_stream("game"):
                async for chunk in self._lines(since):
                    yield chunk
        except db_hop.DatabaseUnavailable:
            yield line(
                {"type": "reconnect", "since": self.sent_seq if self.sent_seq >= 0 else since}
            )

    async def _lines(self, since: int | None) -> AsyncIterator[bytes]:
        from tables.models import Table

        await self.listener.open()
        try:
            # Listen first, then read: an update sent between the two is not lost (it is
            # either covered by the read, or comes after it and is sent on).
            first = await db_hop.run(self._read, None)
            if first is None:
                yield line({"type": "end", "code": "no_such_table"})
                return
            await self._follow_seat()
            opened = await self._catch_up(since)
            assert opened is not None
            yield opened
            async for message in ticking(self.listener, self.still_allowed):
                if message == "keepalive":
                    yield b"\n"
                    continue
                if message == "reconnect":
                    yield line({"type": "reconnect", "since": self.sent_seq})
                    return
                if isinstance(message, str):  # end:<code>
                    yield line({"type": "end", "code": message.removeprefix("end:")})
                    return
                kind = message.get("type")
                if kind == "layer.resync":
                    seq = await db_hop.run(
                        lambda: (
                            Table.objects.filter(pk=self.table_id)
                            .values_list("seq", flat=True)
                            .first()
                        )
                    )
                    if seq is not None and seq > self.sent_seq:
                        caught = await self._catch_up(self.sent_seq)
                        if caught:
                            yield caught
                    continue
                if kind != "table.update":
                    continue  # watchers, chat: not on this stream
                seq = int(message["seq"])
                if seq <= self.sent_seq:
                    continue  # already covered
                picture = message.get("table")
                if picture is not None and picture.get("status") == Table.Status.OPEN:
                    mine = self._seat_in(picture)
                    if mine != self.seat:
                        self.seat = mine
                        await self._follow_seat()
                if seq == self.sent_seq + 1:
                    yield self._update(message)
                else:  # one overtook another, or some were lost: read what was missed
                    caught = await self._catch_up(self.sent_seq)
                    if caught:
                        yield caught
        finally:
            await self.listener.close()
