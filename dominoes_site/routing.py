"""WebSocket URL routes for every app."""

from django.urls import path

from dominoes_site.consumers import HeartbeatConsumer
from social.consumers import NoticeConsumer
from tables.consumers import LobbyConsumer, TableConsumer

websocket_urlpatterns = [
    path("ws/heartbeat/", HeartbeatConsumer.as_asgi()),
    path("ws/notices/", NoticeConsumer.as_asgi()),
    path("ws/tables/<int:table_id>/", TableConsumer.as_asgi()),
    path("ws/lobby/", LobbyConsumer.as_asgi()),
]
