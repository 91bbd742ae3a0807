"""Harvesting arXiv: OAI-PMH for bulk and catch-up, RSS after each announcement, the query API
for single ids. Every page is stored in its own transaction together with the watermark that
says it is done, so a worker killed mid-harvest resumes where the last committed page ended."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable
from datetime import date, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from papers.clients.atom import QueryClient
from papers.clients.errors import BadResumptionToken
from papers.clients.factory import oai_client, query_client, rss_client
from papers.clients.oai import OaiClient
from papers.clients.records import Page
from papers.clients.rss import RssClient
from papers.models import HarvestWatermark, PendingLookup
from papers.services.storage import UpsertResult, page_store

logger = logging.getLogger(__name__)

# arXiv sometimes publishes a datestamp range late; every run looks back this far again.
RECHECK_DAYS = 3
# An expired resumption token restarts the list; twice in one run means something else is wrong.
MAX_LIST_RESTARTS = 2

Progress = Callable[[str], None]


def _quiet(_: str) -> None:
    return None


def watermark_get(*, source: str) -> dict:
    row = HarvestWatermark.objects.filter(source=source).first()
    return json.loads(row.value) if row and row.value else {}


def watermark_set(*, source: str, state: dict) -> None:
    HarvestWatermark.objects.update_or_create(
        source=source, defaults={"value": json.dumps(state, sort_keys=True)}
    )


def _store_and_advance(*, page: Page, source: str, state: dict) -> UpsertResult:
    """Store a page and move the watermark in one transaction: both land or neither does."""
    with transaction.atomic():
        result = page_store(page=page, source=source)
        watermark_set(source=source, state=state)
        _queue_tagging_on_commit(result.retag_ids)
    return result


def _queue_tagging_on_commit(paper_ids: list[int]) -> None:
    if not paper_ids:
        return
    from topics.tasks import tag_papers_task  # tagging belongs to topics; imported late

    ids = list(paper_ids)
    transaction.on_commit(lambda: tag_papers_task.delay(ids))


def harvest_oai(
    *,
    set_spec: str,
    from_date: date | None = None,
    metadata_prefix: str = "arXivRaw",
    progress: Progress = _quiet,
    client: OaiClient | None = None,
) -> UpsertResult:
    """Harvest one OAI-PMH set incrementally by datestamp, following resumption tokens.

    Starts from `from_date`, else from the stored watermark less RECHECK_DAYS, else from seven days
    ago. An interrupted list resumes from its stored token; an expired token restarts the list
    from its start date. Raises ArxivTransientError / ArxivPermanentError from the client.
    """
    source = f"oai:{metadata_prefix}:{set_spec}"
    state = watermark_get(source=source)
    if from_date is not None:
        state = {"from": from_date.isoformat()}
    elif not state.get("token"):
        last = date.fromisoformat(state["until"]) if state.get("until") else None
        start = (
            (last - timedelta(days=RECHECK_DAYS))
            if last
            else (timezone.now().date() - timedelta(days=7))
        )
        state = {"from": start.isoformat()}
    total = UpsertResult()
    client = client or oai_client()
    token = state.get("token")
    newest = date.fromisoformat(state["newest"]) if state.get("newest") else None
    for attempt in range(MAX_LIST_RESTARTS + 1):
        try:
            pages = client.list_records(
                metadata_prefix=metadata_prefix,
                set_spec=set_spec,
                from_date=date.fromisoformat(state["from"]),
                resumption_token=token,
            )
            for page in pages:
                stamps = [r.datestamp for r in page.records if r.datestamp]
                if stamps:
                    newest = max([newest, *stamps] if newest else stamps)
                token = page.resumption_token
                next_state = {"from": state["from"], "token": token}
                if newest:
                    next_state["newest"] = newest.isoformat()
                if not token:
                    # The list is complete: the next run starts from the newest datestamp seen.
                    next_state = {
                        "until": (newest or date.fromisoformat(state["from"])).isoformat()
                    }
                total.add(_store_and_advance(page=page, source=source, state=next_state))
                progress(f"{source}: {total.summary()}")
            return total
        except BadResumptionToken:
            if token is None or attempt == MAX_LIST_RESTARTS:
                raise
            # Tokens expire (after about a day): what was stored stays, the list starts over.
            logger.warning(
                "%s: resumption token expired, restarting from %s", source, state["from"]
            )
            token = None
    return total


def harvest_rss(
    *, categories: Iterable[str], progress: Progress = _quiet, client: RssClient | None = None
) -> UpsertResult:
    """Fetch the announcement feed of the given categories and store it."""
    cats = sorted(set(categories))
    source = "rss:" + "+".join(cats)
    page = (client or rss_client()).fetch(cats)
    state = {"announced": page.announced.isoformat() if page.announced else None}
    result = _store_and_advance(page=page, source=source, state=state)
    progress(f"{source}: {result.summary()}")
    return result


def harvest_ids(
    *, arxiv_ids: list[str], progress: Progress = _quiet, client: QueryClient | None = None
) -> UpsertResult:
    """Fetch papers by id from the query API (batches of 100) and store them.

    Ids that arXiv does not know are marked not found in the pending lookups, so the extension
    stops waiting for them; found ones leave the pending list.
    """
    total = UpsertResult()
    for page in (client or query_client()).fetch_ids_in_batches(arxiv_ids):
        with transaction.atomic():
            result = page_store(page=page, source="api")
            found = {r.arxiv_id for r in page.records}
            PendingLookup.objects.filter(arxiv_id__in=found).delete()
            _queue_tagging_on_commit(result.retag_ids)
        total.add(result)
        progress(f"api: {total.summary()}")
    asked = set(arxiv_ids)
    stored = set(
        PendingLookup.objects.filter(arxiv_id__in=asked).values_list("arxiv_id", flat=True)
    )
    PendingLookup.objects.filter(arxiv_id__in=stored).update(not_found=True)
    return total


def configured_rss_categories() -> list[str]:
    return list(settings.ARXIV_CATEGORIES)


def configured_oai_sets() -> list[str]:
    return list(settings.ARXIV_OAI_SETS)
