"""Celery tasks of the papers app: thin wrappers that call services with ids, never objects.

Task names are a public API (messages already queued carry them): rename with care.
"""

from __future__ import annotations

import logging
import random

from celery import shared_task

from papers.clients.errors import ArxivTransientError

logger = logging.getLogger(__name__)

MAX_RETRIES = 5
BACKOFF_SECONDS = 60
BACKOFF_MAX_SECONDS = 30 * 60


def retry_later(task, exc: ArxivTransientError):
    """Retry a transient failure: after what arXiv asked for (Retry-After), else with
    exponential backoff and full jitter. Permanent errors are never retried."""
    if exc.retry_after is not None:
        countdown = exc.retry_after
    else:
        ceiling = min(BACKOFF_MAX_SECONDS, BACKOFF_SECONDS * 2**task.request.retries)
        countdown = random.uniform(0, ceiling)
    logger.warning(
        "%s: %s; retry %d in %.0f s", task.name, exc, task.request.retries + 1, countdown
    )
    return task.retry(exc=exc, countdown=countdown, max_retries=MAX_RETRIES)


@shared_task(bind=True, name="papers.harvest_rss")
def harvest_rss_task(self, categories: list[str] | None = None) -> str:
    from papers.services.harvest import configured_rss_categories, harvest_rss

    try:
        return harvest_rss(categories=categories or configured_rss_categories()).summary()
    except ArxivTransientError as exc:
        raise retry_later(self, exc) from exc


@shared_task(bind=True, name="papers.harvest_oai")
def harvest_oai_task(self, set_spec: str | None = None) -> str:
    from papers.services.harvest import configured_oai_sets, harvest_oai

    specs = [set_spec] if set_spec else configured_oai_sets()
    try:
        return "; ".join(f"{spec}: {harvest_oai(set_spec=spec).summary()}" for spec in specs)
    except ArxivTransientError as exc:
        # Pages already stored stay stored; the retry resumes from the watermark.
        raise retry_later(self, exc) from exc


@shared_task(bind=True, name="papers.fetch_pending")
def fetch_pending_task(self) -> str:
    """Fetch the due ids the extension asked about and we did not have, in one coalesced batch;
    also run every few minutes by beat, for ids whose back-off is over. A transient failure is
    not retried here: each id carries its own back-off (papers.services.lookup)."""
    from django.conf import settings

    from papers.services.lookup import pending_fetch, pending_purge

    pending_purge()
    if not settings.ARXIV_FETCH_ON_DEMAND:
        return "on-demand fetching is off"
    try:
        return pending_fetch().summary()
    except ArxivTransientError as exc:
        logger.warning("%s: %s; the ids are retried after their back-off", self.name, exc)
        return f"failed: {exc}"


@shared_task(bind=True, name="papers.enrich")
def enrich_papers_task(self, arxiv_ids: list[str] | None = None) -> str:
    """Affiliations and citation counts from OpenAlex, for new papers after each harvest (or
    for every paper that is due when called without ids). Does nothing when OPENALEX_URL is
    empty."""
    from papers.clients.openalex import openalex_client
    from papers.services.enrich import enrich_papers

    client = openalex_client()
    if client is None:
        return "OpenAlex enrichment is off (OPENALEX_URL is empty)"
    try:
        return enrich_papers(client=client, arxiv_ids=arxiv_ids).summary()
    except ArxivTransientError as exc:
        # Batches already stored stay stored; the retry asks only for what is still due.
        raise retry_later(self, exc) from exc
    finally:
        client.http.close()
