"""The politeness gate: one request at a time to arXiv, at most one every ``delay`` seconds,
across every worker together (arXiv's terms: https://info.arxiv.org/help/api/tou.html).

A gate is a lease plus the time the last request ended. ``turn()`` waits until it holds the
lease and the spacing has passed, runs the request, then records the end time and lets go. A
worker that dies holding the lease blocks the others only until ``lease_seconds`` run out, so
keep that longer than the slowest request.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Protocol, TypeVar

logger = logging.getLogger(__name__)
T = TypeVar("T")

DEFAULT_NAME = "arxiv"
DEFAULT_LEASE_SECONDS = 300.0
POLL_SECONDS = 0.05


class RequestGate(Protocol):
    """What ``ArxivHttp`` needs: a context manager around each request."""

    delay: float

    def turn(self) -> AbstractContextManager[None]: ...


def _holder_id() -> str:
    return f"{uuid.uuid4().hex[:12]}@{threading.get_ident()}"


class LocalRequestGate:
    """A gate for one process (tests, offline tools); workers need Redis or the database."""

    def __init__(
        self,
        delay: float,
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.delay = delay
        self._lock = threading.Lock()
        self._last_end = float("-inf")
        self._sleep = sleep
        self._clock = clock

    @contextmanager
    def turn(self) -> Iterator[None]:
        with self._lock:
            wait = self._last_end + self.delay - self._clock()
            if wait > 0:
                self._sleep(wait)
            try:
                yield
            finally:
                self._last_end = self._clock()


class RedisRequestGate:
    """The gate in Redis: a lease key (``SET NX PX`` semantics, renewable by its holder, done in
    a Lua script) plus a key holding when the last request ended; released only by its holder.

    Times come from the Redis server's clock (``TIME`` inside the scripts), so workers on hosts
    whose clocks disagree still space their requests correctly.
    """

    # Take (or renew) the lease if free or ours; answer -1 when someone else holds it, else the
    # milliseconds still to wait for the spacing.
    _ACQUIRE = """
    local holder = redis.call('GET', KEYS[1])
    if holder and holder ~= ARGV[1] then return -1 end
    redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
    local t = redis.call('TIME')
    local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    local wait = tonumber(redis.call('GET', KEYS[2]) or '0') + tonumber(ARGV[3]) - now
    if wait < 0 then return 0 end
    return wait
    """
    # Record the end of the request (never moving it backwards), then let go if still ours.
    _RELEASE = """
    local t = redis.call('TIME')
    local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    if now > tonumber(redis.call('GET', KEYS[2]) or '0') then
      redis.call('SET', KEYS[2], now, 'EX', 86400)
    end
    if redis.call('GET', KEYS[1]) == ARGV[1] then
      redis.call('DEL', KEYS[1])
      return 1
    end
    return 0
    """

    def __init__(
        self,
        redis_client,
        name: str = DEFAULT_NAME,
        delay: float = 3.0,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
        *,
        sleep: Callable[[float], None] = time.sleep,
        poll_seconds: float = POLL_SECONDS,
    ) -> None:
        self.delay = delay
        self.lease_seconds = lease_seconds
        self._keys = [f"paperscope:gate:{name}:lease", f"paperscope:gate:{name}:last"]
        self._acquire = redis_client.register_script(self._ACQUIRE)
        self._release = redis_client.register_script(self._RELEASE)
        self._sleep = sleep
        self._poll = poll_seconds

    @contextmanager
    def turn(self) -> Iterator[None]:
        me = _holder_id()
        args = [me, max(1, int(self.lease_seconds * 1000)), int(self.delay * 1000)]
        while True:
            wait_ms = int(self._acquire(keys=self._keys, args=args))
            if wait_ms == 0:
                break
            # Someone else holds the lease: poll. We hold it but must space: sleep exactly.
            self._sleep(self._poll if wait_ms < 0 else wait_ms / 1000)
        try:
            yield
        finally:
            if not self._release(keys=self._keys, args=[me]):
                logger.warning("arXiv gate lease expired during a request; raise lease_seconds")


class DatabaseRequestGate:
    """The gate in the database (the embedded default, no Redis): one ArxivRequestSlot row.

    The lease is claimed with a conditional UPDATE that only one worker can win (one row
    changed); no transaction stays open while the request runs. Times are ``time.time()`` of
    each worker, so hosts need roughly synchronised clocks.
    """

    def __init__(
        self,
        name: str = DEFAULT_NAME,
        delay: float = 3.0,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        poll_seconds: float = POLL_SECONDS,
    ) -> None:
        self.name = name
        self.delay = delay
        self.lease_seconds = lease_seconds
        self._sleep = sleep
        self._clock = clock
        self._poll = poll_seconds

    @contextmanager
    def turn(self) -> Iterator[None]:
        from django.db import connection

        from papers.models import ArxivRequestSlot

        if connection.in_atomic_block:
            logger.warning("arXiv gate used inside a transaction: other workers wait on its lock")
        slots = ArxivRequestSlot.objects
        self._unlocked(lambda: slots.get_or_create(name=self.name))
        me = _holder_id()
        while True:
            last = self._unlocked(lambda: self._claim(slots, me))
            if last is None:
                self._sleep(self._poll)
                continue
            wait = last + self.delay - self._clock()
            if wait <= 0:
                break
            self._sleep(wait)  # we hold the lease; the next claim renews it
        try:
            yield
        finally:
            self._unlocked(lambda: self._release(slots, me))

    def _claim(self, slots, me: str) -> float | None:
        """Take or renew the lease; the last request's end time when won, None when not."""
        from django.db.models import Q

        now = self._clock()
        won = (
            slots.filter(name=self.name)
            .filter(Q(holder="") | Q(holder=me) | Q(lease_until__lt=now))
            .update(holder=me, lease_until=now + self.lease_seconds)
        )
        if won != 1:
            return None
        return slots.filter(name=self.name).values_list("last_request_at", flat=True)[0]

    def _release(self, slots, me: str) -> None:
        now = self._clock()
        released = slots.filter(name=self.name, holder=me).update(
            holder="", lease_until=0.0, last_request_at=now
        )
        if not released:
            logger.warning("arXiv gate lease expired during a request; raise lease_seconds")
            slots.filter(name=self.name, last_request_at__lt=now).update(last_request_at=now)

    def _unlocked(self, operation: Callable[[], T]) -> T:
        """Run one statement, waiting out SQLite's "database is locked" under concurrent writers."""
        from django.db import OperationalError

        deadline = self._clock() + self.lease_seconds
        while True:
            try:
                return operation()
            except OperationalError as exc:
                if "locked" not in str(exc) or self._clock() > deadline:
                    raise
            self._sleep(self._poll)


def gate_from_settings() -> RequestGate:
    """Redis when ``settings.REDIS_URL`` is set, else the database; spacing from settings."""
    from django.conf import settings

    delay = float(getattr(settings, "ARXIV_REQUEST_DELAY", 3.0))
    lease = float(getattr(settings, "ARXIV_GATE_LEASE_SECONDS", DEFAULT_LEASE_SECONDS))
    redis_url = getattr(settings, "REDIS_URL", None)
    if redis_url:
        import redis

        return RedisRequestGate(redis.Redis.from_url(redis_url), DEFAULT_NAME, delay, lease)
    return DatabaseRequestGate(DEFAULT_NAME, delay, lease)
