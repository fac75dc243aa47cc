"""The embedded channel layer: channels-lite's aiosqlite layer, with daemon worker threads.

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
