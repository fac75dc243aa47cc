"""Beat with a standby: every beat takes a lease in Redis before it sends, so a fleet can run a
beat on two machines and only one of them sends at any time.

The lease is a redis-py `Lock` with a timeout (`SET key token NX PX`, renewed with its
compare-and-extend script, given up with its compare-and-delete) named `BEAT_LEASE_KEY`, lasting
`BEAT_LEASE_SECONDS` (T). The holder's token is `<host>:<pid>:<random>`, so a standby can name
its leader.

* **Leading.** A beat that holds the lease renews it every T/5 seconds, on its own ticks (a beat
  stuck in a send renews nothing, so it never keeps the lease it is not using). It reads its
  monotonic clock *before* sending each acquire or renewal; if Redis answers yes, the key lives
  at least T from that instant by Redis's clock, and the beat counts its lease as good only until
  that instant + T - T/5 (the margin). It sends nothing past that point, whatever happens.
* **Every send is checked at Redis.** Before publishing an entry the leader runs one script that,
  only if the lease key still holds its token, records the entry's run time in the hash
  `<BEAT_LEASE_KEY>:runs`. No yes, no send: a beat that lost its key (expired while it was paused,
  taken over) finds out there, not from a clock.
* **Standing by.** A beat without the lease tries to take it every second and sends nothing.
  When it takes it, it first adopts the run times in the hash, so it continues the schedule from
  the last run any beat recorded: its first tick sends only the entries due by the schedule from
  those times (one send for all the runs missed meanwhile, Celery's usual rule), never an entry
  as if it had never run. An entry the hash does not hold (Redis restarted empty) that runs more
  often than hourly counts as run at the takeover: it waits one interval rather than risk
  following another beat's send (hourly and daily entries keep the beat's own memory).
* **Losing it.** A renewal that Redis refuses (the key is gone or someone else's), a record that
  Redis refuses, or the local deadline passing while Redis cannot be reached: the beat logs
  `beat: lost the lease; stopped sending` and stands by.

Why a partitioned leader never sends alongside its successor: the key expires at Redis no
earlier than T after the leader last sent a renewal that succeeded, and the leader stops at T -
T/5 after that same instant by its own clock. The standby can only take the key after it expired.
This holds while the two clocks run at nearly the same rate (any NTP-kept clock: the margin
allows a 20% difference) and Redis's host clock does not jump forward (Redis expires keys by its
wall clock: keep it slewed by NTP, never stepped). Nothing fences a message already handed to the
broker: a leader that stops for longer than T between the check at Redis and its publish (a
frozen VM) could still deliver that one message late. Every periodic task is idempotent, so such
a message does what the next one would.

No task is sent twice for one slot: a run is recorded (under the lease) before it is sent, and a
new leader continues from the recorded runs. A leader killed between the record and the publish
loses that one send (the sweeps run again within seconds; a daily job would wait a day), which is
the price of never sending twice.

Without `REDIS_URL` (the embedded `make run`) there is no Redis to hold a lease: the scheduler
is Celery's own and this beat is the only one (its `--pidfile` refuses a second).
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import socket
import time
import uuid
from typing import Any

import redis
from celery.beat import PersistentScheduler
from django.conf import settings
from redis.backoff import NoBackoff
from redis.exceptions import LockError, LockNotOwnedError, RedisError
from redis.retry import Retry

logger = logging.getLogger("celery.beat")

# Record an entry's run time, only while the lease key holds this beat's token.
RECORD_IF_LEADING = """
if redis.call('get', KEYS[1]) == ARGV[1] then
    redis.call('hset', KEYS[2], ARGV[2], ARGV[3])
    return 1
end
return 0
"""


def holder_name(token: bytes | str | None) -> str:
    """`host:pid` from a lease token (`host:pid:random`)."""
    if token is None:
        return "nobody"
    if isinstance(token, bytes):
        token = token.decode(errors="replace")
    return token.rsplit(":", 1)[0]


class LeaderScheduler(PersistentScheduler):
    """Celery's persistent scheduler, sending only while it holds the beat lease in Redis."""

    #: seconds between tries to take the lease while standing by
    standby_poll = 1.0

    def __init__(
        self,
        *args: Any,
        redis_url: str | None = None,
        lease_key: str | None = None,
        lease_seconds: float | None = None,
        **kwargs: Any,
    ) -> None:
        url = settings.REDIS_URL if redis_url is None else redis_url
        self.lease_key = lease_key or settings.BEAT_LEASE_KEY
        self.runs_key = f"{self.lease_key}:runs"
        self.lease_seconds = float(lease_seconds or settings.BEAT_LEASE_SECONDS)
        self.renew_every = self.lease_seconds / 5
        self.margin = self.lease_seconds / 5
        self.token = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.leading = False
        self._deadline = 0.0  # monotonic: the lease is good for sending until then
        self._renew_at = 0.0
        self._next_try = 0.0  # monotonic: a standby's next try to take the lease
        self._said = ""  # the last standby message, so it is logged once per change
        self._redis: redis.Redis | None = None
        if url:
            # Fail fast: a call that hangs is a tick that does not renew. One quick retry covers
            # a pooled connection Redis dropped (a restart).
            self._redis = redis.Redis.from_url(
                url,
                socket_timeout=2,
                socket_connect_timeout=2,
                retry=Retry(NoBackoff(), 1),
            )
            self._lock = self._redis.lock(
                self.lease_key, timeout=self.lease_seconds, thread_local=False
            )
            self._record = self._redis.register_script(RECORD_IF_LEADING)
        super().__init__(*args, **kwargs)

    # --- the tick ---------------------------------------------------------------------------
    def tick(self, *args: Any, **kwargs: Any) -> float:
        if self._redis is None:
            if not self.leading:
                self.leading = True
                logger.info("beat: leading (no REDIS_URL: the only beat, no lease)")
            return super().tick(*args, **kwargs)
        if self.leading and time.monotonic() >= self._renew_at:
            self._renew()
        if not self.leading:
            if time.monotonic() < self._next_try:
                return self._next_try - time.monotonic()
            self._try_to_lead()
            if not self.leading:
                self._next_try = time.monotonic() + self.standby_poll
                return self.standby_poll
        interval = super().tick(*args, **kwargs)
        return max(0.0, min(interval, self._renew_at - time.monotonic()))

    def apply_entry(self, entry: Any, producer: Any = None) -> None:
        if self._redis is None:
            return super().apply_entry(entry, producer=producer)
        # `tick` has reserved the entry: the schedule holds its next run, stamped now.
        reserved = self.schedule[entry.name]
        recorded = False
        if self.leading and time.monotonic() < self._deadline:
            try:
                recorded = bool(
                    self._record(
                        keys=[self.lease_key, self.runs_key],
                        args=[self.token, entry.name, reserved.last_run_at.isoformat()],
                    )
                )
            except RedisError as exc:
                logger.warning("beat: could not check the lease before a send: %s", exc)
        if recorded and time.monotonic() < self._deadline:
            return super().apply_entry(entry, producer=producer)
        if not recorded:
            self.schedule[entry.name] = entry  # not sent, not recorded: still due
        self._lose("the lease could not be confirmed before sending " + entry.name)
        return None

    # --- the lease --------------------------------------------------------------------------
    def _leased_from(self, started: float) -> None:
        self._deadline = started + self.lease_seconds - self.margin
        self._renew_at = started + self.renew_every

    def _try_to_lead(self) -> None:
        assert self._redis is not None
        started = time.monotonic()
        try:
            if not self._lock.acquire(blocking=False, token=self.token):
                said = (
                    f"beat: standing by (leader is {holder_name(self._redis.get(self.lease_key))})"
                )
                if said != self._said:
                    logger.info(said)
                    self._said = said
                return
            self._leased_from(started)
            self._adopt_recorded_runs()
        except RedisError as exc:
            said = f"beat: standing by (Redis cannot be reached: {exc})"
            if said != self._said:
                logger.warning(said)
                self._said = said
            self._give_up()
            return
        self.leading = True
        self._said = ""
        self._heap = None  # rebuilt from the adopted run times on this tick
        logger.info(
            "beat: leading (%s holds %s for %g s, renewed every %g s)",
            holder_name(self.token),
            self.lease_key,
            self.lease_seconds,
            self.renew_every,
        )

    def _adopt_recorded_runs(self) -> None:
        """Continue the schedule from the last run any beat recorded under the lease.

        An entry with no record (Redis restarted empty, or a new entry) that runs more often than
        hourly counts as run now: another beat may have sent it a moment ago, and this one's own
        memory of it may be hours old; it is sent one interval later (seconds or minutes), never
        twice in a row. Hourly and daily entries keep this beat's own memory: skipping a day's
        run would cost more than a second run of an idempotent job."""
        assert self._redis is not None
        recorded = self._redis.hgetall(self.runs_key)
        now = self.app.now()
        for name, entry in self.schedule.items():
            stamp = recorded.get(name.encode())
            try:
                if stamp:
                    entry.last_run_at = dt.datetime.fromisoformat(stamp.decode())
                    continue
            except ValueError:
                logger.warning("beat: ignored the recorded run of %s: %r", name, stamp)
            every = getattr(entry.schedule, "run_every", None)
            if isinstance(every, dt.timedelta) and every < dt.timedelta(hours=1):
                entry.last_run_at = now

    def _renew(self) -> None:
        started = time.monotonic()
        try:
            self._lock.reacquire()
        except LockNotOwnedError:
            self._lose("the key expired or another beat holds it")
            return
        except (RedisError, LockError) as exc:
            left = self._deadline - time.monotonic()
            if left <= 0:
                self._lose(f"could not renew it in time: {exc}")
            else:
                logger.warning("beat: could not renew the lease (%s); %.1f s left", exc, left)
                self._renew_at = time.monotonic() + min(1.0, self.renew_every)
            return
        self._leased_from(started)

    def _lose(self, why: str) -> None:
        if self.leading:
            logger.warning("beat: lost the lease; stopped sending (%s)", why)
        self.leading = False
        self._heap = None
        self._next_try = time.monotonic() + self.standby_poll  # a standby's turn first
        self._give_up()

    def _give_up(self) -> None:
        """Delete the key if it is still this beat's (compare-and-delete), so a standby need
        not wait for it to expire. Best effort: whatever fails, the key expires by itself."""
        if self._lock.local.token is None:
            return
        try:
            self._lock.release()
        except (LockError, RedisError):
            self._lock.local.token = None

    def close(self) -> None:
        try:
            if self._redis is not None and self.leading:
                self.leading = False
                self._give_up()
                logger.info("beat: gave up the lease (shutting down)")
        finally:
            super().close()

    @property
    def info(self) -> str:
        lease = (
            f"    . lease -> {self.lease_key} ({self.lease_seconds:g} s)"
            if self._redis is not None
            else "    . lease -> none (no REDIS_URL: the only beat)"
        )
        return f"{super().info}\n{lease}"
