"""`/healthz`: is the database, the channel layer and the broker reachable? For operators. It
also says whether this process runs the rules engine compiled or as pure Python (both are
healthy: pure Python is the same rules, slower; see docs/engine.md)."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import connections
from django.http import HttpRequest, JsonResponse

import engine


def _check_database() -> dict[str, Any]:
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return {"vendor": connections["default"].vendor}


async def _layer_round_trip() -> dict[str, Any]:
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("no channel layer configured")
    # A process-specific channel: new_channel makes it receivable on every layer the house uses.
    channel = await layer.new_channel("healthz.")
    token = uuid.uuid4().hex
    await layer.send(channel, {"type": "healthz.ping", "token": token})
    message = await asyncio.wait_for(layer.receive(channel), timeout=5)
    if message.get("token") != token:
        raise RuntimeError("the channel layer returned a different message")
    return {"backend": type(layer).__name__}


def _check_channel_layer() -> dict[str, Any]:
    return async_to_sync(_layer_round_trip)()


def _check_broker() -> dict[str, Any]:
    from dominoes_site.celery import app

    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=3)
        return {"transport": conn.transport_cls if isinstance(conn.transport_cls, str) else "?"}


CHECKS = {
    "database": _check_database,
    "channel_layer": _check_channel_layer,
    "broker": _check_broker,
}


def healthz(request: HttpRequest) -> JsonResponse:
    report: dict[str, Any] = {}
    healthy = True
    for name, check in CHECKS.items():
        started = time.perf_counter()
        try:
            detail = check()
            report[name] = {"ok": True, **detail}
        except Exception as exc:  # a health check reports every failure instead of raising
            healthy = False
            report[name] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:300]}
        report[name]["ms"] = round((time.perf_counter() - started) * 1000, 1)
    return JsonResponse(
        {
            "status": "ok" if healthy else "failing",
            "checks": report,
            "engine": "compiled" if engine.COMPILED else "pure",
        },
        status=200 if healthy else 503,
    )
