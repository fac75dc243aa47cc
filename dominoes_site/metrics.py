"""What operators see of the house: Prometheus metrics (prometheus-client), and `/metrics`.

Every process of one host (its daphnes, workers and beat) writes its figures to files in
`PROMETHEUS_MULTIPROC_DIR` (prometheus-client's multiprocess mode; settings set it before any
metric exists), and `/metrics`, served by any daphne of the host, adds them up: scrape one
daphne per host. A daphne that starts clears what processes of the host that are no longer
running left behind for the live gauges (open sockets).

`/metrics` answers only the internal network (`METRICS_ALLOWED_NETWORKS`, the address the
request came from, as daphne saw it: not a forwarded one) or a staff member signed in; anyone
else gets 404, as if it did not exist. docs/deploy.md, "Seeing the fleet", names the graphs and
alerts that matter (deploy/prometheus/rules.yml).
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily

#: Latency buckets for the socket's answers (seconds): a move's ack is milliseconds.
FAST = (0.002, 0.005, 0.01, 0.02, 0.04, 0.06, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
#: Buckets for work that is due at a time (the Gym clock, Celery's queue).
LATE = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0)

MOVES = Counter(
    "dominoes_moves",
    "Game actions applied: a seat's own (a person's or a house player's), or the server's "
    "(deals, forced passes, dumbbells, abandoned games).",
    ["by"],
)
SOCKETS_OPEN = Gauge(
    "dominoes_sockets_open",
    "Open WebSockets, by kind (table, lobby, notices, heartbeat).",
    ["kind"],
    multiprocess_mode="livesum",
)
API_REQUESTS = Counter(
    "dominoes_api_requests",
    "Public API requests answered, by rate-limit bucket (read, play, challenge, tournaments, "
    "anonymous; none: refused before it was counted) and status class (2xx, 4xx, 5xx).",
    ["bucket", "status"],
)
API_STREAMS_OPEN = Gauge(
    "dominoes_api_streams_open",
    "Open API streams (NDJSON over HTTP), by kind (game, events).",
    ["kind"],
    multiprocess_mode="livesum",
)
MOVE_ACK = Histogram(
    "dominoes_move_ack_seconds",
    "From a move's frame reaching the daphne to its ack leaving (refusals included).",
    buckets=FAST,
)
HANDSHAKES_REJECTED = Counter(
    "dominoes_handshakes_rejected",
    "WebSockets refused at the handshake, by close code (4001 not logged in, 4003 may not play, "
    "4004 no such table).",
    ["code"],
)
LAYER_SEND_FAILURES = Counter(
    "dominoes_channel_layer_send_failures",
    "Batches of group messages the channel layer could not send: retried (tried again), or "
    "given_up (dropped after 30 s).",
    ["outcome"],
)
LAYER_RESYNCS = Counter(
    "dominoes_channel_layer_resyncs",
    "Times a process found Redis without its memberships (a restart, a lost link) and wrote "
    "them again, bringing its sockets up to date.",
)
DATABASE_RETRIES = Counter(
    "dominoes_database_retries",
    "Socket actions whose first statement found the connection dropped: retried on a new one "
    "(ok), or the database unreachable (unavailable).",
    ["outcome"],
)
PRESENCE_SWEPT = Counter(
    "dominoes_presence_swept",
    "Table sockets the presence sweep took for gone (not seen for 90 s).",
)
GYM_CLOCK_LATENESS = Histogram(
    "dominoes_gym_clock_lateness_seconds",
    "How long after a turn's deadline and grace its dumbbell was given.",
    buckets=LATE,
)
TASK_LATENESS = Histogram(
    "dominoes_task_lateness_seconds",
    "From when a Celery task was due (its ETA, else when it was sent) to when a worker began it.",
    ["task"],
    buckets=LATE,
)


class _QueueDepth:
    """The Celery queue's depth, read at each scrape from the broker itself."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily(
            "dominoes_celery_queue_depth", "Celery messages waiting in the broker's queue."
        )
        depth = queue_depth()
        if depth is not None:
            family.add_metric([], depth)
        yield family


def queue_depth() -> int | None:
    """Messages waiting in the default queue (None when the broker cannot be read)."""
    try:
        if settings.REDIS_URL:
            import redis

            client = redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_timeout=2)
            try:
                return int(client.llen("celery"))
            finally:
                client.close()
        folder = Path(settings.BROKER_DIR) / "queue"
        return sum(1 for _ in folder.iterdir())
    except Exception:
        return None


def clear_dead_processes() -> None:
    """Drop the live gauges' files of processes that are gone (a daphne killed, restarted)."""
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not folder or not os.path.isdir(folder):
        return
    for path in Path(folder).glob("gauge_live*.db"):
        pid = path.stem.rsplit("_", 1)[-1]
        if pid.isdigit() and not _alive(int(pid)):
            multiprocess.mark_process_dead(int(pid), folder)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _allowed(request: HttpRequest) -> bool:
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated and user.is_staff:
        return True
    address = request.META.get("REMOTE_ADDR", "")
    with contextlib.suppress(ValueError):
        ip = ipaddress.ip_address(address)
        return any(ip in network for network in settings.METRICS_ALLOWED_NETWORKS)
    return False


def registry() -> CollectorRegistry:
    """Every process's figures of this host (or this process's alone, without the folder)."""
    found = CollectorRegistry()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.MultiProcessCollector(found)
    else:
        from prometheus_client import REGISTRY

        for collector in list(REGISTRY._collector_to_names):
            found.register(collector)
    found.register(_QueueDepth())
    return found


def metrics(request: HttpRequest) -> HttpResponse:
    """`/metrics`, for Prometheus: the internal network and staff only."""
    if not _allowed(request):
        raise Http404
    clear_dead_processes()
    return HttpResponse(generate_latest(registry()), content_type=CONTENT_TYPE_LATEST)


def value(name: str, labels: dict[str, str] | None = None) -> float:
    """One sample's value as `/metrics` would show it now (0 when absent): for tests and the
    harness."""
    for family in registry().collect():
        for sample in family.samples:
            if sample.name == name and sample.labels == (labels or {}):
                return float(sample.value)
    return 0.0


@contextlib.contextmanager
def timed(histogram: Any, *, since: float | None = None) -> Iterator[None]:
    """Observe the seconds from `since` (epoch seconds, time.time(): a frame's arrival; now by
    default) to the end of the block, whatever ends it."""
    begin = time.time() if since is None else since
    try:
        yield
    finally:
        histogram.observe(max(0.0, time.time() - begin))


def _zeroes() -> None:
    """Every series exists from the start, at 0 (a rate over a series that is not there yet is
    no rate at all)."""
    for by in ("player", "server"):
        MOVES.labels(by=by)
    for outcome in ("retried", "given_up"):
        LAYER_SEND_FAILURES.labels(outcome=outcome)
    for outcome in ("ok", "unavailable"):
        DATABASE_RETRIES.labels(outcome=outcome)
    for kind in ("table", "lobby", "notices", "heartbeat"):
        SOCKETS_OPEN.labels(kind=kind)


_zeroes()
