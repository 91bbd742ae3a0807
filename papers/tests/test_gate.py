"""The politeness gate: workers sharing a gate take turns, spaced by at least ``delay``, measured
with real time; a lease left by a dead worker runs out."""

import multiprocessing
import os
import threading
import time
import uuid

import pytest
from django.db import connection
from django.test import override_settings

from papers.clients.gate import (
    DatabaseRequestGate,
    LocalRequestGate,
    RedisRequestGate,
    gate_from_settings,
)
from papers.models import ArxivRequestSlot

DELAY = 0.2
REQUEST = 0.02  # how long each pretend request holds its turn
SLACK = 0.01  # sleep() and clock granularity


def _assert_serialised_and_spaced(turns: list[tuple[float, float]], delay: float = DELAY) -> None:
    turns = sorted(turns)
    for (_, end), (start, _) in zip(turns, turns[1:], strict=False):
        assert start >= end, "two requests overlapped"
        assert start - end >= delay - SLACK, f"only {start - end:.3f} s between requests"


def _run_workers(make_gate, workers: int = 2, turns_each: int = 3, close_db: bool = False):
    turns: list[tuple[float, float]] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def work() -> None:
        gate = make_gate()  # one gate object per worker, as separate processes would have
        try:
            for _ in range(turns_each):
                with gate.turn():
                    start = time.monotonic()
                    time.sleep(REQUEST)
                    end = time.monotonic()
                with lock:
                    turns.append((start, end))
        except BaseException as exc:  # surfaced in the test thread below
            errors.append(exc)
        finally:
            if close_db:
                connection.close()

    threads = [threading.Thread(target=work) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors, errors
    assert len(turns) == workers * turns_each
    return turns


# --- in-process ---------------------------------------------------------------------------------
def test_local_gate_serialises_threads_and_spaces_them():
    gate = LocalRequestGate(DELAY)
    _assert_serialised_and_spaced(_run_workers(lambda: gate))


# --- database -----------------------------------------------------------------------------------
@pytest.mark.django_db(transaction=True)
def test_database_gate_serialises_workers_and_spaces_them():
    name = f"test-{uuid.uuid4().hex[:8]}"
    turns = _run_workers(lambda: DatabaseRequestGate(name, DELAY, 5.0), close_db=True)
    _assert_serialised_and_spaced(turns)
    slot = ArxivRequestSlot.objects.get(name=name)
    assert slot.holder == ""
    assert slot.last_request_at > 0


@pytest.mark.django_db(transaction=True)
def test_database_gate_outlives_a_dead_holder():
    ArxivRequestSlot.objects.create(name="stale", holder="crashed", lease_until=time.time() + 0.3)
    started = time.monotonic()
    with DatabaseRequestGate("stale", 0.0, 5.0).turn():
        waited = time.monotonic() - started
        assert ArxivRequestSlot.objects.get(name="stale").holder != "crashed"
    assert 0.25 <= waited < 3


@pytest.mark.django_db(transaction=True)
def test_database_gate_releases_only_its_own_lease():
    gate = DatabaseRequestGate("taken-over", 0.0, 5.0)
    with gate.turn():
        # Our lease ran out and someone else claimed the slot while we were still busy.
        ArxivRequestSlot.objects.filter(name="taken-over").update(holder="other", lease_until=1e12)
    slot = ArxivRequestSlot.objects.get(name="taken-over")
    assert slot.holder == "other"
    assert slot.last_request_at > time.time() - 5  # the request still counts for the spacing


@pytest.mark.django_db(transaction=True)
def test_database_gate_spaces_after_the_last_request_of_anyone():
    # Measured from the recorded request itself: on a slow machine the insert alone can take a
    # good part of DELAY, and the gate rightly counts that time as already waited.
    last_request_at = time.time()
    ArxivRequestSlot.objects.create(name="recent", last_request_at=last_request_at)
    with DatabaseRequestGate("recent", DELAY, 5.0).turn():
        assert time.time() - last_request_at >= DELAY - SLACK


# --- Redis --------------------------------------------------------------------------------------
def _redis_or_skip():
    import redis

    client = redis.Redis(host="127.0.0.1", port=6379, socket_connect_timeout=1)
    try:
        client.ping()
    except redis.ConnectionError:
        if os.environ.get("PAPERSCOPE_TEST_SERVICES"):
            raise  # the services run in this configuration: a missing Redis is a failure
        pytest.skip("Redis is not running at 127.0.0.1:6379")
    return client


@pytest.fixture
def redis_gate_name():
    client = _redis_or_skip()
    name = f"test-{uuid.uuid4().hex[:8]}"
    yield name
    client.delete(f"paperscope:gate:{name}:lease", f"paperscope:gate:{name}:last")


def _redis_gate(name: str, delay: float = DELAY) -> RedisRequestGate:
    import redis

    return RedisRequestGate(redis.Redis(host="127.0.0.1", port=6379), name, delay, 5.0)


def test_redis_gate_serialises_threads_and_spaces_them(redis_gate_name):
    _assert_serialised_and_spaced(_run_workers(lambda: _redis_gate(redis_gate_name)))


def _process_worker(name: str, queue) -> None:
    gate = _redis_gate(name)
    for _ in range(3):
        with gate.turn():
            start = time.monotonic()
            time.sleep(REQUEST)
            end = time.monotonic()
        queue.put((start, end))


def test_redis_gate_serialises_processes_and_spaces_them(redis_gate_name):
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    processes = [
        context.Process(target=_process_worker, args=(redis_gate_name, queue)) for _ in range(2)
    ]
    for process in processes:
        process.start()
    turns = [queue.get(timeout=30) for _ in range(6)]
    for process in processes:
        process.join(timeout=30)
        assert process.exitcode == 0
    _assert_serialised_and_spaced(turns)


def test_redis_gate_outlives_a_dead_holder(redis_gate_name):
    import redis

    client = redis.Redis(host="127.0.0.1", port=6379)
    client.set(f"paperscope:gate:{redis_gate_name}:lease", "crashed", px=300)
    started = time.monotonic()
    with _redis_gate(redis_gate_name, 0.0).turn():
        waited = time.monotonic() - started
    assert 0.25 <= waited < 3


def test_redis_gate_releases_only_its_own_lease(redis_gate_name):
    import redis

    client = redis.Redis(host="127.0.0.1", port=6379)
    lease = f"paperscope:gate:{redis_gate_name}:lease"
    with _redis_gate(redis_gate_name).turn():
        client.set(lease, "other", px=5000)
    assert client.get(lease) == b"other"
    assert client.get(f"paperscope:gate:{redis_gate_name}:last") is not None


# --- configuration ------------------------------------------------------------------------------
def test_gate_from_settings_picks_redis_when_configured():
    with override_settings(REDIS_URL="redis://127.0.0.1:6379/0", ARXIV_REQUEST_DELAY=3.0):
        gate = gate_from_settings()
    assert isinstance(gate, RedisRequestGate)
    assert gate.delay == 3.0
    with override_settings(REDIS_URL=None, ARXIV_REQUEST_DELAY=1.5):
        gate = gate_from_settings()
    assert isinstance(gate, DatabaseRequestGate)
    assert gate.delay == 1.5
