"""Production's channel layer: channels_redis's list-based layer on a blocking pool.

(The embedded default's layer is dominoes_site/socket_layer.py.)
"""

from __future__ import annotations

from typing import Any

from channels_redis.core import RedisChannelLayer
from redis.asyncio import BlockingConnectionPool


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
