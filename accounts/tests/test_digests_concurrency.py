"""Exactly once with real concurrency: two workers (threads, each on its own database
connection) claiming the same batch, and a worker process killed with SIGKILL in the middle of
a batch, then resumed. Each person gets their digest once; nobody is skipped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from urllib.parse import quote

import pytest
from django.core import mail
from django.db import connection, connections
from django.utils import timezone

from accounts.models import DigestDelivery
from accounts.services.delivery import (
    BatchResult,
    deliveries_due,
    delivery_batch_send,
    digests_plan,
    run_pending_ids,
)
from accounts.tests.digests_support import arrived, eml_recipients, reader
from accounts.tests.test_concurrency import ThreadDatabase
from topics.tests.factories import topic_create

pytestmark = pytest.mark.django_db(transaction=True)
REPO = Path(__file__).resolve().parents[2]
READERS = 12


def _plan(count: int) -> list[int]:
    topic = topic_create("offline-rl", name="Offline RL")
    for number in range(count):
        reader(f"reader{number:02d}", topic)
    arrived(topics=[topic])
    return run_pending_ids(digests_plan())


def test_two_workers_claiming_the_same_batch_send_each_digest_once(flaky, tmp_path):
    ids = _plan(READERS)
    flaky.delay = 0.02  # each send takes a moment, so the two workers overlap throughout
    database = ThreadDatabase(tmp_path)
    barrier = threading.Barrier(2)

    def worker(_) -> BatchResult:
        database.attach()
        try:
            barrier.wait(timeout=30)
            return delivery_batch_send(delivery_ids=ids)
        finally:
            connections["default"].close()

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(worker, range(2)))

    sent = sorted(address for message in mail.outbox for address in message.to)
    assert sent == sorted(f"reader{n:02d}@example.org" for n in range(READERS))
    assert sum(r.sent for r in results) == READERS
    assert sum(r.not_claimed for r in results) == READERS  # every claim lost by one of the two
    states = database.run(lambda: list(DigestDelivery.objects.values_list("state", flat=True)))
    assert states == [DigestDelivery.State.SENT] * READERS


def _database_url(database: ThreadDatabase) -> str:
    if database.settings is not None:  # SQLite: the file copy the threads and processes share
        return f"sqlite:///{database.settings['NAME']}"
    db = connection.settings_dict
    credentials = quote(db["USER"]) + (f":{quote(db['PASSWORD'])}" if db["PASSWORD"] else "")
    return f"postgres://{credentials}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def test_a_worker_killed_mid_batch_resumes_without_a_second_copy_or_a_skip(
    tmp_path, settings, monkeypatch
):
    ids = _plan(6)
    database = ThreadDatabase(tmp_path)
    folder = tmp_path / "mail"
    folder.mkdir()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": _database_url(database),
        "EMAIL_BACKEND": "accounts.tests.mail_backends.StallingDirectoryBackend",
        "PAPERSCOPE_TEST_MAIL_DIR": str(folder),
        "PAPERSCOPE_TEST_STALL_AT": "3",  # hangs while sending the third digest
    }
    worker = subprocess.Popen(
        [sys.executable, "manage.py", "send_digests", "--resume"],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while not (folder / "stalled").exists():
        if worker.poll() is not None or time.monotonic() > deadline:
            worker.kill()
            pytest.fail(f"the worker did not reach its third send: {worker.stderr.read()!r}")
        time.sleep(0.05)
    os.kill(worker.pid, signal.SIGKILL)  # no cleanup, no except, no finally
    worker.wait(timeout=10)
    worker.stderr.close()

    assert len(eml_recipients(folder)) == 2
    states = database.run(
        lambda: dict(DigestDelivery.objects.values_list("user__username", "state"))
    )
    assert sorted(states.values()) == ["pending"] * 3 + ["sending"] + ["sent"] * 2

    # The broker gives the batch to another worker (acks_late): it sends the three nobody
    # had claimed, and leaves alone the two sent and the one the dead worker had claimed.
    settings.EMAIL_BACKEND = "accounts.tests.mail_backends.DirectoryBackend"
    monkeypatch.setenv("PAPERSCOPE_TEST_MAIL_DIR", str(folder))
    redelivered = database.run(lambda: delivery_batch_send(delivery_ids=ids))
    assert (redelivered.sent, redelivered.not_claimed) == (3, 3)

    # The resume task, once the dead worker's lease has run out, sends the one in flight.
    after_lease = timezone.now() + timedelta(seconds=settings.DIGEST_CLAIM_LEASE_SECONDS + 1)
    resumed = database.run(
        lambda: delivery_batch_send(
            delivery_ids=deliveries_due(now=after_lease), clock=lambda: after_lease
        )
    )
    assert resumed.sent == 1

    assert eml_recipients(folder) == sorted(f"reader{n:02d}@example.org" for n in range(6))
    final = database.run(lambda: set(DigestDelivery.objects.values_list("state", flat=True)))
    assert final == {DigestDelivery.State.SENT}
