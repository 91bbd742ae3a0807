"""Finding 6: the rate-limit counter is one atomic increment, in the cache where it increments
atomically (Redis, locmem) and in a database row where it does not (the file cache of the
embedded default). Parallel hits are each counted once: no two see the same count."""

from __future__ import annotations

import threading

import pytest
from django.db import connections

from accounts.models import RateCounter
from accounts.ratelimit import rate_clear, rate_hit, rate_peek
from accounts.tests.test_concurrency import ThreadDatabase

THREADS = 8
HITS = 25


def _hit_in_parallel(database: ThreadDatabase | None, key: str) -> list[int]:
    seen: list[int] = []
    barrier = threading.Barrier(THREADS)

    def worker():
        if database is not None:
            database.attach()
        try:
            barrier.wait()
            for _ in range(HITS):
                seen.append(rate_hit(key=key, window=60))
        finally:
            if database is not None:
                connections["default"].close()

    pool = [threading.Thread(target=worker) for _ in range(THREADS)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    return seen


@pytest.mark.django_db
def test_the_cache_counter_counts_every_parallel_hit():
    seen = _hit_in_parallel(None, "rl:test-cache")
    assert sorted(seen) == list(range(1, THREADS * HITS + 1))
    assert rate_peek(key="rl:test-cache") == THREADS * HITS


@pytest.mark.django_db(transaction=True)
def test_the_database_counter_counts_every_parallel_hit(settings, tmp_path):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(tmp_path / "cache"),
        }
    }
    database = ThreadDatabase(tmp_path)

    seen = _hit_in_parallel(database, "rl:test-db")

    assert sorted(seen) == list(range(1, THREADS * HITS + 1))
    stored = database.run(lambda: list(RateCounter.objects.values_list("key", "count")))
    assert stored == [("rl:test-db", THREADS * HITS)]


@pytest.mark.django_db
def test_a_database_window_ends_and_the_next_starts_at_one(settings, tmp_path, monkeypatch):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(tmp_path / "cache"),
        }
    }
    clock = [1000.0]
    monkeypatch.setattr("accounts.ratelimit.time.time", lambda: clock[0])
    assert [rate_hit(key="k", window=60) for _ in range(3)] == [1, 2, 3]
    clock[0] += 61
    assert rate_hit(key="k", window=60) == 1
    assert RateCounter.objects.get(key="k").count == 1
    rate_clear(key="k")
    assert not RateCounter.objects.exists()
