"""The base of every socket: only adults with an active account get in, and stay in.

`HouseConsumer` checks the user at connect: a refused socket is accepted and at once closed with
4001 (not logged in) or 4003 (the account may not play), so that the page learns why instead of
a bare failed handshake. It joins the user's own group, so that a change to the account (a
log-out, a new password, a suspension, a corrected date of birth) makes each of the user's
sockets check again and close when it may no longer act; and every action a subclass carries
out through `call` checks the account's generation first (dominoes_site/user_sockets.py). It
answers pings with the server time in epoch milliseconds (clients draw clocks from the server's
time, not their own), and checks every frame before any handler sees it: text only, at most
`MAX_FRAME_BYTES` bytes of UTF-8, JSON nested at most `MAX_DEPTH` deep with valid Unicode text,
an object with a string `type`. Once a socket is closing (closed by the house, or gone under
it) nothing more is read or sent on it. Each frame is noted with the moment it reached the server
(`received_at`: dominoes_site/arrival.py), for what depends on when a message arrived (a move
against the Gym clock).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from contextlib import nullcontext, suppress
from datetime import UTC, datetime
from typing import Any, ParamSpec, TypeGuard, TypeVar

import msgspec
from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY
from django.utils import translation
from django.utils.translation import gettext as _

from accounts.services import user_group_name
from dominoes_site import arrival, db_hop, user_sockets
from dominoes_site.metrics import HANDSHAKES_REJECTED, SOCKETS_OPEN
from dominoes_site.user_sockets import CLOSE_NOT_ALLOWED, CLOSE_NOT_LOGGED_IN, Refusal

try:  # what daphne's WebSocket protocol (autobahn) raises on a send to a socket that is closing
    from autobahn.exception import Disconnected

    SOCKET_GONE: tuple[type[Exception], ...] = (Disconnected,)
except ImportError:  # pragma: no cover - another ASGI server
    SOCKET_GONE = ()

CLOSE_ABUSE = 4008
#: Token bucket per socket (`RateLimitedConsumer`): a steady rate with a burst; the
#: ABUSE_STRIKES-th refusal on one socket closes it with CLOSE_ABUSE.
RATE_PER_SECOND = 10.0
BURST = 30.0
ABUSE_STRIKES = 50
#: The largest whole number a client may send: 2**53 - 1, the largest a JavaScript number
#: holds exactly (and far inside every database column).
MAX_WHOLE = 2**53 - 1
MAX_REQUEST_ID = 64
#: The largest frame the house reads, in bytes of UTF-8; larger ones are answered `too_large`
#: (up to daphne's own limit, `--websocket-max-message-size`, 1 MiB by default, past which
#: daphne drops the connection before the house sees the frame).
MAX_FRAME_BYTES = 4096
#: How deep a message's arrays and objects may nest (the top-level object is depth 1).
MAX_DEPTH = 32
_JSON = msgspec.json.Encoder()
_P = ParamSpec("_P")
_T = TypeVar("_T")


class AccountRefused(Exception):
    """The socket's account may no longer act: the socket closes (`refusal` says how and why)."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.message)
        self.refusal = refusal


def server_time() -> int:
    """The server's clock in epoch milliseconds, as every socket message carries it."""
    return int(time.time() * 1000)


class HouseConsumer(AsyncJsonWebsocketConsumer):  # type: ignore[misc]
    #: What this socket is, in the metrics (dominoes_sockets_open).
    kind = "other"
    #: Counted among the open sockets (until its disconnect).
    counted: bool = False
    user_group: str | None = None
    #: Set once the house closed this socket or found it gone: nothing more is read or sent.
    closed: bool = False
    #: The language of this socket's messages (None: the site's default).
    language: str | None = None
    #: The session the socket was opened with, and the account generation it last found in
    #: good standing (dominoes_site/user_sockets.py).
    session_key: str | None = None
    generation: str | None = None
    #: When the frame being handled reached the server (epoch seconds, the server's clock).
    received_at: float = 0.0

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.refuse(CLOSE_NOT_LOGGED_IN)
            return
        # Into the user's group before the check: any change from now on reaches this socket.
        self.user_group = user_group_name(user.pk)
        await self.channel_layer.group_add(self.user_group, self.channel_name)
        refusal = await db_hop.run(self._check_at_connect)
        if refusal is not None:
            await self.refuse(refusal.code)
            return
        code = await self.before_accept()
        if code is not None:
            await self.refuse(code)
            return
        await self.accept()
        SOCKETS_OPEN.labels(kind=self.kind).inc()
        self.counted = True
        await self.on_accepted()

    def _check_at_connect(self) -> Refusal | None:
        """The account's standing as the socket opens (in the database thread): the generation
        first, then the account read afresh against the session the handshake carried."""
        session = self.scope["session"]
        user_id = self.scope["user"].pk
        token = user_sockets.generation(user_id)
        data = {
            SESSION_KEY: session.get(SESSION_KEY),
            HASH_SESSION_KEY: session.get(HASH_SESSION_KEY),
        }
        self.session_key, user, refusal = user_sockets.standing_followed(
            user_id, session.session_key, data
        )
        if refusal is None:
            self.generation = token
            self.scope["user"] = user
        return refusal

    def check_standing(self, *, always: bool = False) -> None:
        """In the database thread: raise `AccountRefused` unless this socket's account may still
        act. Only a read of the account's generation when nothing changed (or `always`: a
        change was announced)."""
        user_id = self.scope["user"].pk
        if (
            not always
            and self.generation
            and user_sockets.generation_seen(user_id) == self.generation
        ):
            return
        token = user_sockets.generation(user_id)
        self.session_key, user, refusal = user_sockets.standing_followed(user_id, self.session_key)
        if refusal is not None:
            raise AccountRefused(refusal)
        self.generation = token
        self.scope["user"] = user

    async def call(self, fn: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
        """Carry out an action: `fn` in the database thread, once the account is found still in
        good standing, in the same hop. Raises `AccountRefused` (`receive` closes the socket)."""

        def checked() -> _T:
            if self.generation and getattr(fn, "checks_standing_itself", False):
                # The action compares the generation inside its own statement, or checks
                # first where it cannot (user_sockets.offer_guard, tables/warm.py).
                with user_sockets.offer_guard(
                    self.scope["user"].pk, self.generation, self.check_standing
                ):
                    return fn(*args, **kwargs)
            self.check_standing()
            return fn(*args, **kwargs)

        result: _T = await db_hop.run(checked)
        return result

    async def close_refused(self, refusal: Refusal) -> None:
        """Close the socket for good: a 4003 is told why first (a `suspended` message)."""
        if refusal.code == CLOSE_NOT_ALLOWED:
            await self.send_json({"type": "suspended", "message": refusal.message})
        await self.close(code=refusal.code)

    async def refuse(self, code: int) -> None:
        """Accept, then close with `code`: the page sees the code and can say why (a socket
        closed before it is accepted is only a failed handshake to a browser)."""
        HANDSHAKES_REJECTED.labels(code=str(code)).inc()
        await self.accept()
        await self.close(code=code)

    async def before_accept(self) -> int | None:
        """Hook for subclasses, before the socket opens: a close code refuses it."""
        return None

    async def on_accepted(self) -> None:
        """Hook for subclasses: the socket is open and the user may play."""

    async def on_frame(self) -> None:
        """Hook for subclasses: a frame arrived (any frame is a sign of life)."""

    async def admit(self, content: dict[str, Any] | None) -> bool:
        """Hook for subclasses (rate limits): False when the frame was refused and answered.
        `content` is the parsed message, or None when the frame itself was refused."""
        return True

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
        if self.counted:
            SOCKETS_OPEN.labels(kind=self.kind).dec()
            self.counted = False
        if self.user_group:
            await self.channel_layer.group_discard(self.user_group, self.channel_name)

    async def websocket_receive(self, message: dict[str, Any]) -> None:
        """A frame: noted when it reached the server (`received_at`, epoch seconds), before
        anything is done with it: daphne's stamp (dominoes_site/arrival.py), else now."""
        self.received_at = arrival.received_at(message)
        await super().websocket_receive(message)

    def arrived_at(self) -> datetime:
        """When the frame being handled reached the server (the server's clock)."""
        return datetime.fromtimestamp(self.received_at or time.time(), tz=UTC)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.closed:
            return  # closing: a frame that crossed the close is not read
        with translation.override(self.language) if self.language else nullcontext():
            with suppress(db_hop.DatabaseUnavailable):  # the action, if any, will say so
                await self.on_frame()
            content, refusal = parse_frame(text_data)
            if not await self.admit(content):
                return
            if refusal is not None:
                await self.send_error(*refusal)
                return
            assert content is not None
            try:
                await self.receive_json(content)
            except AccountRefused as exc:
                await self.close_refused(exc.refusal)
            except db_hop.DatabaseUnavailable:
                await self.send_error(
                    "unavailable",
                    _("The house cannot reach its records just now; nothing was done. "
                      "Try again in a moment."),
                    **_request_of(content),
                )  # fmt: skip

    async def receive_json(self, content: dict[str, Any], **kwargs: Any) -> None:
        if content["type"] == "ping":
            await self.send_json({"type": "pong", "server_time": server_time()})
            return
        await self.send_error(
            "unknown_type", _("Unknown message type %(type)r.") % {"type": content["type"][:40]}
        )

    @classmethod
    async def encode_json(cls, content: Any) -> str:
        """msgspec writes the same JSON as `json.dumps` (compact), several times faster."""
        return _JSON.encode(content).decode()

    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None:
        """Send, unless the socket is closing: a group message (a watcher count, an update) may
        reach a consumer between the close and its disconnect; daphne refuses to send then."""
        if self.closed:
            return
        try:
            await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
        except SOCKET_GONE:
            self.closed = True

    async def send_json(self, content: Any, close: bool = False) -> None:
        # channels' own goes around `send` above (it calls the class above it directly).
        await self.send(text_data=await self.encode_json(content), close=close)

    async def close(self, code: int | bool | None = None, reason: str | None = None) -> None:
        if self.closed:
            return
        self.closed = True
        with suppress(*SOCKET_GONE):
            await super().close(code=code, reason=reason)

    async def send_error(self, code: str, message: str, **extra: Any) -> None:
        await self.send_json({"type": "error", "code": code, "message": message, **extra})

    async def account_changed(self, event: dict[str, Any]) -> None:
        """Sent to the user's group when the account changed: check again, close if refused."""
        if self.closed or self.generation is None:
            return  # closing, or not yet open (the check at connect comes after the join)
        with translation.override(self.language) if self.language else nullcontext():
            try:
                await db_hop.run(self.check_standing, always=True)
            except AccountRefused as exc:
                await self.close_refused(exc.refusal)

    #: The name this message had before every change of the account was announced.
    account_suspended = account_changed

    async def layer_resync(self, message: dict[str, Any]) -> None:
        """This process's link to the other processes (Redis) was restored: messages sent to
        this socket meanwhile may be lost. Subclasses bring their page up to date; the account
        is checked again (the announcement of a change to it may have been among them): one
        small read of its generation, the full check only when that changed."""
        if self.closed or self.generation is None:
            return
        with translation.override(self.language) if self.language else nullcontext():
            try:
                await db_hop.run(self.check_standing)
            except AccountRefused as exc:
                await self.close_refused(exc.refusal)


class RateLimitedConsumer(HouseConsumer):
    """A socket under the house's rate limit (docs/protocol.md, "Limits"): a token bucket per
    socket, RATE_PER_SECOND with bursts up to BURST, on every frame, valid or not. A refused
    frame is answered `rate_limited` (naming its type and request_id when it had them) and not
    carried out; the ABUSE_STRIKES-th refusal closes the socket with CLOSE_ABUSE (4008)."""

    tokens: float | None = None
    refilled: float = 0.0
    strikes: int = 0

    def _take_token(self) -> bool:
        now = time.monotonic()
        if self.tokens is None:
            self.tokens, self.refilled = BURST, now
        self.tokens = min(BURST, self.tokens + (now - self.refilled) * RATE_PER_SECOND)
        self.refilled = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    async def admit(self, content: dict[str, Any] | None) -> bool:
        if self._take_token():
            return True
        self.strikes += 1
        if self.strikes >= ABUSE_STRIKES:
            await self.close(code=CLOSE_ABUSE)
            return False
        extra: dict[str, Any] = {}
        if content is not None:
            extra["request_type"] = content["type"][:40]
            request_id = content.get("request_id")
            if is_request_id(request_id):
                extra["request_id"] = request_id
        await self.send_error("rate_limited", _("Too many messages; wait a moment."), **extra)
        return False


def is_whole(value: object) -> TypeGuard[int]:
    """A whole number as the protocol takes one: a JSON integer from 0 to MAX_WHOLE (not a bool,
    a float or text)."""
    return type(value) is int and 0 <= value <= MAX_WHOLE


def is_request_id(value: object) -> bool:
    return type(value) is str and 1 <= len(value) <= MAX_REQUEST_ID


class HeartbeatConsumer(HouseConsumer):
    """`/ws/heartbeat/`: tells the page the server is there, and the server's time."""

    kind = "heartbeat"

    async def on_accepted(self) -> None:
        await self.send_json({"type": "hello", "server_time": server_time()})


def _request_of(content: dict[str, Any]) -> dict[str, Any]:
    """The message's request_id, to name in an answer, when it is a valid one."""
    request_id = content.get("request_id")
    return {"request_id": request_id} if is_request_id(request_id) else {}


def parse_frame(text_data: str | None) -> tuple[dict[str, Any] | None, tuple[str, str] | None]:
    """A frame's message, or the error that refuses it (code, words for the player)."""
    if text_data is None:
        return None, ("bad_frame", _("Only JSON text messages are understood."))
    if _too_large(text_data):
        return None, (
            "too_large",
            _("Messages are limited to %(n)d bytes.") % {"n": MAX_FRAME_BYTES},
        )
    try:
        content = json.loads(text_data, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return None, ("bad_json", _("That message is not valid JSON."))
    problem = _shape_problem(content)
    if problem is not None:
        return None, ("bad_json", problem)
    if not isinstance(content, dict) or not isinstance(content.get("type"), str):
        return None, ("bad_message", _("A message is a JSON object with a 'type'."))
    return content, None


def _too_large(text: str) -> bool:
    """Over MAX_FRAME_BYTES bytes of UTF-8 (the size on the wire, not the characters); encoded
    only when the count of characters cannot tell (a character is 1 to 4 bytes)."""
    if len(text) > MAX_FRAME_BYTES:
        return True
    if len(text) * 4 <= MAX_FRAME_BYTES:
        return False
    return len(text.encode("utf-8", "surrogatepass")) > MAX_FRAME_BYTES


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _shape_problem(value: Any) -> str | None:
    """Why a parsed message cannot be used, or None: nested deeper than MAX_DEPTH, or text that
    is not valid Unicode (a lone surrogate, which no reply could carry back)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if not _is_unicode(item):
                return _("That message holds text that is not valid Unicode.")
        elif isinstance(item, dict | list):
            if depth > MAX_DEPTH:
                return _("That message is nested too deeply.")
            if isinstance(item, dict):
                stack.extend((key, depth) for key in item)
                stack.extend((child, depth + 1) for child in item.values())
            else:
                stack.extend((child, depth + 1) for child in item)
    return None


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
