"""`/ws/tables/<id>/`: one socket per open table page. The protocol is docs/protocol.md.

The consumer parses and checks the shape of each message, then makes one service call (one short
transaction). It never decides a rule. It listens to exactly one group: its seat's when the user
sits at the table, the public one otherwise, so it can only ever receive what its user may see.

Nothing with an event number leaves before the socket's answer to `hello`: updates that arrive
first are held and, after the answer, only those it does not cover are sent, in order; watcher
counts and chat messages that arrive first are covered by the answer (it carries both). After
that, an update the socket has already been brought past is never sent again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _

from accounts.bots import api_only_words
from chat.models import Audience
from chat.services import ChatError, chat_recent, chat_report, chat_send
from dominoes_site import db_hop, draining, metrics
from dominoes_site.consumers import (
    MAX_REQUEST_ID,
    MAX_WHOLE,
    HouseConsumer,
    RateLimitedConsumer,
    is_request_id,
    is_whole,
    server_time,
)
from dominoes_site.metrics import MOVE_ACK
from tables import broadcast, presence, selectors, services, watching
from tables.models import Table

CLOSE_NO_TABLE = 4004
#: What a bot account's socket may not do: play (it plays through the API). Watching is fine.
BOT_REFUSED = frozenset(
    {"sit", "ready", "act", "wash", "claim", "abort", "rematch", "halve_clock", "summary_seen"}
)

#: Any message is a sign of life: the socket's presence is refreshed with it, at most this often.
PRESENCE_REFRESH_SECONDS = 15.0
#: Updates held until the answer to hello, at most (all of them are normally covered by it).
MAX_HELD = 256
#: How long an update that overtook the one before it waits for it (see `_forward`).
REORDER_WAIT_SECONDS = 1.0


class TableConsumer(RateLimitedConsumer):
    kind = "table"
    table_id: int
    seat: int | None = None
    seat_seq: int = 0  # the table's event number that `seat` was last learned at
    group: str | None = None
    is_host: bool = False
    present: bool = False
    #: This socket's own seat was reported gone while it is open (the sweep took it for gone):
    #: its next frame refreshes its presence whatever the throttle.
    maybe_swept: bool = False
    #: The first hello has been answered: updates may be sent.
    answered: bool = False
    #: The highest event number this socket has been brought to.
    sent_seq: int = -1
    #: Updates that arrived ahead of a missing number, by number, and the wait for it.
    early: dict[int, dict[str, Any]]
    reorder: asyncio.Future[None] | None = None

    async def before_accept(self) -> int | None:
        """Find the table before the socket opens (one read): a table that does not exist, or
        is private to someone without its code, is refused with 4004."""
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.language = _language(self.scope)
        self.held: list[dict[str, Any]] = []
        self.early = {}
        found = await db_hop.run(self._load)
        return None if found else CLOSE_NO_TABLE

    async def on_accepted(self) -> None:
        """Join the table's group and presence once the socket is open, before any frame of the
        client's is read: by the time its hello is answered, its own arrival is already an
        event. Not before the handshake: after a restart hundreds of sockets arrive at once, and
        their handshakes must not queue behind each other's presence writes (daphne refuses a
        handshake not accepted within its connect timeout)."""
        await self._join_group()
        await db_hop.run(
            presence.presence_join,
            table_id=self.table_id,
            user=self.scope["user"],
            channel_name=self.channel_name,
        )
        self.present = True
        self.refreshed_at = time.monotonic()

    def _load(self) -> bool:
        table = Table.objects.filter(pk=self.table_id).first()
        if table is None:
            return False
        user = self.scope["user"]
        game = selectors.live_game(table, only=("status", "players"))
        self.seat, self.seat_seq = selectors.seat_number(table, game, user.pk), table.seq
        self.is_host = table.host_id == user.pk
        if table.private and self.seat is None and not self.is_host:
            code = _query_value(self.scope, "code")
            if code != table.invite_code and not watching.private_watchable(table):
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
        # Into the new group before out of the old: never a moment in neither, when an update
        # would reach neither (one sent in the overlap comes twice, and the second is not sent
        # on: a repeated seq). Before the deal every audience's update is the same.
        await self.channel_layer.group_add(wanted, self.channel_name)
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)
        self.group = wanted

    async def disconnect(self, code: int) -> None:
        if self.reorder is not None:
            self.reorder.cancel()
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)
        if self.present:
            # 1000/1001: the page closed the socket itself (left or navigated away); anything
            # else is a lost connection, which gets the longer grace. A socket closed by its
            # server's drain (whatever code the client echoed) is coming back at once to another
            # server: its player stays online meanwhile.
            await db_hop.run(
                presence.presence_leave,
                channel_name=self.channel_name,
                on_purpose=code in (1000, 1001),
                drained=draining.active(),
            )
        await super().disconnect(code)

    # --- incoming -------------------------------------------------------------------------

    async def on_frame(self) -> None:
        """Any frame is a sign of life: refresh this socket's presence, at most once every
        PRESENCE_REFRESH_SECONDS (one small write, whatever the client sends), before the
        message is carried out. A socket the sweep took for gone (its row is not there to
        refresh) joins again, as a new socket does: the player is back before their message (a
        move, say) is carried out, and the opponent's claim is refused. The sweep only drops a
        row unseen for PRESENCE_STALE_SECONDS, far longer than the throttle, so the first frame
        after it always refreshes; and the sweep's `away` (or `online` false) for this socket's
        own seat, arriving here, makes the next frame refresh whatever the throttle says."""
        if not self.present:
            return
        now = time.monotonic()
        if now - self.refreshed_at < PRESENCE_REFRESH_SECONDS and not self.maybe_swept:
            return
        self.refreshed_at = now
        self.maybe_swept = False
        await db_hop.run(
            presence.presence_refresh,
            table_id=self.table_id,
            user=self.scope["user"],
            channel_name=self.channel_name,
        )

    async def receive_json(self, content: dict[str, Any], **kwargs: Any) -> None:
        kind = content["type"]
        handler = self.HANDLERS.get(kind)
        request_id: str | None = None
        try:
            request_id = _request_id(content)
            if handler is None:
                raise services.TableError(
                    "unknown_type", _("Unknown message type %(type)r.") % {"type": kind[:40]}
                )
            if kind in BOT_REFUSED and getattr(self.scope["user"], "bot", False):
                # A bot account plays only through the API (docs/api.md); it may watch here.
                raise services.TableError("bot_api_only", api_only_words())
            await handler(self, content)
        except (services.TableError, ChatError) as exc:
            extra = dict(exc.extra)
            if request_id is not None:
                extra["request_id"] = request_id
            await self.send_error(exc.code, exc.message, **extra)

    async def on_hello(self, content: dict[str, Any]) -> None:
        last = content.get("last_seq")
        if last is not None:
            last = _whole(content, "last_seq", _("last_seq is a whole number or null."))
        log = content.get("log", False)
        if type(log) is not bool:
            raise services.TableError("bad_field", _("log is true or false."), field="log")
        reply = await self.call(self._catch_up, last, log)
        if reply is None:
            await self.close(code=CLOSE_NO_TABLE)
            return
        await self._join_group()  # the seat may have changed since the socket opened
        await self.send_json(reply)
        self.sent_seq = max(self.sent_seq, reply["seq"])
        self.answered = True
        held, self.held = self.held, []
        for message in held:
            await self._forward(message)
        await self._send_early(give_up=False)

    def _catch_up(self, last: int | None, log: bool = False) -> dict[str, Any] | None:
        # Read under the table's row lock: every change takes it to raise the event number, so
        # the picture, the game and the number all show the same moment.
        with transaction.atomic():
            reply = self._read_answer(last)
            if reply is not None and log:  # the recent moves, for a page with none drawn
                reply["log"] = selectors.events_recent(self.table_id, reply["seq"], self.seat)
            return reply

    def _read_answer(self, last: int | None) -> dict[str, Any] | None:
        table = Table.objects.select_for_update().filter(pk=self.table_id).first()
        if table is None:
            return None
        user_id = self.scope["user"].pk
        game = selectors.live_game(table)
        picture = broadcast.picture_at(table, game)
        self.seat = selectors.seat_number(table, game, user_id, picture)
        self.seat_seq = table.seq
        reply: dict[str, Any] = {
            "type": "snapshot",
            "seq": table.seq,
            "table": self._with_you(picture),
            "game": selectors.game_view(game, self.seat),
        }
        if last is not None:
            missed = selectors.events_since(table, last, self.seat)
            if missed is not None:
                reply["type"] = "resume"
                reply["events"] = missed
        players = presence.game_players(game) | selectors.seated_users(picture)
        reply["watchers"] = presence.watchers(table.pk, players)
        # Players: seated, or in the table's last game (`chat.services.audience_of`).
        audience = Audience.SPECTATORS if self.seat is None else Audience.PLAYERS
        reply["chat"] = chat_recent(table_id=self.table_id, user_id=user_id, audience=audience)
        reply["server_time"] = server_time()
        return reply

    async def on_sit(self, content: dict[str, Any]) -> None:
        number = _whole(content, "seat")
        user = self.scope["user"]
        table = await self.call(
            services.seat_take, table_id=self.table_id, user=user, number=number
        )
        await self._seat_changed(number, table.seq)

    async def on_stand(self, content: dict[str, Any]) -> None:
        table = await self.call(
            services.seat_leave, table_id=self.table_id, user=self.scope["user"]
        )
        await self._seat_changed(None, table.seq)

    async def _seat_changed(self, seat: int | None, seq: int) -> None:
        """This socket's own sit or stand (the table at event `seq`): into the new seat's group
        now, before its next frame is read. Waiting for the update to say so (as for a seat
        changed by someone else) let the next action's update (a `ready` that starts the game)
        go to the old group first, and this socket missed it."""
        if seq >= self.seat_seq:
            self.seat, self.seat_seq = seat, seq
        await self._join_group()

    async def on_ready(self, content: dict[str, Any]) -> None:
        ready = _flag(content, "ready", _("ready is true or false."))
        await self.call(
            services.seat_ready, table_id=self.table_id, user=self.scope["user"], ready=ready
        )

    async def on_remove(self, content: dict[str, Any]) -> None:
        number = _whole(content, "seat")
        await self.call(
            services.seat_remove, table_id=self.table_id, host=self.scope["user"], number=number
        )

    async def on_wash(self, content: dict[str, Any]) -> None:
        hand = _whole(content, "hand")
        await self.call(
            services.hand_wash,
            table_id=self.table_id,
            user=self.scope["user"],
            hand=hand,
            entropy=content.get("entropy"),
        )

    async def on_summary_seen(self, content: dict[str, Any]) -> None:
        hand = _whole(content, "hand")
        await self.call(
            services.summary_seen, table_id=self.table_id, user=self.scope["user"], hand=hand
        )

    async def on_halve_clock(self, content: dict[str, Any]) -> None:
        await self.call(
            services.seat_clock_halve_asked, table_id=self.table_id, user=self.scope["user"]
        )

    async def on_act(self, content: dict[str, Any]) -> None:
        with metrics.timed(MOVE_ACK, since=self.received_at or None):
            await self._act(content)

    async def _act(self, content: dict[str, Any]) -> None:
        version = _whole(content, "version", _("The move must name the game version."))
        result = await self.call(
            services.game_act,
            table_id=self.table_id,
            user=self.scope["user"],
            version=version,
            action=content.get("action"),
            # The clock judges the move by when its frame reached the server, not by when
            # this socket got to it (after the database work of the frames before it).
            arrived_at=self.arrived_at(),
        )
        await self.send_json(
            {"type": "ack", "request_id": _request_id(content), "version": result.version}
        )

    async def on_ping(self, content: dict[str, Any]) -> None:
        await self.send_json({"type": "pong", "server_time": server_time()})

    async def on_claim(self, content: dict[str, Any]) -> None:
        await self.call(presence.game_claim, table_id=self.table_id, user=self.scope["user"])

    async def on_abort(self, content: dict[str, Any]) -> None:
        await self.call(services.game_abort, table_id=self.table_id, user=self.scope["user"])

    async def on_rematch(self, content: dict[str, Any]) -> None:
        want = _flag(content, "want", _("want is true or false."))
        await self.call(
            services.rematch_offer, table_id=self.table_id, user=self.scope["user"], want=want
        )

    async def on_chat(self, content: dict[str, Any]) -> None:
        kinds = [name for name in ("text", "quick", "emote") if name in content]
        if len(kinds) != 1:
            raise services.TableError(
                "bad_field",
                _("A chat message has exactly one of text, quick or emote."),
                field="text",
            )
        if type(content[kinds[0]]) is not str:
            raise services.TableError(
                "bad_field", _("%(field)s is text.") % {"field": kinds[0]}, field=kinds[0]
            )
        await self.call(chat_send, table_id=self.table_id, user=self.scope["user"], content=content)

    async def on_report(self, content: dict[str, Any]) -> None:
        reported = _whole(content, "user", _("Name the player to report."))
        reason = content.get("reason")
        if reason is not None and type(reason) is not str:
            raise services.TableError(
                "bad_field", _("%(field)s is text.") % {"field": "reason"}, field="reason"
            )
        await self.call(
            chat_report,
            table_id=self.table_id,
            reporter=self.scope["user"],
            reported_id=reported,
            reason=reason,
        )
        await self.send_json({"type": "reported", "request_id": _request_id(content)})

    #: Each message type's handler, called as handler(consumer, content); other apps add theirs
    #: with `add_handler` (below).
    HANDLERS: dict[str, Callable[[Any, dict[str, Any]], Awaitable[None]]] = {
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
        "summary_seen": on_summary_seen,
        "halve_clock": on_halve_clock,
    }

    # --- outgoing -------------------------------------------------------------------------

    def _with_you(self, picture: dict[str, Any]) -> dict[str, Any]:
        return {**picture, "you": {"seat": self.seat, "host": self.is_host}}

    async def table_update(self, message: dict[str, Any]) -> None:
        if self.present and self.seat is not None and _reported_gone(message, self.seat):
            self.maybe_swept = True
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
            if mine != self.seat and message["seq"] > self.seat_seq:
                # Before the deal every audience sees the same; a repeated seq is not sent.
                # (An update older than what placed this socket, from before its own sit or
                # stand, does not move it back.)
                self.seat, self.seat_seq = mine, message["seq"]
                await self._join_group()
        if not self.answered:
            self.held.append(message)
            del self.held[:-MAX_HELD]
            return
        await self._forward(message)

    async def _forward(self, message: dict[str, Any]) -> None:
        """Send an update unless this socket has already been brought to its number, in the
        order of the numbers.

        Changes at one table may be made by different processes (two daphnes, a worker), each
        sending its update after its own commit, so one can overtake the one before it. An
        update that arrives ahead of a missing number waits here, up to REORDER_WAIT_SECONDS,
        for the missing one; then whatever waited is sent in order, and a number still missing
        is the client's gap to resume from (docs/protocol.md).
        """
        seq = message["seq"]
        if seq <= self.sent_seq:
            return
        if seq > self.sent_seq + 1:
            self.early[seq] = message
            if len(self.early) > MAX_HELD:
                await self._send_early(give_up=True)
            elif self.reorder is None:
                self.reorder = asyncio.ensure_future(self._wait_for_missing())
            return
        await self._send_update(message)
        await self._send_early(give_up=False)

    async def _send_early(self, *, give_up: bool) -> None:
        """Send the waiting updates that now follow on (all of them when giving up)."""
        for seq in sorted(self.early):
            if seq <= self.sent_seq:
                self.early.pop(seq, None)
            elif seq == self.sent_seq + 1 or give_up:
                message = self.early.pop(seq, None)  # (another sender may have taken it)
                if message is not None:
                    await self._send_update(message)
            else:
                break
        if not self.early and self.reorder is not None:
            if self.reorder is not asyncio.current_task():
                self.reorder.cancel()
            self.reorder = None

    async def _wait_for_missing(self) -> None:
        await asyncio.sleep(REORDER_WAIT_SECONDS)
        if not self.closed:
            await self._send_early(give_up=True)

    async def _send_update(self, message: dict[str, Any]) -> None:
        update = {"type": "update", "seq": message["seq"], "events": message["events"]}
        if message["table"] is not None:
            update["table"] = self._with_you(message["table"])
        update["game"] = message["game"]
        update["server_time"] = server_time()
        self.sent_seq = message["seq"]
        await self.send_json(update)

    async def layer_resync(self, message: dict[str, Any]) -> None:
        """Messages to this socket may have been lost (dominoes_site/channel_layer.py): if the
        table moved past what this socket was brought to, it gets a `resume` unasked, exactly
        as if its page had sent `hello` with that number (one small read when nothing moved)."""
        await super().layer_resync(message)
        if self.closed or not self.answered:
            return  # not answered yet: its answer to hello brings everything
        seq = await db_hop.run(self._table_seq)
        if seq is None or seq <= self.sent_seq:
            return
        reply = await self.call(self._catch_up, self.sent_seq)
        if reply is None:
            await self.close(code=CLOSE_NO_TABLE)
            return
        await self._join_group()
        await self.send_json(reply)
        self.sent_seq = max(self.sent_seq, reply["seq"])
        await self._send_early(give_up=False)

    def _table_seq(self) -> int | None:
        return Table.objects.filter(pk=self.table_id).values_list("seq", flat=True).first()

    async def table_watchers(self, message: dict[str, Any]) -> None:
        if self.answered:  # before it, the answer to hello carries the count
            await self.send_json({"type": "watchers", "watchers": message["watchers"]})

    async def chat_message(self, message: dict[str, Any]) -> None:
        if self.answered:  # before it, the answer to hello carries the latest messages
            await self.send_json({"type": "chat", "message": message["message"]})


def _reported_gone(message: dict[str, Any], seat: int) -> bool:
    """Whether an update says `seat` has no socket at the table any more (`away`, or `online`
    false): heard by an open socket of that seat, the sweep took it for gone."""
    for event in message.get("events") or ():
        if event.get("seat") != seat:
            continue
        kind = event.get("type")
        if kind == "away" or (kind == "online" and event.get("online") is False):
            return True
    return False


def _language(scope: dict[str, Any]) -> str:
    """The page's language: the switcher's cookie, else the account's, else English."""
    chosen = scope.get("cookies", {}).get(settings.LANGUAGE_COOKIE_NAME)
    user = scope.get("user")
    for language in (chosen, getattr(user, "language", None)):
        if language in dict(settings.LANGUAGES):
            return str(language)
    return settings.LANGUAGE_CODE


def add_handler(kind: str, handler: Callable[[Any, dict[str, Any]], Awaitable[None]]) -> None:
    """Let another app answer a message type on the table socket: `await handler(consumer,
    content)`, with the consumer's `call` (a service in one database hop, its refusals sent
    back as errors) and `whole_field`. Registered from the app's AppConfig.ready() (the house:
    `house_sit`, `house_remove`), so tables imports none of the apps that add to it."""
    held = TableConsumer.HANDLERS.get(kind)
    if held is not None and held is not handler:
        same = getattr(held, "__qualname__", None) == getattr(handler, "__qualname__", "")
        if not same:
            raise ValueError(f"the table socket already answers {kind!r} with {held!r}")
    TableConsumer.HANDLERS[kind] = handler


def whole_field(content: dict[str, Any], name: str, message: str | None = None) -> int:
    """A whole-number field of a message (as the table socket reads its own): a JSON integer
    from 0 to MAX_WHOLE; otherwise a `bad_field` refusal naming it."""
    return _whole(content, name, message)


def _whole(content: dict[str, Any], name: str, message: str | None = None) -> int:
    """A whole-number field: a JSON integer from 0 to MAX_WHOLE (not a bool, float or text)."""
    value = content.get(name)
    if not is_whole(value):
        raise services.TableError(
            "bad_field",
            message
            or _("%(field)s must be a whole number from 0 to %(max)d.")
            % {"field": name, "max": MAX_WHOLE},
            field=name,
        )
    return value


def _flag(content: dict[str, Any], name: str, message: str) -> bool:
    """A required true/false field."""
    value = content.get(name)
    if type(value) is not bool:
        raise services.TableError("bad_field", message, field=name)
    return value


def _request_id(content: dict[str, Any]) -> str | None:
    """The message's request_id (None when it has none); one that is present must be a string
    of 1 to 64 characters, or the message is refused and nothing is done."""
    if "request_id" not in content:
        return None
    value = content["request_id"]
    if not is_request_id(value):
        raise services.TableError(
            "bad_field",
            _("request_id is text of 1 to %(n)d characters.") % {"n": MAX_REQUEST_ID},
            field="request_id",
        )
    return str(value)


def _query_value(scope: dict[str, Any], name: str) -> str | None:
    values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get(name)
    return values[0] if values else None


class LobbyConsumer(HouseConsumer):
    """`/ws/lobby/`: tells the lobby page that a public table changed."""

    kind = "lobby"

    async def on_accepted(self) -> None:
        await self.channel_layer.group_add(broadcast.LOBBY_GROUP, self.channel_name)

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(broadcast.LOBBY_GROUP, self.channel_name)
        await super().disconnect(code)

    async def layer_resync(self, message: dict[str, Any]) -> None:
        """Lobby changes may have been lost: the page fetches its list again."""
        await super().layer_resync(message)
        await self.send_json({"type": "resync"})

    async def lobby_table(self, message: dict[str, Any]) -> None:
        await self.send_json({"type": "table", "table": message["table"]})

    async def lobby_watchers(self, message: dict[str, Any]) -> None:
        await self.send_json({"type": "watchers", "tables": message["tables"]})
