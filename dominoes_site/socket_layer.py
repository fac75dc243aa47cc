"""The embedded channel layer: groups and queues in memory, Unix sockets between processes.

On the embedded default one daphne holds every WebSocket, and the other processes (the Celery
worker, beat, a management command) only ever *send* to them. So the layer keeps each process's
channels and groups in that process's memory, and a process that has channels listens on a Unix
socket in a folder of its own (`VAR_DIR/channels/<process>.sock`). A `group_send` delivers to
the sender's own members at once and writes one frame to every other listening process, which
delivers it to its members; a `send` to a channel goes to the process named in the channel's name.

Compared with the SQLite layer it replaced (channels-lite: about 40 database operations and
thread hand-offs per move, polled every 20 ms), a delivery in the same process is a queue put and
one to another process a frame on a local socket, pushed, not polled. Messages between two
processes arrive in the order they were sent. Nothing is kept across a restart, as with Redis's
expiring keys: a socket that reconnects joins its groups again and resumes from the event log.

A message waits in its channel's queue until its consumer takes it; a queue holds at most
`capacity` messages (more are dropped for a group, refused with `ChannelFull` for a channel), and
a channel nobody has received from for `expiry` seconds is forgotten with its group memberships.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import struct
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import msgspec
from channels.exceptions import ChannelFull
from channels.layers import BaseChannelLayer

from dominoes_site.inboxes import Inboxes

log = logging.getLogger(__name__)

_FRAME = struct.Struct("!I")
#: A frame is one message; the longest the house sends is a game's end (tens of kilobytes).
MAX_FRAME = 16 * 1024 * 1024
#: Unix socket paths are limited to 107 bytes; a deeper VAR_DIR gets a folder under /tmp.
MAX_SOCKET_PATH = 100


class HouseSocketChannelLayer(BaseChannelLayer):  # type: ignore[misc]
    extensions = ["groups", "flush"]

    def __init__(
        self,
        folder: str | os.PathLike[str],
        expiry: int = 60,
        group_expiry: int = 86400,
        capacity: int = 500,
        channel_capacity: dict[str, int] | None = None,
    ) -> None:
        super().__init__(expiry=expiry, capacity=capacity, channel_capacity=channel_capacity)
        self.group_expiry = group_expiry
        self.folder = _short_folder(Path(folder))
        self.process = f"p{os.getpid()}x{uuid.uuid4().hex[:8]}"
        self.path = self.folder / f"{self.process}.sock"
        self.inboxes = Inboxes(expiry)
        self._groups: dict[str, dict[str, float]] = {}
        self._lock = threading.Lock()
        self._server: asyncio.AbstractServer | None = None
        self._server_loop: asyncio.AbstractEventLoop | None = None
        self._server_lock: asyncio.Lock | None = None
        self._peers: dict[tuple[asyncio.AbstractEventLoop, str], asyncio.StreamWriter] = {}
        self._peer_paths: list[str] = []
        self._folder_seen: int | None = None

    # --- channels -----------------------------------------------------------------------------

    async def new_channel(self, prefix: str = "specific") -> str:
        await self._listen()
        name = f"{prefix}.{self.process}!{uuid.uuid4().hex}"
        self.inboxes.open(name)
        self._sweep()
        return name

    async def receive(self, channel: str) -> dict[str, Any]:
        assert self.require_valid_channel_name(channel)
        return await self.inboxes.get(channel)

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        assert isinstance(message, dict), "message is not a dict"
        assert self.require_valid_channel_name(channel), "Channel name not valid"
        owner = _owner(channel)
        if owner == self.process:
            if not self._deliver(channel, message):
                raise ChannelFull(channel)
            return
        path = str(self.folder / f"{owner}.sock")
        await self._forward([path], ["c", channel, message])

    # --- groups -------------------------------------------------------------------------------

    async def group_add(self, group: str, channel: str) -> None:
        assert self.require_valid_group_name(group), "Group name not valid"
        assert self.require_valid_channel_name(channel), "Channel name not valid"
        with self._lock:
            self._groups.setdefault(group, {})[channel] = time.time()

    async def group_discard(self, group: str, channel: str) -> None:
        assert self.require_valid_group_name(group), "Group name not valid"
        with self._lock:
            members = self._groups.get(group)
            if members is not None:
                members.pop(channel, None)
                if not members:
                    del self._groups[group]

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        assert isinstance(message, dict), "message is not a dict"
        assert self.require_valid_group_name(group), "Group name not valid"
        self._group_deliver(group, message)
        peers = self._listeners()
        if peers:
            await self._forward(peers, ["g", group, message])

    async def group_send_many(self, messages: list[tuple[str, dict[str, Any]]]) -> None:
        """Several group_sends in the order given: one frame to each other process."""
        for group, message in messages:
            assert isinstance(message, dict), "message is not a dict"
            assert self.require_valid_group_name(group), "Group name not valid"
            self._group_deliver(group, message)
        peers = self._listeners()
        if peers:
            await self._forward(peers, ["m", "", [[g, m] for g, m in messages]])

    async def flush(self) -> None:
        self.inboxes.clear()
        with self._lock:
            self._groups.clear()

    async def close(self) -> None:
        for writer in list(self._peers.values()):
            writer.close()
        self._peers.clear()

    # --- in this process ----------------------------------------------------------------------

    def _group_deliver(self, group: str, message: dict[str, Any]) -> None:
        now = time.time()
        with self._lock:
            members = self._groups.get(group)
            if not members:
                return
            for channel, added in list(members.items()):
                if now - added > self.group_expiry:
                    del members[channel]
            channels = list(members)
        for channel in channels:
            self._deliver(channel, message)  # a full channel misses it, as on Redis

    def _deliver(self, channel: str, message: dict[str, Any]) -> bool:
        """Queue `message` for `channel`; False when its queue is full. A channel this process
        does not know (its consumer is gone) drops it, like a message that expired on Redis."""
        return self.inboxes.put(channel, message, self.get_capacity(channel), known_only=True)

    def _sweep(self) -> None:
        """Forget channels nobody has read for `expiry` seconds (their consumers are gone)."""
        gone = self.inboxes.sweep()
        if not gone:
            return
        with self._lock:
            for group in list(self._groups):
                members = self._groups[group]
                for name in gone & members.keys():
                    del members[name]
                if not members:
                    del self._groups[group]

    # --- between processes --------------------------------------------------------------------

    async def _listen(self) -> None:
        """Listen on this process's socket (from the first channel on; again on a new event
        loop if the one it listened on has closed)."""
        loop = asyncio.get_running_loop()
        if self._server is not None and self._server_loop is loop:
            return
        if self._server_loop is not None and not self._server_loop.is_closed():
            return  # another live loop of this process listens; deliveries cross to ours
        self.folder.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self._server = await asyncio.start_unix_server(self._serve, path=str(self.path))
        self._server_loop = loop

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                header = await reader.readexactly(_FRAME.size)
                (size,) = _FRAME.unpack(header)
                if size > MAX_FRAME:
                    log.error("channel layer: a frame of %d bytes; closing that link", size)
                    return
                kind, target, message = msgspec.msgpack.decode(await reader.readexactly(size))
                if kind == "g":
                    self._group_deliver(target, message)
                elif kind == "m":
                    for group, each in message:
                        self._group_deliver(group, each)
                else:
                    self._deliver(target, message)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass  # the sending process went away
        finally:
            writer.close()

    def _listeners(self) -> list[str]:
        """Every other process listening in the folder (read again when the folder changes)."""
        try:
            stamp = os.stat(self.folder).st_mtime_ns
        except FileNotFoundError:
            return []
        if stamp != self._folder_seen:
            mine = str(self.path)
            with os.scandir(self.folder) as entries:
                self._peer_paths = [
                    e.path for e in entries if e.name.endswith(".sock") and e.path != mine
                ]
            self._folder_seen = stamp
        return self._peer_paths

    async def _forward(self, paths: list[str], frame_parts: list[Any]) -> None:
        body = msgspec.msgpack.encode(frame_parts)
        frame = _FRAME.pack(len(body)) + body
        loop = asyncio.get_running_loop()
        for path in paths:
            writer = self._peers.get((loop, path))
            if writer is None or writer.is_closing():
                writer = await self._connect(loop, path)
                if writer is None:
                    continue
            try:
                writer.write(frame)
                if writer.transport.get_write_buffer_size() > 1 << 20:
                    await writer.drain()
            except (ConnectionError, RuntimeError):
                self._peers.pop((loop, path), None)

    async def _connect(
        self, loop: asyncio.AbstractEventLoop, path: str
    ) -> asyncio.StreamWriter | None:
        try:
            _, writer = await asyncio.open_unix_connection(path)
        except FileNotFoundError:
            return None
        except ConnectionRefusedError:
            # A process that died without closing: nobody listens there any more.
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
            return None
        except OSError:
            log.warning("channel layer: cannot reach %s", path, exc_info=True)
            return None
        self._peers[(loop, path)] = writer
        return writer


def _owner(channel: str) -> str:
    """The process a channel name belongs to: `<prefix>.<process>!<id>`."""
    head = channel.partition("!")[0]
    return head.rpartition(".")[2]


def _short_folder(folder: Path) -> Path:
    if len(str(folder)) + 40 <= MAX_SOCKET_PATH:
        return folder
    digest = hashlib.sha1(str(folder.resolve()).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"dominoes-channels-{digest}"
