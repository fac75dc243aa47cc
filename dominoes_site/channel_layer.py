"""The house's channel layers: the embedded one (SQLite) and production's (Redis).

The embedded channel layer: channels-lite's aiosqlite layer, with daemon worker threads.

aiosqlite runs each connection in a thread of its own, and those threads are not daemons: a
process that used the layer (daphne on shutdown, a Celery worker, the test run) would wait for
them forever at exit. Here each pooled connection's thread is made a daemon before it starts;
nothing else about the layer changes.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiosqlite
from aiosqlitepool import SQLiteConnectionPool
from channels_lite.layers.aio import AIOSQLiteChannelLayer, SQLiteLoopLayer
from channels_redis.core import RedisChannelLayer
from redis.asyncio import BlockingConnectionPool


class _DaemonLoopLayer(SQLiteLoopLayer):  # type: ignore[misc]
    async def get_pool(self) -> Any:
        if self.pool is None:
            layer = self.channel_layer

            async def connection_factory() -> Any:
                pending = aiosqlite.connect(layer.db_path)
                pending._thread.daemon = True
                conn = await pending
                conn.row_factory = aiosqlite.Row
                await conn.executescript(layer.db_settings["OPTIONS"]["init_command"])
                return conn

            self.pool = SQLiteConnectionPool(connection_factory, pool_size=layer.pool_size)
        return self.pool


class HouseSQLiteChannelLayer(AIOSQLiteChannelLayer):  # type: ignore[misc]
    @asynccontextmanager
    async def connection(self) -> AsyncIterator[Any]:
        loop = asyncio.get_running_loop()
        if loop not in self._layers:
            self._layers[loop] = _DaemonLoopLayer(self)
        pool = await self._layers[loop].get_pool()
        async with pool.connection() as conn:
            yield conn


# --- Production: Redis ----------------------------------------------------------------------


class HouseRedisChannelLayer(RedisChannelLayer):  # type: ignore[misc]
    """channels_redis's list-based layer on a *blocking* connection pool of a stated size.

    redis-py's default pool raises `MaxConnectionsError` the moment more than `max_connections`
    commands are in flight (hundreds of sockets joining their groups after a restart), and its
    default `socket_timeout` (5 s) equals the layer's blocking pop (`brpop_timeout`, 5 s), so a
    quiet socket's receive timed out and the socket closed with 1011. Here a burst waits for a
    free connection (up to `timeout` seconds) instead of failing, and the read timeout is set in
    settings above the blocking pop.
    """

    def create_pool(self, index: int) -> Any:
        host = dict(self.hosts[index])
        address = host.pop("address")
        return BlockingConnectionPool.from_url(address, **host)
