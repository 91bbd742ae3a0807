"""On-demand fetching of papers that someone asked about and we do not have yet."""

from __future__ import annotations

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import F

from papers.models import PendingLookup
from papers.services.harvest import harvest_ids
from papers.services.storage import UpsertResult

# Ids asked for within this many seconds share one query-API request (up to 100 ids each).
COALESCE_SECONDS = 1
MAX_ATTEMPTS = 5


def pending_register(*, arxiv_ids: list[str]) -> None:
    """Remember unknown ids and schedule one fetch for all that arrive close together."""
    if not arxiv_ids:
        return
    PendingLookup.objects.bulk_create(
        [PendingLookup(arxiv_id=arxiv_id) for arxiv_id in arxiv_ids], ignore_conflicts=True
    )
    if settings.ARXIV_FETCH_ON_DEMAND and cache.add(
        "papers:fetch-pending-scheduled", 1, timeout=COALESCE_SECONDS
    ):
        from papers.tasks import fetch_pending_task

        # Robust: when the broker went away since the cache answered, the error is logged and
        # the request still answers; the ids are stored, and the next fetch takes every pending
        # one (docs/faults.md).
        transaction.on_commit(
            lambda: fetch_pending_task.apply_async(countdown=COALESCE_SECONDS), robust=True
        )


def pending_fetch() -> UpsertResult:
    """Fetch all pending ids that arXiv has not yet said are unknown."""
    pending = PendingLookup.objects.filter(not_found=False, attempts__lt=MAX_ATTEMPTS)
    ids = list(pending.order_by("requested_at").values_list("arxiv_id", flat=True)[:1000])
    if not ids:
        return UpsertResult()
    PendingLookup.objects.filter(arxiv_id__in=ids).update(attempts=F("attempts") + 1)
    return harvest_ids(arxiv_ids=ids)
