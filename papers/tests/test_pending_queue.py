"""Findings 4 and 5: the on-demand fetch queue is bounded and honest.

Ids of months that cannot exist yet are refused; each client and the whole queue have a bound;
newest-asked and real-looking ids are fetched first; what arXiv says does not exist expires; a
failed fetch backs off for hours and, after the last try, the lookup says `unavailable` instead
of `pending` for ever."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from django.utils import timezone

from papers.arxiv_ids import InvalidArxivId, parse_arxiv_id
from papers.clients.errors import ArxivTransientError
from papers.clients.records import Page
from papers.models import Paper, PendingLookup
from papers.services import lookup as lookup_services
from papers.tests.test_storage import record

pytestmark = pytest.mark.django_db


def _lookup(ids, address="10.20.0.1"):
    response = Client(REMOTE_ADDR=address).post(
        "/api/v1/papers/lookup", json.dumps({"ids": ids}), content_type="application/json"
    )
    return response


def _month_after(now: datetime) -> str:
    year, month = (now.year + 1, 1) if now.month == 12 else (now.year, now.month + 1)
    return f"{year % 100:02d}{month:02d}"


class FakeQueryClient:
    """Stands in for papers.clients.atom.QueryClient: knows some ids, or fails like an outage."""

    def __init__(self, known=(), *, fail: bool = False) -> None:
        self.known = set(known)
        self.fail = fail
        self.asked: list[list[str]] = []

    def fetch_ids_in_batches(self, ids):
        self.asked.append(list(ids))
        if self.fail:
            raise ArxivTransientError("503 Service Unavailable")
        yield Page(records=[record(i) for i in ids if i in self.known])


# --- finding 4: ids that cannot exist yet -----------------------------------------------------


def test_the_probes_future_id_is_refused_and_not_queued():
    response = _lookup(["9912.00001", "2501.00001"])

    assert response.status_code == 400
    assert response.json()["invalid_ids"] == ["9912.00001"]
    assert not PendingLookup.objects.exists()


def test_next_months_ids_are_refused_this_months_accepted():
    now = datetime.now(UTC)
    with pytest.raises(InvalidArxivId, match="not given out yet"):
        parse_arxiv_id(f"{_month_after(now)}.00001")
    this_month = f"{now.year % 100:02d}{now.month:02d}.00001"
    assert parse_arxiv_id(this_month).canonical == this_month


# --- finding 4: bounds per client and in total --------------------------------------------------


def _ids(start: int, count: int, month: str = "2501") -> list[str]:
    return [f"{month}.{n:05d}" for n in range(start, start + count)]


def test_one_client_cannot_queue_more_than_its_share(monkeypatch):
    monkeypatch.setattr(lookup_services, "PENDING_PER_CLIENT", 50)

    bodies = [_lookup(_ids(1 + 40 * n, 40)).json() for n in range(3)]

    assert PendingLookup.objects.count() == 50
    assert [len(b["pending"]) for b in bodies] == [40, 10, 0]
    assert [len(b["unavailable"]) for b in bodies] == [0, 30, 40]
    # Another client still has a share of its own.
    assert len(_lookup(_ids(500, 5), address="10.20.0.2").json()["pending"]) == 5
    assert PendingLookup.objects.count() == 55


def test_asking_again_about_queued_ids_costs_nothing(monkeypatch):
    monkeypatch.setattr(lookup_services, "PENDING_PER_CLIENT", 50)
    for _ in range(5):
        assert len(_lookup(_ids(1, 40)).json()["pending"]) == 40
    assert PendingLookup.objects.count() == 40


def test_the_whole_queue_has_a_bound(monkeypatch):
    monkeypatch.setattr(lookup_services, "PENDING_MAX", 100)

    for n in range(3):
        _lookup(_ids(1 + 80 * n, 80), address=f"10.21.0.{n}")

    assert PendingLookup.objects.count() == 100


# --- finding 4: what is fetched first -------------------------------------------------------------


def test_real_looking_ids_are_fetched_before_junk(monkeypatch):
    monkeypatch.setattr(lookup_services, "FETCH_BATCH", 10)
    Paper.objects.create(arxiv_id="2501.00010", title="Known")
    junk = _ids(60000, 300)  # far beyond any number 2501 gave out
    lookup_services.pending_register(arxiv_ids=junk, client="10.22.0.1")
    lookup_services.pending_register(arxiv_ids=["2501.00011"], client="10.22.0.2")
    client = FakeQueryClient(known=["2501.00011"])

    lookup_services.pending_fetch(client=client)

    assert "2501.00011" in client.asked[0]
    assert Paper.objects.filter(arxiv_id="2501.00011").exists()
    assert not PendingLookup.objects.filter(arxiv_id="2501.00011").exists()


def test_the_newest_asked_ids_are_fetched_first(monkeypatch):
    monkeypatch.setattr(lookup_services, "FETCH_BATCH", 5)
    lookup_services.pending_register(arxiv_ids=_ids(1, 20), client="10.23.0.1")
    PendingLookup.objects.update(asked_at=timezone.now() - timedelta(minutes=5))
    lookup_services.pending_register(arxiv_ids=_ids(100, 5), client="10.23.0.2")
    client = FakeQueryClient()

    lookup_services.pending_fetch(client=client)

    assert sorted(client.asked[0]) == _ids(100, 5)


def test_what_arxiv_does_not_know_expires():
    old = timezone.now() - lookup_services.NOT_FOUND_TTL - timedelta(hours=1)
    PendingLookup.objects.create(arxiv_id="2501.00404", not_found=True)
    PendingLookup.objects.create(arxiv_id="2501.00405", not_found=True)
    # Marked long ago, though asked about again just now: it is checked again.
    PendingLookup.objects.filter(arxiv_id="2501.00404").update(
        next_attempt_at=old, requested_at=old
    )
    stale = timezone.now() - lookup_services.PENDING_TTL - timedelta(hours=1)
    PendingLookup.objects.create(arxiv_id="2501.00406")
    PendingLookup.objects.filter(arxiv_id="2501.00406").update(asked_at=stale, requested_at=stale)

    lookup_services.pending_purge()

    assert list(PendingLookup.objects.values_list("arxiv_id", flat=True)) == ["2501.00405"]


# --- finding 5: after an outage --------------------------------------------------------------


def test_a_failed_fetch_backs_off_and_is_retried_later():
    lookup_services.pending_register(arxiv_ids=["2501.00007"], client="10.24.0.1")
    down = FakeQueryClient(fail=True)

    with pytest.raises(ArxivTransientError):
        lookup_services.pending_fetch(client=down)

    row = PendingLookup.objects.get()
    assert row.attempts == 1
    assert row.next_attempt_at > timezone.now() + timedelta(minutes=5)
    # Not due yet: nothing is asked.
    lookup_services.pending_fetch(client=down)
    assert len(down.asked) == 1
    # Once the back-off is over it is tried again, and arrives.
    PendingLookup.objects.update(next_attempt_at=timezone.now())
    up = FakeQueryClient(known=["2501.00007"])
    lookup_services.pending_fetch(client=up)
    assert Paper.objects.filter(arxiv_id="2501.00007").exists()
    assert not PendingLookup.objects.exists()


def test_back_off_grows_to_hours():
    delays = [lookup_services.retry_delay(n) for n in range(1, lookup_services.MAX_ATTEMPTS)]
    assert delays == sorted(delays)
    assert delays[-1] >= timedelta(hours=2)


def test_after_the_last_try_the_lookup_says_unavailable_not_pending():
    lookup_services.pending_register(arxiv_ids=["2501.00008"], client="10.25.0.1")
    down = FakeQueryClient(fail=True)
    for _ in range(lookup_services.MAX_ATTEMPTS):
        PendingLookup.objects.update(next_attempt_at=timezone.now())
        with pytest.raises(ArxivTransientError):
            lookup_services.pending_fetch(client=down)
    PendingLookup.objects.update(next_attempt_at=timezone.now() - timedelta(seconds=1))

    body = _lookup(["2501.00008"]).json()

    assert body["pending"] == []
    assert body["unavailable"] == ["2501.00008"]
    assert PendingLookup.objects.get().attempts == lookup_services.MAX_ATTEMPTS
    lookup_services.pending_fetch(client=down)
    assert len(down.asked) == lookup_services.MAX_ATTEMPTS  # no more tries


def test_an_unavailable_id_asked_again_a_day_later_is_queued_again():
    PendingLookup.objects.create(
        arxiv_id="2501.00009",
        attempts=lookup_services.MAX_ATTEMPTS,
        next_attempt_at=timezone.now() - lookup_services.REVIVE_AFTER - timedelta(minutes=1),
    )

    body = _lookup(["2501.00009"]).json()

    assert body["pending"] == ["2501.00009"]
    row = PendingLookup.objects.get()
    assert row.attempts == 0
    assert row.next_attempt_at <= timezone.now()
