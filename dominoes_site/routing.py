"""WebSocket URL routes for every app."""

from django.urls import path

from dominoes_site.consumers import HeartbeatConsumer

websocket_urlpatterns = [
    path("ws/heartbeat/", HeartbeatConsumer.as_asgi()),
]
