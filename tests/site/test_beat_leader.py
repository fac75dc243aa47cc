"""Beat with a standby (dominoes_site/beat.py): only the beat holding the lease sends; a standby
takes over when the leader dies; a leader that cannot renew stops before its lease runs out; no
entry is sent twice around a takeover.

Most tests drive two schedulers in threads of this process against the real Redis, each with a
stub that records what it would send and when; a private lease key per test. One test runs two
real `celery beat` processes and SIGKILLs the leader. The embedded stack (no Redis) gets a real
`celery beat` too: it still starts, leads alone and sends.
"""

from __future__ import annotations

import datetime as dt
import itertools
import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from celery import Celery
from django.conf import settings

from dominoes_site.beat import LeaderScheduler, holder_name

ROOT = Path(__file__).resolve().parents[2]
LEASE = 2.0  # seconds: renewed every 0.4 s, good for sending for 1.6 s after each renewal
EVERY = 0.2  # the fast entry's interval

needs_redis = pytest.mark.skipif(
    not settings.REDIS_URL, reason="the lease lives in Redis (the production stack)"
)


def wait_for(predicate: Callable[[], object], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds} s: {what}")
        time.sleep(0.02)


class Beat(threading.Thread):
    """One beat: a LeaderScheduler ticking in a thread, its sends recorded, not published."""

    def __init__(self, tmp_path: Path, name: str, key: str, schedule: dict[str, Any]) -> None:
        super().__init__(daemon=True, name=f"beat-{name}")
        app = Celery(f"beat-{name}", set_as_current=False)
        app.conf.update(
            broker_url="memory://", timezone="UTC", enable_utc=True, beat_schedule=schedule
        )
        self.sent: list[tuple[str, float]] = []
        self.ticks = 0
        self.scheduler = LeaderScheduler(
            app=app,
            schedule_filename=str(tmp_path / f"{name}-schedule"),
            redis_url=settings.REDIS_URL,
            lease_key=key,
            lease_seconds=LEASE,
        )
        self.scheduler.send_task = self._send  # type: ignore[method-assign]
        self._halt = threading.Event()

    def _send(self, task: str, *args: Any, **kwargs: Any) -> None:
        self.sent.append((task, time.monotonic()))

    def run(self) -> None:
        while not self._halt.is_set():
            interval = self.scheduler.tick()
            self.ticks += 1
            self._halt.wait(interval)

    def kill(self) -> float:
        """Stop ticking as SIGKILL would: no release, the lease left to expire."""
        self._halt.set()
        self.join(5)
        return time.monotonic()

    def stop(self) -> float:
        """A clean shutdown: beat's service closes its scheduler."""
        self.kill()
        self.scheduler.close()
        return time.monotonic()

    def times(self, task: str = "ping") -> list[float]:
        return [at for name, at in self.sent if name == task]


@pytest.fixture
def lease_key() -> Iterator[str]:
    key = f"test-beat-{uuid.uuid4().hex[:8]}"
    yield key
    redis.Redis.from_url(settings.REDIS_URL).delete(key, f"{key}:runs")


@pytest.fixture
def beats(tmp_path: Path, lease_key: str) -> Iterator[Callable[..., Beat]]:
    made: list[Beat] = []

    def make(name: str, schedule: dict[str, Any] | None = None, start: bool = True) -> Beat:
        beat = Beat(
            tmp_path, name, lease_key, schedule or {"ping": {"task": "ping", "schedule": EVERY}}
        )
        made.append(beat)
        if start:
            beat.start()
        return beat

    yield make
    for beat in made:
        if beat.is_alive():
            beat.kill()
        beat.scheduler.close()


@needs_redis
def test_only_the_leader_sends(beats: Callable[..., Beat], lease_key: str) -> None:
    a = beats("a")
    wait_for(lambda: a.scheduler.leading, 5, "a leads")
    b = beats("b")
    wait_for(lambda: b.ticks >= 3 and len(a.sent) >= 10, 10, "b tried three times, a sent ten")
    assert b.sent == [] and not b.scheduler.leading
    r = redis.Redis.from_url(settings.REDIS_URL)
    assert holder_name(r.get(lease_key)) == holder_name(a.scheduler.token)
    assert 0 < r.pttl(lease_key) <= LEASE * 1000


@needs_redis
def test_the_standby_sends_soon_after_the_leader_dies(beats: Callable[..., Beat]) -> None:
    a = beats("a")
    wait_for(lambda: len(a.sent) >= 3, 5, "a sends")
    b = beats("b")
    wait_for(lambda: b.ticks >= 2, 5, "b stands by")
    killed = a.kill()
    wait_for(lambda: b.sent, LEASE + 2, "b sends")
    first = b.times()[0]
    # The key outlives a's last renewal by the lease; b tries every second.
    assert first - killed <= LEASE + b.scheduler.standby_poll + 0.5
    assert max(a.times()) < first


@needs_redis
def test_a_clean_shutdown_hands_over_at_once(beats: Callable[..., Beat]) -> None:
    a = beats("a")
    wait_for(lambda: len(a.sent) >= 3, 5, "a sends")
    b = beats("b")
    wait_for(lambda: b.ticks >= 2, 5, "b stands by")
    stopped = a.stop()
    wait_for(lambda: b.sent, LEASE, "b sends")
    assert b.times()[0] - stopped <= b.scheduler.standby_poll + 0.5


@needs_redis
@pytest.mark.parametrize("cut", ["renewals", "everything"])
def test_a_leader_that_cannot_renew_stops_before_its_lease_expires(
    beats: Callable[..., Beat], lease_key: str, cut: str
) -> None:
    """`renewals`: Redis refuses a's writes to the lease key (renewing it, taking it again) but
    still confirms its sends, so only a's own clock stops it, before the key expires.
    `everything`: a is cut off from Redis (a partition): its next send finds it out."""
    r = redis.Redis.from_url(settings.REDIS_URL)
    a = beats("a")
    wait_for(lambda: len(a.sent) >= 3, 5, "a sends")
    b = beats("b")
    wait_for(lambda: b.ticks >= 2, 5, "b stands by")
    seen: list[tuple[float, int, bytes | None]] = []
    lose = a.scheduler._lose

    def losing(why: str) -> None:
        seen.append((time.monotonic(), r.pttl(lease_key), r.get(lease_key)))
        lose(why)

    def unreachable(*args: Any, **kwargs: Any) -> Any:
        raise redis.ConnectionError("cut off")

    a.scheduler._lose = losing  # type: ignore[method-assign]
    a.scheduler._lock.reacquire = unreachable  # type: ignore[method-assign]
    a.scheduler._lock.acquire = unreachable  # type: ignore[method-assign]
    if cut == "everything":
        a.scheduler._record = unreachable  # type: ignore[assignment]
        a.scheduler._lock.release = unreachable  # type: ignore[method-assign]
    cut_at = time.monotonic()
    wait_for(lambda: seen, LEASE, "a gives up")
    stopped, ttl_left, holder = seen[0]
    # a stopped while its key was still its own and alive: nobody else could send yet.
    assert holder == a.scheduler.token.encode() and ttl_left > 0
    assert all(at <= stopped for at in a.times())
    if cut == "renewals":
        assert stopped - cut_at > a.scheduler.margin  # it kept sending while the lease was good
    wait_for(lambda: b.sent, LEASE + 2, "b takes over")
    assert max(a.times()) < b.times()[0]
    assert not a.scheduler.leading and a.sent[-1][1] == max(a.times())
    a.kill()


@needs_redis
def test_no_entry_is_sent_twice_around_a_takeover(beats: Callable[..., Beat]) -> None:
    """An hourly entry both beats last ran two hours ago (by their own files): a sends it, dies;
    b takes over and continues from a's recorded run, so it sends the pings and not the hourly."""
    schedule = {
        "ping": {"task": "ping", "schedule": EVERY},
        "hourly": {"task": "hourly", "schedule": dt.timedelta(hours=1)},
    }
    a = beats("a", schedule, start=False)
    b = beats("b", schedule, start=False)
    long_ago = a.scheduler.app.now() - dt.timedelta(hours=2)
    for beat in (a, b):
        beat.scheduler.schedule["hourly"].last_run_at = long_ago
    a.start()
    wait_for(lambda: a.times("hourly") and len(a.times()) >= 3, 5, "a sends both")
    b.start()
    wait_for(lambda: b.ticks >= 2, 5, "b stands by")
    a.kill()
    wait_for(lambda: len(b.times()) >= 3, LEASE + 3, "b sends pings")
    assert len(a.times("hourly")) == 1 and b.times("hourly") == []
    # Pings: never two within one interval across the two beats.
    pings = sorted(a.times() + b.times())
    assert min(later - earlier for earlier, later in itertools.pairwise(pings)) >= EVERY * 0.9


@needs_redis
def test_a_lost_leader_does_not_send_what_it_had_reserved(beats: Callable[..., Beat]) -> None:
    """Another beat took the key (a's lease ran out while it was paused): a's very next send is
    refused at Redis, before anything goes out."""
    a = beats("a", start=False)
    a.scheduler.tick()  # leads, and sends what is due
    sent = len(a.sent)
    r = redis.Redis.from_url(settings.REDIS_URL)
    r.set(a.scheduler.lease_key, "elsewhere:1:x", px=int(LEASE * 1000))
    time.sleep(EVERY)
    for _ in range(5):
        a.scheduler.tick()
    assert len(a.sent) == sent and not a.scheduler.leading


# --- real `celery beat` processes ----------------------------------------------------------------
class Process:
    """A `celery beat` subprocess whose log lines are collected as they come, with their time."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.lines: list[tuple[float, str]] = []
        self.popen = subprocess.Popen(
            args,
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.popen.stdout is not None
        for line in self.popen.stdout:
            self.lines.append((time.monotonic(), line.rstrip()))

    def first(self, pattern: str) -> float | None:
        return next((at for at, line in self.lines if re.search(pattern, line)), None)

    def count(self, pattern: str) -> int:
        return sum(1 for _, line in self.lines if re.search(pattern, line))

    def wait(self, pattern: str, seconds: float) -> float:
        wait_for(lambda: self.first(pattern), seconds, f"{pattern!r} in\n{self.log()}")
        at = self.first(pattern)
        assert at is not None
        return at

    def log(self) -> str:
        return "\n".join(line for _, line in self.lines)

    def end(self, sig: int = signal.SIGTERM) -> None:
        if self.popen.poll() is None:
            os.killpg(self.popen.pid, sig)
        self.popen.wait(10)


def beat_command(tmp_path: Path, name: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "dominoes_site",
        "beat",
        "-l",
        "INFO",
        "-s",
        str(tmp_path / f"{name}-schedule"),
        "--pidfile",
        str(tmp_path / f"{name}.pid"),
    ]


@needs_redis
def test_real_beats_the_standby_leads_after_sigkill(tmp_path: Path, lease_key: str) -> None:
    """Two `celery beat` processes with the site's schedule: one leads; SIGKILL it, and the
    other leads and sends within the lease (3 s) and a second. Their tasks go to an in-memory
    broker (each process its own): what matters here is who sends, not where to."""
    env = {
        **os.environ,
        "REDIS_URL": settings.REDIS_URL,
        "CELERY_BROKER_URL": "memory://",
        "BEAT_LEASE_KEY": lease_key,
        "BEAT_LEASE_SECONDS": "3",
        "VAR_DIR": str(tmp_path),
    }
    sending = r"Scheduler: Sending due task"
    a = Process(beat_command(tmp_path, "a"), env)
    b: Process | None = None
    try:
        a.wait(r"beat: leading", 30)
        a.wait(sending, 10)
        b = Process(beat_command(tmp_path, "b"), env)
        b.wait(rf"beat: standing by \(leader is [^)]*:{a.popen.pid}\)", 30)
        time.sleep(1)  # b keeps trying meanwhile
        assert b.count(sending) == 0
        a.end(signal.SIGKILL)
        killed = time.monotonic()
        led = b.wait(r"beat: leading", 3 + 3)
        sent = b.wait(sending, 3)
        assert led - killed <= 3 + 1.5 and sent >= led
        b.end()
        assert "beat: gave up the lease" in b.log()
    finally:
        a.end(signal.SIGKILL)
        if b is not None:
            b.end(signal.SIGKILL)


def test_the_embedded_beat_leads_alone(tmp_path: Path) -> None:
    """No Redis (`make run`'s default): beat starts, leads without a lease and sends."""
    env = {**os.environ, "REDIS_URL": "", "DATABASE_URL": "", "VAR_DIR": str(tmp_path)}
    env.pop("CELERY_BROKER_URL", None)
    beat = Process(beat_command(tmp_path, "only"), env)
    try:
        beat.wait(r"beat: leading \(no REDIS_URL", 30)
        beat.wait(r"Scheduler: Sending due task", 10)
    finally:
        beat.end()


@needs_redis
def test_after_redis_lost_the_runs_a_new_leader_does_not_send_at_once(
    beats: Callable[..., Beat], lease_key: str
) -> None:
    """Redis restarted empty (no lease, no recorded runs): the beat that takes over next knows
    nothing of the last leader's sends. A frequent entry counts as run at the takeover (sent one
    interval later, not at once, so never right after the old leader's send); a daily-or-hourly
    one keeps the beat's own memory."""
    schedule = {
        "minutely": {"task": "minutely", "schedule": dt.timedelta(minutes=1)},
        "hourly": {"task": "hourly", "schedule": dt.timedelta(hours=1)},
    }
    b = beats("b", schedule, start=False)
    long_ago = b.scheduler.app.now() - dt.timedelta(hours=2)
    for entry in ("minutely", "hourly"):
        b.scheduler.schedule[entry].last_run_at = long_ago
    redis.Redis.from_url(settings.REDIS_URL).delete(lease_key, f"{lease_key}:runs")
    b.start()
    wait_for(lambda: b.scheduler.leading and b.ticks >= 3, 5, "b leads")
    assert b.times("minutely") == []  # before the fix: sent at once, two hours "late"
    assert len(b.times("hourly")) == 1
