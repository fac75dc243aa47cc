"""A table client written from docs/protocol.md alone: no import from the server's code.

It speaks JSON over the `websockets` library, follows the document's rules (hello with the last
`seq` drawn, ignore numbers not higher than it, resume on a gap, act against `game.version`, wash
each commitment once) and checks every message it gets against what the document says: the
shapes and types of every message, table picture, game view and event; the ordering guarantees
on one socket; and that no bone it may not see (another seat's hand, the yard) ever reaches it.
Any disagreement raises `Disagreement`.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import time
from collections.abc import Callable
from typing import Any

import websockets

BONE = re.compile(r"^\d-\d$")
HEX64 = re.compile(r"^[0-9a-f]{64}$")


class Disagreement(AssertionError):
    """The server did something docs/protocol.md does not say."""


def expect(condition: object, what: str) -> None:
    if not condition:
        raise Disagreement(what)


# --- the shapes, as the document lists them ---------------------------------------------------

INT = int
MESSAGES: dict[str, tuple[set[str], set[str]]] = {  # type: (required fields, optional fields)
    "snapshot": ({"seq", "table", "game", "watchers", "chat", "server_time"}, {"log"}),
    "resume": ({"seq", "events", "table", "game", "watchers", "chat", "server_time"}, {"log"}),
    "update": ({"seq", "events", "game", "server_time"}, {"table"}),
    "ack": ({"request_id", "version"}, set()),
    "error": (
        {"code", "message"},
        {"request_id", "field", "version", "until", "request_type", "seat"},
    ),
    "pong": ({"server_time"}, set()),
    "chat": ({"message"}, set()),
    "watchers": ({"watchers"}, set()),
    "reported": ({"request_id"}, set()),
    "suspended": ({"message"}, set()),
}
PICTURE = {
    "id",
    "mode",
    "title",
    "status",
    "host",
    "private",
    "settings",
    "seats",
    "on_leave",
    "clock_halving",
    "commitment",
    "game_number",
    "game_url",
    "settlement",
    "rating",
    "rating_changes",
    "you",
}
POOLS = ("allfives-1v1", "allfives-cutthroat", "allfives-partners", "fives", "threes")
SEAT = {"number", "player", "ready", "online", "grace_until", "left_on_purpose", "rematch"}
PUBLIC_VIEW = {
    "v",
    "settings",
    "rules",
    "phase",
    "deal",
    "to_act",
    "forced_pass",
    "scores",
    "on_board",
    "dumbbells",
    "turn_dumbbells",
    "hand_sizes",
    "yard",
    "rock",
    "wash",
    "last_play",
    "game",
    "history",
    "board",
    "version",
    "clock",
}
SEAT_VIEW = PUBLIC_VIEW | {"seat", "side", "hand", "legal_actions"}
PHASES = {"awaiting_deal", "choosing_doubles", "playing", "game_over"}
#: Engine events: (public fields, optional public fields, private fields for their own seat).
ENGINE_EVENTS: dict[str, tuple[set[str], set[str], set[str]]] = {
    "wash": ({"seats", "reason", "rock"}, set(), set()),
    "dealt": ({"deal", "hand_sizes", "yard"}, set(), {"hand"}),
    "doubles_to_choose": ({"seat"}, set(), {"doubles"}),
    "doubles_chosen": ({"seat", "choice", "bonus"}, set(), set()),
    "lead": ({"seat", "reason"}, set(), {"bone"}),
    "bone_played": ({"seat", "bone", "end", "count", "points", "on_board_now"}, {"left"}, set()),
    "drew": ({"seat", "position", "yard"}, set(), {"bone"}),
    "passed": ({"seat"}, set(), set()),
    "scored": ({"side", "points", "reason", "score"}, set(), set()),
    "bonus": ({"seat", "side", "points"}, set(), set()),
    "dumbbell": ({"seat", "in_turn", "in_game"}, set(), set()),
    "hand_over": ({"result", "seat", "side", "pips", "rounded", "points", "hands"}, set(), set()),
    "game_over": (
        {"winner", "skunked", "forfeit", "reason", "scores", "workouts", "hands"},
        set(),
        set(),
    ),
}
TABLE_EVENTS: dict[str, list[set[str]]] = {  # type: the field sets it may have
    "table_created": [set()],
    "seat_taken": [{"seat", "player"}],
    "seat_left": [{"seat"}],
    "removed": [{"seat"}, {"seat", "reason"}],
    "ready": [{"seat", "ready"}],
    "game_started": [{"game"}],
    "online": [{"seat", "online"}],
    "away": [{"seat", "on_purpose", "grace_until"}],
    "back": [{"seat"}],
    "rematch": [{"seat", "want"}],
    "game_aborted": [{"seat"}, {"reason"}],
    "game_voided": [set()],
    "table_closed": [set(), {"reason"}],
    "hand_board": [{"board"}],
    "clock_started": [set()],
    "clock_halved": [{"seat", "seconds"}],
}
#: Where an engine event's private part is: the seat it belongs to is its `seat` field, except a
#: deal's hand, which each seated player gets for its own seat.
REVEALING = {"hand_over", "game_over"}


def is_int(value: object) -> bool:
    return type(value) is int


def is_epoch_ms(value: object) -> bool:
    """Epoch milliseconds: an integer, within a day of this machine's clock."""
    return is_int(value) and abs(int(value) - time.time() * 1000) < 86_400_000  # type: ignore[call-overload]


def check_keys(value: object, required: set[str], optional: set[str], what: str) -> None:
    expect(isinstance(value, dict), f"{what} is an object, not {value!r}")
    assert isinstance(value, dict)
    keys = set(value)
    expect(required <= keys, f"{what} lacks {sorted(required - keys)}: {value}")
    expect(
        keys <= required | optional, f"{what} has undocumented {sorted(keys - required - optional)}"
    )


def check_picture(table: object) -> None:
    check_keys(table, PICTURE, set(), "table")
    assert isinstance(table, dict)
    expect(is_int(table["id"]) and is_int(table["host"]), "table id and host are ints")
    expect(isinstance(table["mode"], str) and isinstance(table["title"], str), "mode, title")
    expect(table["status"] in ("open", "playing", "finished", "aborted"), "table status")
    expect(type(table["private"]) is bool and isinstance(table["settings"], dict), "private")
    expect(table["on_leave"] in ("wait", "forfeit"), "on_leave")
    expect(type(table["clock_halving"]) is bool, "clock_halving is true or false")
    expect(table["game_number"] is None or is_int(table["game_number"]), "game_number")
    url = table["game_url"]
    expect(url is None or (isinstance(url, str) and url.startswith("/games/")), f"game_url {url}")
    commitment = table["commitment"]
    if commitment is not None:
        check_keys(commitment, {"hand", "sha256"}, set(), "commitment")
        expect(is_int(commitment["hand"]) and HEX64.match(commitment["sha256"]), "commitment")
    check_keys(table["you"], {"seat", "host"}, set(), "you")
    expect(table["you"]["seat"] is None or is_int(table["you"]["seat"]), "you.seat")
    expect(type(table["you"]["host"]) is bool, "you.host")
    expect(isinstance(table["seats"], list) and table["seats"], "seats")
    for number, seat in enumerate(table["seats"]):
        check_keys(seat, SEAT, set(), "seat")
        expect(seat["number"] == number, "seats are listed by number")
        for flag in ("ready", "online", "left_on_purpose", "rematch"):
            expect(type(seat[flag]) is bool, f"seat {flag} is a bool")
        expect(seat["grace_until"] is None or is_epoch_ms(seat["grace_until"]), "grace_until")
        player = seat["player"]
        if player is not None:
            check_keys(player, {"id", "name", "house", "bot"}, {"rating"}, "player")
            expect(is_int(player["id"]) and isinstance(player["name"], str), "player id, name")
            expect(type(player["bot"]) is bool, "player bot is a bool")
            expect(player["house"] in (None, "rookie", "regular", "shark"), "player house")
            if "rating" in player:
                check_keys(player["rating"], {"rating", "provisional"}, set(), "player rating")
                expect(is_int(player["rating"]["rating"]), "a rating is a whole number")
                expect(type(player["rating"]["provisional"]) is bool, "provisional")
    check_keys(table["rating"], {"pool", "rated"}, set(), "rating")
    expect(table["rating"]["pool"] in POOLS and type(table["rating"]["rated"]) is bool, "pool")
    changes = table["rating_changes"]
    if changes is not None:
        check_keys(changes, {"pool", "rated", "why_not", "seats"}, set(), "rating_changes")
        expect(changes["why_not"] in ("", "casual", "house", "farming", "no_result"), "why_not")
        for change in changes["seats"]:
            if change is not None:
                check_keys(change, {"before", "after", "delta", "provisional"}, set(), "change")
                expect(change["delta"] == change["after"] - change["before"], "delta")


def check_view(game: object, seat: int | None) -> None:
    if game is None:
        return
    check_keys(game, PUBLIC_VIEW if seat is None else SEAT_VIEW, set(), "game")
    assert isinstance(game, dict)
    expect(game["phase"] in PHASES, f"phase {game['phase']}")
    expect(is_int(game["version"]) and is_int(game["yard"]), "version and yard are ints")
    expect(game["to_act"] is None or is_int(game["to_act"]), "to_act")
    expect(all(is_int(n) for n in game["hand_sizes"]), "hand_sizes are counts")
    expect(all(is_int(n) for n in game["scores"]), "scores")
    check_keys(game["wash"], {"seats", "reason"}, set(), "wash")
    check_keys(game["board"], {"lead", "spinner", "arms", "ends", "total", "size"}, set(), "board")
    expect(isinstance(game["history"], list), "history")
    if game["clock"] is not None:
        clock = game["clock"]
        check_keys(clock, {"seconds", "deadline", "starts", "grace_ms", "seats"}, set(), "clock")
        expect(isinstance(clock["seats"], dict), "clock seats is an object")
        for number, seconds in clock["seats"].items():
            expect(number.isdigit() and is_int(seconds), f"a seat's own clock {number}: {seconds}")
    if game["game"] is not None:
        check_keys(
            game["game"], {"winner", "skunked", "forfeit", "reason", "workouts"}, set(), "result"
        )
    if seat is not None:
        expect(game["seat"] == seat, "a seat's view is its own")
        expect(all(BONE.match(b) for b in game["hand"]), "hand holds bones")
        expect(len(game["hand"]) == game["hand_sizes"][seat], "hand size")
        expect(isinstance(game["legal_actions"], list), "legal_actions")
        if game["to_act"] != seat:
            expect(game["legal_actions"] == [], "legal actions only on your turn")


def check_event(event: object, seat: int | None) -> None:
    expect(isinstance(event, dict) and isinstance(event.get("type"), str), f"event {event!r}")
    assert isinstance(event, dict)
    kind = event["type"]
    fields = set(event) - {"type"}
    if kind in ENGINE_EVENTS:
        public, optional, private = ENGINE_EVENTS[kind]
        owner = event.get("seat")
        mine = seat is not None and (kind == "dealt" or owner == seat)
        allowed = public | optional | (private if mine else set())
        expect(public <= fields <= allowed, f"{kind} event fields {sorted(fields)}")
        if kind == "dealt" and seat is not None:
            expect("hand" in fields, "a seated player's dealt event holds its hand")
    elif kind in TABLE_EVENTS:
        expect(fields in TABLE_EVENTS[kind], f"{kind} event fields {sorted(fields)}")
    else:
        raise Disagreement(f"undocumented event {kind}")


def bones_in(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value} if BONE.match(value) else set()
    if isinstance(value, dict):
        return set().union(*(bones_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(bones_in(v) for v in value)) if value else set()
    return set()


def hidden_bones(
    message: dict[str, Any], events: list[dict[str, Any]], seat: int | None
) -> set[str]:
    """Bones in a message this connection may not see. Seen may be: its own hand and legal
    actions, what is on the board (or the finished hand's board, `hand_board`) or in the hand's
    history or the last play, bones played,
    its own draws, deal, doubles and forced lead, and every hand once the hand is over."""
    game = message.get("game") or {}
    allowed = bones_in(game.get("board")) | bones_in(game.get("history"))
    allowed |= bones_in(game.get("last_play"))
    if seat is not None:
        allowed |= bones_in(game.get("hand")) | bones_in(game.get("legal_actions"))
    for event in events:
        public = event["type"] in REVEALING or event["type"] in ("bone_played", "hand_board")
        own = seat is not None and (event["type"] == "dealt" or event.get("seat") == seat)
        if public or own:
            allowed |= bones_in(event)
    seen = bones_in({k: v for k, v in message.items() if k not in ("events", "chat")})
    seen |= bones_in(events)
    return seen - allowed


# --- the client ---------------------------------------------------------------------------------


#: docs/protocol.md, "Limits": 10 messages a second, bursts up to 30; this client keeps under.
LIMIT_PER_SECOND = 9.0
LIMIT_BURST = 28


class DocClient:
    """One page's connection to one table, as docs/protocol.md describes it."""

    def __init__(self, url: str, cookie: str, origin: str, label: str) -> None:
        self.url, self.cookie, self.origin, self.label = url, cookie, origin, label
        self.socket: Any = None
        self.last_seq: int | None = None  # the highest seq drawn (kept across reconnects)
        self.table: dict[str, Any] | None = None
        self.game: dict[str, Any] | None = None
        self.watchers = 0
        self.chat: dict[int, dict[str, Any]] = {}
        self.answered = False  # this connection's first hello has been answered
        self.conn_seq: int | None = None  # the highest seq sent on this connection
        self.awaiting_answer = False
        self.washed: set[tuple[int | None, int]] = set()
        self.requests = 0
        self.answers: list[dict[str, Any]] = []  # every snapshot and resume, for the tests
        self.errors: list[dict[str, Any]] = []  # errors nobody was waiting for
        # The documented limit (10 messages a second, bursts up to 30), kept on this side a
        # little under the server's, so that clocks that differ never make it refuse one.
        self.tokens = float(LIMIT_BURST)
        self.refilled = time.monotonic()
        self.lose_next_update = False  # pretend the next update went missing on the way
        self.gaps = 0
        self.resume_due = False  # a gap was seen: say hello with the last seq drawn

    @property
    def seat(self) -> int | None:
        return None if self.table is None else self.table["you"]["seat"]

    async def open(self) -> None:
        self.socket = await websockets.connect(
            self.url,
            additional_headers={"Cookie": self.cookie, "Origin": self.origin},
            compression=None,
            max_size=2**22,
        )
        self.answered, self.conn_seq, self.awaiting_answer = False, None, False

    async def close(self) -> None:
        await self.socket.close()

    async def send(self, message: dict[str, Any]) -> None:
        """Send one message, within the documented rate: when the burst is spent, wait for it."""
        now = time.monotonic()
        self.tokens = min(LIMIT_BURST, self.tokens + (now - self.refilled) * LIMIT_PER_SECOND)
        self.refilled = now
        if self.tokens < 1:
            await asyncio.sleep((1 - self.tokens) / LIMIT_PER_SECOND)
            self.tokens, self.refilled = 1.0, time.monotonic()
        self.tokens -= 1
        await self.socket.send(json.dumps(message))

    def request_id(self, prefix: str) -> str:
        self.requests += 1
        return f"{prefix}{self.requests}-{self.label}"[:64]

    async def hello(self, last_seq: int | str | None = "last") -> dict[str, Any]:
        """Say hello (by default with the last seq drawn) and draw the answer."""
        last = self.last_seq if last_seq == "last" else last_seq
        await self.send({"type": "hello", "last_seq": last})
        self.awaiting_answer = True
        while True:
            message = await self.read()
            if message["type"] in ("snapshot", "resume"):
                return message

    async def read(self, timeout: float = 30) -> dict[str, Any]:
        """Read one message, check it against the document and draw it."""
        raw = await asyncio.wait_for(self.socket.recv(), timeout=timeout)
        expect(isinstance(raw, str), "the server sends text frames")
        message = json.loads(raw)
        kind = message.get("type")
        expect(kind in MESSAGES, f"undocumented message {kind}")
        required, optional = MESSAGES[kind]
        check_keys(message, required | {"type"}, optional, kind)
        if "server_time" in message:
            expect(is_epoch_ms(message["server_time"]), f"{kind}.server_time is epoch ms")
        if kind in ("update", "watchers", "chat"):
            expect(self.answered, f"a {kind} came before the answer to hello")
        getattr(self, f"on_{kind}")(message)
        if self.resume_due:
            self.resume_due = False
            await self.send({"type": "hello", "last_seq": self.last_seq})
        return message

    async def until(self, done: Callable[[], bool], timeout: float = 30) -> None:
        deadline = asyncio.get_running_loop().time() + timeout
        while not done():
            left = deadline - asyncio.get_running_loop().time()
            expect(left > 0, f"{self.label}: waited {timeout} s in vain")
            await self.read(timeout=left)

    # -- drawing ---------------------------------------------------------------------------

    def on_snapshot(self, message: dict[str, Any]) -> None:
        self.answer(message, [])

    def on_resume(self, message: dict[str, Any]) -> None:
        batches = message["events"]
        expect(self.last_seq is not None, "a resume answers a hello with a last_seq")
        numbers = [batch["seq"] for batch in batches]
        assert self.last_seq is not None
        expect(
            numbers == list(range(self.last_seq + 1, message["seq"] + 1)),
            f"a resume brings every batch after {self.last_seq}: {numbers}",
        )
        events = []
        for batch in batches:
            check_keys(batch, {"seq", "events"}, set(), "resume batch")
            events += batch["events"]
        self.answer(message, events)

    def answer(self, message: dict[str, Any], events: list[dict[str, Any]]) -> None:
        check_picture(message["table"])
        seat = message["table"]["you"]["seat"]
        check_view(message["game"], seat)
        for event in events:
            check_event(event, seat)
        leaked = hidden_bones(message, events, seat)
        expect(not leaked, f"{self.label} was sent hidden bones {sorted(leaked)}")
        expect(is_int(message["watchers"]) and isinstance(message["chat"], list), "answer extras")
        expect(self.conn_seq is None or message["seq"] >= self.conn_seq, "an answer steps back")
        self.answered, self.awaiting_answer = True, False
        self.conn_seq = message["seq"]
        self.answers.append(message)
        if self.last_seq is not None and message["seq"] < self.last_seq:
            return  # an older picture than one drawn: ignored, as the document says
        self.table, self.game, self.watchers = (
            message["table"],
            message["game"],
            message["watchers"],
        )
        self.chat = {m["id"]: m for m in message["chat"]}
        self.last_seq = message["seq"]

    def on_update(self, message: dict[str, Any]) -> None:
        seq = message["seq"]
        expect(self.conn_seq is None or seq > self.conn_seq, f"update {seq} sent twice or late")
        self.conn_seq = seq
        table = message.get("table")
        if table is not None:
            check_picture(table)
        seat = (table or self.table or {"you": {"seat": None}})["you"]["seat"]
        check_view(message["game"], seat)
        for event in message["events"]:
            check_event(event, seat)
        leaked = hidden_bones(message, message["events"], seat)
        expect(not leaked, f"{self.label} was sent hidden bones {sorted(leaked)}")
        if self.lose_next_update:
            self.lose_next_update = False
            return  # lost on the way: the next one shows a gap
        if self.awaiting_answer or (self.last_seq is not None and seq <= self.last_seq):
            return  # the answer on its way covers it / seen already
        if self.last_seq is not None and seq > self.last_seq + 1:
            self.gaps += 1
            self.awaiting_answer = self.resume_due = True
            return
        if table is not None:
            self.table = table
        self.game = message["game"]
        self.last_seq = seq

    def on_ack(self, message: dict[str, Any]) -> None:
        expect(is_int(message["version"]), "ack.version")

    def on_error(self, message: dict[str, Any]) -> None:
        expect(isinstance(message["code"], str) and isinstance(message["message"], str), "error")
        if not str(message.get("request_id", "")).startswith("a"):
            self.errors.append(message)

    def on_pong(self, message: dict[str, Any]) -> None:
        pass

    def on_chat(self, message: dict[str, Any]) -> None:
        shown = message["message"]
        check_keys(shown, {"id", "audience", "kind", "text", "user", "at"}, set(), "chat message")
        self.chat[shown["id"]] = shown

    def on_watchers(self, message: dict[str, Any]) -> None:
        expect(is_int(message["watchers"]), "watchers is a count")
        self.watchers = message["watchers"]

    def on_reported(self, message: dict[str, Any]) -> None:
        pass

    def on_suspended(self, message: dict[str, Any]) -> None:
        raise Disagreement("nobody was suspended")

    # -- acting ----------------------------------------------------------------------------

    async def wash(self) -> None:
        """Send this seat's wash for the commitment in the picture, once per hand and game."""
        if self.seat is None or self.table is None or self.table["commitment"] is None:
            return
        key = (self.table["game_number"], self.table["commitment"]["hand"])
        if key in self.washed:
            return
        self.washed.add(key)
        await self.send(
            {
                "type": "wash",
                "hand": key[1],
                "entropy": secrets.token_hex(32),
                "request_id": self.request_id("w"),
            }
        )

    async def act_at_random(self, rng: Any) -> dict[str, Any]:
        """One of this seat's legal actions, made; a `stale` refusal (this client had not drawn
        the latest version yet) is caught up with a hello, and the move chosen again."""
        for _attempt in range(3):
            if not (self.game and self.game["legal_actions"]):
                await self.hello()  # this client has not drawn its turn yet (an update lost)
            expect(self.game and self.game["legal_actions"], f"{self.label} to act has a move")
            assert self.game is not None
            action = dict(rng.choice(self.game["legal_actions"]))
            action.pop("seat")  # the server fills it in (sending it back would do as well)
            reply = await self.act(action)
            if reply["type"] == "ack":
                return reply
            expect(reply["code"] == "stale" and is_int(reply["version"]), f"refused: {reply}")
            await self.hello()
        raise Disagreement(f"{self.label} could not make a legal move")

    async def act(self, action: dict[str, Any]) -> dict[str, Any]:
        """Make a move against the version drawn; the ack (or the refusal) it gets."""
        assert self.game is not None
        request_id = self.request_id("a")
        await self.send(
            {
                "type": "act",
                "version": self.game["version"],
                "action": action,
                "request_id": request_id,
            }
        )
        while True:
            message = await self.read()
            if message["type"] in ("ack", "error") and message.get("request_id") == request_id:
                return message
