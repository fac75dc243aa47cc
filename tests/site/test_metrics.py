"""What operators see: /metrics (prometheus-client, every process of the host) and JSON logs."""

from __future__ import annotations

import json
import logging
import time
from types import SimpleNamespace
from typing import Any

import pytest
from channels.testing import WebsocketCommunicator
from django.test import Client, RequestFactory

from dominoes_site import metrics
from dominoes_site.asgi import application
from dominoes_site.celery import _observe_lateness, _stamp_sent


@pytest.mark.django_db
def test_metrics_answer_the_internal_network_and_staff_only(make_user: Any) -> None:
    from django.contrib.auth.models import AnonymousUser

    factory = RequestFactory()
    outside = factory.get("/metrics", REMOTE_ADDR="203.0.113.5")
    outside.user = AnonymousUser()
    with pytest.raises(metrics.Http404):
        metrics.metrics(outside)

    inside = Client(REMOTE_ADDR="127.0.0.1").get("/metrics")
    assert inside.status_code == 200
    body = inside.content.decode()
    for name in (
        "dominoes_moves_total",
        "dominoes_sockets_open",
        "dominoes_move_ack_seconds_bucket",
        "dominoes_celery_queue_depth",
    ):
        assert name in body, name

    staff = Client(REMOTE_ADDR="203.0.113.5")
    staff.force_login(make_user("Sam", staff=True))
    assert staff.get("/metrics").status_code == 200
    player = Client(REMOTE_ADDR="203.0.113.5")
    player.force_login(make_user("Pat"))
    assert player.get("/metrics").status_code == 404


@pytest.mark.django_db(transaction=True)
async def test_open_sockets_and_refused_handshakes_are_counted(alice: Any) -> None:
    from django.conf import settings

    refused_before = metrics.value("dominoes_handshakes_rejected_total", {"code": "4001"})
    stranger = WebsocketCommunicator(
        application, "/ws/heartbeat/", headers=[(b"origin", b"http://localhost")]
    )
    await stranger.connect()
    assert (await stranger.receive_output(timeout=10))["type"] == "websocket.close"
    assert (
        metrics.value("dominoes_handshakes_rejected_total", {"code": "4001"}) == refused_before + 1
    )

    client = Client()
    await client.aforce_login(alice)
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    before = metrics.value("dominoes_sockets_open", {"kind": "heartbeat"})
    socket = WebsocketCommunicator(
        application,
        "/ws/heartbeat/",
        headers=[(b"cookie", cookie.encode()), (b"origin", b"http://localhost")],
    )
    connected, _ = await socket.connect()
    assert connected
    assert (await socket.receive_json_from(timeout=10))["type"] == "hello"
    assert metrics.value("dominoes_sockets_open", {"kind": "heartbeat"}) == before + 1
    await socket.disconnect()
    assert metrics.value("dominoes_sockets_open", {"kind": "heartbeat"}) == before


def test_a_tasks_lateness_is_measured_from_its_eta_or_when_it_was_sent() -> None:
    headers: dict[str, Any] = {}
    _stamp_sent(headers=headers)
    assert abs(headers["sent_at"] - time.time()) < 60
    name = "tables.tasks.clock_expire"
    count = metrics.value("dominoes_task_lateness_seconds_count", {"task": name})
    late_sum = metrics.value("dominoes_task_lateness_seconds_sum", {"task": name})
    request = SimpleNamespace(is_eager=False, headers={"sent_at": time.time() - 100}, eta=None)
    _observe_lateness(task=SimpleNamespace(name=name, request=request))
    eta = SimpleNamespace(timestamp=lambda: time.time() - 2.0)
    request = SimpleNamespace(is_eager=False, headers={"sent_at": time.time() - 100}, eta=eta)
    _observe_lateness(task=SimpleNamespace(name=name, request=request))
    assert metrics.value("dominoes_task_lateness_seconds_count", {"task": name}) == count + 2
    added = metrics.value("dominoes_task_lateness_seconds_sum", {"task": name}) - late_sum
    assert 102 <= added < 110  # 100 s from when it was sent, 2 s from its ETA (not 100)


def test_json_logs_are_one_object_a_line() -> None:
    from django.conf import settings
    from pythonjsonlogger.json import JsonFormatter

    spec = settings.LOGGING["formatters"]["json"]
    formatter = JsonFormatter(spec["format"], rename_fields=spec["rename_fields"])
    record = logging.LogRecord("tables", logging.WARNING, __file__, 1, "seat %s held", (2,), None)
    line = json.loads(formatter.format(record))
    assert line["level"] == "WARNING" and line["logger"] == "tables"
    assert line["message"] == "seat 2 held" and "time" in line and "process" in line


@pytest.mark.django_db(transaction=True)
async def test_a_move_is_counted_and_its_ack_timed(alice: Any, bob: Any) -> None:
    from asgiref.sync import sync_to_async

    from tables import services
    from tests.tables.helpers import connect, next_reply

    @sync_to_async
    def table() -> int:
        made = services.table_create(host=alice, mode="citizen", players=2, target=250)
        services.seat_take(table_id=made.pk, user=bob, number=1)
        for user in (alice, bob):
            services.seat_ready(table_id=made.pk, user=user, ready=True)
        return made.pk

    table_id = await table()
    sockets = [await connect(user, table_id) for user in (alice, bob)]
    views = []
    for socket in sockets:
        await socket.send_json_to({"type": "hello", "last_seq": None})
        views.append(await next_reply(socket))
    moves = metrics.value("dominoes_moves_total", {"by": "player"})
    acks = metrics.value("dominoes_move_ack_seconds_count")
    actor = views[0]["game"]["to_act"]
    action = dict(views[actor]["game"]["legal_actions"][0])
    action.pop("seat")
    version = views[actor]["game"]["version"]
    await sockets[actor].send_json_to({"type": "act", "version": version, "action": action})
    while (reply := await next_reply(sockets[actor]))["type"] != "ack":
        assert reply["type"] != "error", reply
    assert metrics.value("dominoes_moves_total", {"by": "player"}) == moves + 1
    assert metrics.value("dominoes_move_ack_seconds_count") == acks + 1
    # A refused move is answered and timed too, and applies nothing.
    await sockets[actor].send_json_to({"type": "act", "version": version, "action": action})
    while (reply := await next_reply(sockets[actor]))["type"] != "error":
        pass
    assert metrics.value("dominoes_moves_total", {"by": "player"}) == moves + 1
    assert metrics.value("dominoes_move_ack_seconds_count") == acks + 2
    for socket in sockets:
        await socket.disconnect()


@pytest.mark.django_db
def test_the_presence_sweep_and_a_late_dumbbell_are_counted(alice: Any, bob: Any) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from tables import presence, services
    from tables.models import Game, Presence

    table = services.table_create(host=alice, mode="citizen_gym", players=2, target=250)
    services.seat_take(table_id=table.pk, user=bob, number=1)
    for user in (alice, bob):
        services.seat_ready(table_id=table.pk, user=user, ready=True)
    Presence.objects.create(
        channel_name="gone!1", table=table, user=bob, seen_at=timezone.now() - timedelta(hours=1)
    )
    swept = metrics.value("dominoes_presence_swept_total")
    assert presence.presence_sweep() == 1
    assert metrics.value("dominoes_presence_swept_total") == swept + 1

    game = Game.objects.get(table=table)
    late = metrics.value("dominoes_gym_clock_lateness_seconds_count")
    at = game.deadline + services.clock_grace() + timedelta(seconds=3)
    with django_capture_on_commit() as run:
        assert services.clock_expire(game_id=game.pk, version=game.version, now=at)
    run()
    assert metrics.value("dominoes_gym_clock_lateness_seconds_count") == late + 1
    assert metrics.value("dominoes_gym_clock_lateness_seconds_bucket", {"le": "5.0"}) >= 1


class django_capture_on_commit:
    """Run the on-commit callbacks of a test wrapped in one transaction, when asked."""

    def __enter__(self) -> Any:
        from django.test import TestCase

        self._capture = TestCase.captureOnCommitCallbacks(execute=False)
        self.callbacks = self._capture.__enter__()
        return lambda: [callback() for callback in self.callbacks]

    def __exit__(self, *exc: Any) -> None:
        self._capture.__exit__(*exc)
