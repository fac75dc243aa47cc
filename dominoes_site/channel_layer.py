"""Production's channel layer: channels_redis's list-based layer on a blocking pool.

(The embedded default's layer is dominoes_site/socket_layer.py.)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from typing import Any, cast

from channels_redis.core import RedisChannelLayer
from redis.asyncio import BlockingConnectionPool
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import ConnectionError as RedisConnectionError

from dominoes_site.inboxes import Inboxes
from dominoes_site.metrics import LAYER_RESYNCS

log = logging.getLogger(__name__)

#: How often each process checks that Redis still holds its sockets' group memberships.
KEEP_SECONDS = 1.0
#: The mark each process leaves in Redis when its memberships are all there, for this long;
#: a minute before it lapses every membership is written again with it (so none outlives
#: `group_expiry`, whatever the socket's age), and a mark gone sooner means Redis lost it.
MARK_SECONDS = 3600
#: What a socket is told when its process's link to Redis was restored: it may have missed
#: messages sent meanwhile (every consumer has a `layer_resync` handler).
RESYNC = {"type": "layer.resync"}


class HouseRedisChannelLayer(RedisChannelLayer):  # type: ignore[misc]
    """channels_redis's list-based layer on a *blocking* connection pool of a stated size.

    redis-py's default pool raises `MaxConnectionsError` the moment more than `max_connections`
    commands are in flight (hundreds of sockets joining their groups after a restart), and its
    default `socket_timeout` (5 s) equals the layer's blocking pop (`brpop_timeout`, 5 s), so a
    quiet socket's receive timed out and the socket closed with 1011. Here a burst waits for a
    free connection (up to `timeout` seconds) instead of failing, and the read timeout is set in
    settings above the blocking pop.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._send_many_script: Any = None
        self._members_script: Any = None
        self.inboxes = Inboxes(self.expiry)
        self._reader: asyncio.Task[None] | None = None
        self._reader_loop: asyncio.AbstractEventLoop | None = None
        # This process's own members of each group, as its group_add/group_discard left them
        # (when each was added): `deliver_local` serves them without asking Redis.
        self._local_members: dict[str, dict[str, float]] = {}
        # The keeper (see `_keep_forever`): the Redis server last seen, and whether the link to
        # it failed since the memberships were last written.
        self._keeper: asyncio.Task[None] | None = None
        self._run_id: str | None = None  # the Redis server this process's memberships are on
        self._marked = False  # this process has left its mark on that server
        self._mark_until = 0.0  # when that mark lapses (it is renewed a minute before)
        self._link_lost = False
        #: How many times this process wrote its memberships again (a Redis restart, a lost
        #: link); for tests and metrics.
        self.reasserted = 0

    # One reader a process ---------------------------------------------------------------------
    #
    # channels_redis lets every waiting consumer of a process take turns at a lock to pop the
    # process's queue, one message at a time, each pop with three more round trips to keep a
    # backup copy (so that a cancelled receive loses nothing). Here one task a process pops the
    # queue, up to 100 messages a round trip, and hands each to its consumer's own queue; it is
    # only cancelled when the process stops, when its consumers are gone too.

    async def new_channel(self, prefix: str = "specific") -> str:
        """Every channel of the process shares one Redis queue (the part before the "!")."""
        return f"specific.{self.client_prefix}!{prefix}.{uuid.uuid4().hex}"

    async def receive(self, channel: str) -> dict[str, Any]:
        if "!" not in channel:
            return cast(dict[str, Any], await super().receive(channel))
        assert self.require_valid_channel_name(channel)
        loop = asyncio.get_running_loop()
        if self._reader_loop is not loop or self._reader is None or self._reader.done():
            if (
                self._reader_loop is not loop
                and self._reader_loop is not None
                and not self._reader_loop.is_closed()
                and self._reader is not None
                and not self._reader.done()
            ):
                raise RuntimeError("Two event loops are trying to receive() on one layer at once!")
            if self._reader_loop is not loop:
                # Queues on an older loop are dead; ones this loop already has keep what this
                # process delivered to them itself.
                self.inboxes.keep_only(loop)
            self._reader_loop = loop
            self._reader = loop.create_task(self._read_forever(self.non_local_name(channel)))
            keeper = self._keeper
            if keeper is not None and not keeper.done() and not keeper.get_loop().is_closed():
                keeper.cancel()  # (a task of a loop that is closed is gone with it)
            self._keeper = loop.create_task(self._keep_forever())
        return await self.inboxes.get(channel)

    async def _read_forever(self, name: str) -> None:
        key = self.prefix + name
        connection = self.connection(self.consistent_hash(name))
        failing = False
        while True:
            try:
                async with connection.pipeline(transaction=False) as pipe:
                    pipe.bzpopmin(key, timeout=self.brpop_timeout)
                    pipe.zpopmin(key, count=99)
                    first, more = await pipe.execute()
            except asyncio.CancelledError:
                raise
            except Exception:
                # one warning with its cause per outage, not one a second
                if not failing:
                    log.warning("channel layer: reading %s failed; retrying", key, exc_info=True)
                failing = True
                self._link_lost = True
                await asyncio.sleep(1)
                continue
            if failing:
                log.warning("channel layer: reading %s again", key)
                failing = False
            bodies = ([first[1]] if first else []) + [body for body, _score in more]
            for body in bodies:
                message = self.deserialize(body)
                targets = message.pop("__asgi_channel__", None)
                # A message may come before its consumer's first receive: its queue waits.
                for target in targets if isinstance(targets, list) else [targets]:
                    self.inboxes.put(target, message, self.get_capacity(target), known_only=False)
            for gone in self.inboxes.sweep():
                self._forget_local(gone)

    # Memberships that survive Redis ----------------------------------------------------------
    #
    # Redis holds every group's members, and a Redis that restarts empty (a crash without
    # persistence, a failover to a replica that missed the last writes) holds none: every
    # socket would stay open but hear nothing sent from another process. The process knows its
    # own members (`_local_members`), so it writes them all again when Redis lost them, and then
    # tells each of its sockets that it may have missed messages meanwhile (`RESYNC`): a table
    # socket brings its page up to the table's latest event, the others ask their pages to fetch
    # again what they show. Redis lost them when the server's run_id changed (a restart, another
    # server), when this process's mark is gone before it was due to lapse (a flush, a replica
    # that missed it), or after this process's link to it failed (a partition: what was sent to
    # it meanwhile may be lost). Every hour they are written again anyway, with a new mark,
    # which keeps a socket open for days in its groups.

    def _mark_key(self) -> str:
        return f"{self.prefix}:alive:{self.client_prefix}"

    async def _keep_forever(self) -> None:
        connection = self.connection(0)
        while True:
            try:
                # The server the memberships were written to, as known before asking: none yet
                # (this process's first look, before its first membership) is no loss.
                known = self._run_id
                async with connection.pipeline(transaction=False) as pipe:
                    pipe.exists(self._mark_key())
                    pipe.info("server")
                    marked, info = await pipe.execute()
                run_id = str(info.get("run_id", ""))
                lost = (
                    self._link_lost
                    or (known is not None and run_id != known)
                    or (self._marked and not marked)  # flushed, or a replica without it
                )
                renew = time.time() > self._mark_until - 60
                if lost or not marked or renew:
                    await self._reassert(connection)
                    self._run_id, self._link_lost, self._marked = run_id, False, True
                    self._mark_until = time.time() + MARK_SECONDS
                    if lost and self._local_members:
                        # Whatever was sent to them meanwhile may be lost.
                        log.warning(
                            "channel layer: Redis did not hold this process's memberships "
                            "(restarted, replaced or unreachable): %d written again",
                            sum(len(m) for m in self._local_members.values()),
                        )
                        LAYER_RESYNCS.inc()
                        self._resync_local()
            except asyncio.CancelledError:
                raise
            except Exception:
                if not self._link_lost:
                    log.warning("channel layer: Redis unreachable; retrying", exc_info=True)
                self._link_lost = True
            await asyncio.sleep(KEEP_SECONDS)

    async def _reassert(self, connection: Any) -> None:
        """Write every membership of this process again (and its mark), in one round trip."""
        now = time.time()
        async with connection.pipeline(transaction=False) as pipe:
            for group, members in list(self._local_members.items()):
                key = self._group_key(group)
                for channel in members:
                    members[channel] = now
                if members:
                    pipe.zadd(key, dict.fromkeys(members, now))
                    pipe.expire(key, self.group_expiry)
            pipe.set(self._mark_key(), "1", ex=MARK_SECONDS)
            await pipe.execute()
        self.reasserted += 1

    def _resync_local(self) -> None:
        """Tell every socket of this process that it may have missed messages."""
        channels = {channel for members in self._local_members.values() for channel in members}
        for channel in channels:
            self.inboxes.put(channel, dict(RESYNC), self.get_capacity(channel), known_only=True)

    async def flush(self) -> None:
        if self._keeper is not None and self._reader_loop is asyncio.get_running_loop():
            self._keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._keeper
        self._keeper = None
        self._run_id = None
        self._marked = False
        if self._reader is not None and self._reader_loop is asyncio.get_running_loop():
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        self._reader = None
        self.inboxes.clear()
        await super().flush()

    def _local_prefix(self) -> str:
        """The start of every channel name of this process (see `new_channel`)."""
        return f"specific.{self.client_prefix}!"

    # This process's own members ---------------------------------------------------------------
    #
    # A channel of this process joins and leaves groups only through this process's layer, so
    # the layer knows its own members without asking Redis, and a message for them can be put
    # on their queues the moment it is sent: from the synchronous code that sends it (the
    # move's on-commit broadcast, dominoes_site/layer.py), before the event loop is even free,
    # instead of after a round trip to Redis in the loop's sender task, queued behind every
    # other batch. Redis still holds every member (for the other processes' senders).

    async def group_add(self, group: str, channel: str) -> None:
        if self._run_id is None and channel.startswith(self._local_prefix()):
            # Which server the process's first membership goes to: a later change of server
            # (a restart) is then known for a loss, even before the keeper's first look.
            info = await self.connection(0).info("server")
            self._run_id = str(info.get("run_id", ""))
        await super().group_add(group, channel)
        if channel.startswith(self._local_prefix()):
            self._local_members.setdefault(group, {})[channel] = time.time()

    async def group_discard(self, group: str, channel: str) -> None:
        members = self._local_members.get(group)
        if members is not None:
            members.pop(channel, None)
            if not members:
                self._local_members.pop(group, None)
        await super().group_discard(group, channel)

    def _forget_local(self, channel: str) -> None:
        for group in list(self._local_members):
            members = self._local_members.get(group)
            if members is not None and members.pop(channel, None) is not None and not members:
                self._local_members.pop(group, None)

    def deliver_local(self, messages: list[tuple[str, dict[str, Any]]]) -> None:
        """Put each message on the queue of every member of its group in this process, now,
        in the order given. Safe from any thread (a queue on another thread's loop is reached
        with call_soon_threadsafe). A member older than `group_expiry` is gone, as in Redis."""
        oldest = time.time() - self.group_expiry
        for group, message in messages:
            members = self._local_members.get(group)
            if not members:
                continue
            for channel, added in list(members.items()):
                if added < oldest:
                    members.pop(channel, None)
                    continue
                self.inboxes.put(channel, message, self.get_capacity(channel), known_only=False)

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        """One group's message: as `group_send_many` (this process's members served here)."""
        if self.ring_size != 1:
            await super().group_send(group, message)
            return
        assert self.require_valid_group_name(group), "Group name not valid"
        await self.group_send_many([(group, message)])

    def create_pool(self, index: int) -> Any:
        host = dict(self.hosts[index])
        address = host.pop("address")
        # A pooled connection that Redis dropped (a restart) fails its next command: try it
        # again on a fresh one, a few times over about a second, instead of losing the message.
        host.setdefault("retry", Retry(ExponentialWithJitterBackoff(base=0.05, cap=0.5), 4))
        host.setdefault("retry_on_error", [RedisConnectionError])
        return BlockingConnectionPool.from_url(address, **host)

    # One move's audiences in two round trips ------------------------------------------------

    _MEMBERS_LUA = """
        local found = {}
        for i = 1, #KEYS do
            redis.call('ZREMRANGEBYSCORE', KEYS[i], 0, tonumber(ARGV[1]))
            found[i] = redis.call('ZRANGE', KEYS[i], 0, -1)
        end
        return found
    """

    _SEND_MANY_LUA = """
        local n = #KEYS
        local now = tonumber(ARGV[2 * n + 1])
        local expiry = tonumber(ARGV[2 * n + 2])
        local over_capacity = 0
        for i = 1, n do
            redis.call('ZREMRANGEBYSCORE', KEYS[i], 0, now - expiry)
            if redis.call('ZCOUNT', KEYS[i], '-inf', '+inf') < tonumber(ARGV[n + i]) then
                redis.call('ZADD', KEYS[i], now + i * 0.000001, ARGV[i])
                redis.call('EXPIRE', KEYS[i], expiry)
            else
                over_capacity = over_capacity + 1
            end
        end
        return over_capacity
    """

    async def group_send_many(
        self, messages: list[tuple[str, dict[str, Any]]], *, delivered_here: bool = False
    ) -> None:
        """Several group_sends, in the order given, in one or two round trips to Redis.
        `delivered_here`: the caller already gave this process's members theirs
        (`deliver_local`); otherwise that is done first.

        channels_redis's `group_send` costs four round trips a group (expire the group, read its
        members, expire each member's queue, then an EVAL carrying the script's text), and one
        move has up to six audiences. Here one cached script (EVALSHA) drops every group's
        expired members and reads the rest; this process's own members get the message at once;
        one more script queues it for the others, each message with a later score than the one
        before it, so a consumer receives them in the order given.
        """
        if not messages:
            return
        if self.ring_size != 1:
            for group, message in messages:
                await super().group_send(group, message)
            return
        if not delivered_here:
            self.deliver_local(messages)
        connection = self.connection(0)
        now = time.time()
        if self._members_script is None:
            self._members_script = connection.register_script(self._MEMBERS_LUA)
        found = await self._members_script(
            keys=[self._group_key(group) for group, _message in messages],
            args=[int(now) - self.group_expiry],
            client=connection,
        )
        keys: list[str] = []
        bodies: list[bytes] = []
        capacities: list[int] = []
        local = self._local_prefix()
        for i, (_group, message) in enumerate(messages):
            members = [name.decode("utf8") for name in found[i]]
            # This process's own members got the message from deliver_local, not through
            # Redis: no serialising, no queue, no reader's round trip (a table's sockets all sit
            # on one daphne when the proxy routes by table, docs/deploy.md).
            remote = [member for member in members if not member.startswith(local)]
            if not remote:
                continue
            _, to_send, capacity = self._map_channel_keys_to_connection(remote, message)
            for key, body in to_send.items():
                keys.append(key)
                bodies.append(body)
                capacities.append(capacity[key])
        if not keys:
            return
        if self._send_many_script is None:
            self._send_many_script = connection.register_script(self._SEND_MANY_LUA)
        over = await self._send_many_script(
            keys=keys, args=[*bodies, *capacities, now, self.expiry], client=connection
        )
        if over:
            log.info("%s channel queues over capacity in %d group sends", over, len(messages))
