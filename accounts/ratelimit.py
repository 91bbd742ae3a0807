"""Atomic counters for rate limits: throttles, the sign-in brake, sign-ups and reset mails.

A limit must hold when many requests arrive at once, so the count is one atomic increment,
never a read followed by a write (DRF's throttles keep a list of times that way, and 8 parallel
connections got 800 of 800 requests through a 600/min limit). Where the cache increments
atomically (Redis INCR through django-redis, the in-process locmem cache) the counter lives
there; the file cache of the embedded default reads and rewrites a file, so there it is a
database row updated with `count = count + 1`.
"""

from __future__ import annotations

import hashlib
import logging
import random
import time

from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import F

logger = logging.getLogger(__name__)

# Backends whose incr() is one atomic operation (Redis INCRBY; locmem under its lock).
ATOMIC_CACHE_BACKENDS = (
    "django_redis.cache.RedisCache",
    "django.core.cache.backends.redis.RedisCache",
    "django.core.cache.backends.locmem.LocMemCache",
    "django.core.cache.backends.memcached.PyMemcacheCache",
    "django.core.cache.backends.memcached.PyLibMCCache",
)


def _cache_is_atomic() -> bool:
    from django.conf import settings

    return settings.CACHES["default"]["BACKEND"] in ATOMIC_CACHE_BACKENDS


def counter_key(*parts: object) -> str:
    """A short, fixed-length key from any parts (addresses, usernames, emails)."""
    digest = hashlib.sha256("|".join(str(p) for p in parts).encode()).hexdigest()[:40]
    return f"rl:{digest}"


def rate_hit(*, key: str, window: float, amount: int = 1) -> int | None:
    """Count `amount` events under `key` in a window of `window` seconds that starts with the first
    event; return the count including this one, or None when the store cannot answer (Redis
    down: the limit is not enforced rather than the site failing)."""
    if _cache_is_atomic():
        return _cache_hit(key, window, amount)
    return _db_hit(key, window, amount)


def rate_peek(*, key: str) -> int:
    """The current count under `key`, without counting anything."""
    if _cache_is_atomic():
        return cache.get(key, 0) or 0
    from accounts.models import RateCounter

    row = RateCounter.objects.filter(key=key, expires_at__gt=time.time()).first()
    return row.count if row else 0


def rate_clear(*, key: str) -> None:
    if _cache_is_atomic():
        cache.delete(key)
        return
    from accounts.models import RateCounter

    RateCounter.objects.filter(key=key).delete()


def _cache_hit(key: str, window: float, amount: int) -> int | None:
    timeout = max(1, int(window + 0.999))
    if cache.add(key, amount, timeout=timeout):
        return amount
    try:
        return cache.incr(key, amount)
    except ValueError:  # expired between add and incr: this event opens the next window
        return amount if cache.add(key, amount, timeout=timeout) else cache.incr(key, amount)


def _db_hit(key: str, window: float, amount: int) -> int:
    from accounts.models import RateCounter

    now = time.time()
    with transaction.atomic():
        # The UPDATE locks the row, so the count read after it is this event's own.
        if RateCounter.objects.filter(key=key, expires_at__gt=now).update(
            count=F("count") + amount
        ):
            return RateCounter.objects.filter(key=key).values_list("count", flat=True).get()
        # Absent or expired: start a new window. Two requests may both get here; the conditional
        # UPDATE and the unique key let only one of them start it, the other counts on it.
        restarted = RateCounter.objects.filter(key=key, expires_at__lte=now).update(
            count=amount, expires_at=now + window
        )
        if restarted:
            return amount
        try:
            with transaction.atomic():
                RateCounter.objects.create(key=key, count=amount, expires_at=now + window)
        except IntegrityError:
            RateCounter.objects.filter(key=key).update(count=F("count") + amount)
            return RateCounter.objects.filter(key=key).values_list("count", flat=True).get()
    if random.random() < 0.01:  # noqa: S311 - sweeping now and then, not security
        RateCounter.objects.filter(expires_at__lt=now - 3600).delete()
    return amount
