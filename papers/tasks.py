"""Celery tasks of the papers app: thin wrappers that call services with ids, never objects.

Task names are a public API (messages already queued carry them): rename with care.
"""

from __future__ import annotations

import logging

from celery import shared_task

from papers.clients.errors import ArxivTransientError

logger = logging.getLogger(__name__)

HARVEST_RETRY = {
    "autoretry_for": (ArxivTransientError,),  # permanent errors are not retried
    "retry_backoff": 60,
    "retry_backoff_max": 30 * 60,
    "retry_jitter": True,
    "max_retries": 5,
}


@shared_task(name="papers.harvest_rss", **HARVEST_RETRY)
def harvest_rss_task(categories: list[str] | None = None) -> str:
    from papers.services.harvest import configured_rss_categories, harvest_rss

    return harvest_rss(categories=categories or configured_rss_categories()).summary()


@shared_task(name="papers.harvest_oai", **HARVEST_RETRY)
def harvest_oai_task(set_spec: str | None = None) -> str:
    from papers.services.harvest import configured_oai_sets, harvest_oai

    specs = [set_spec] if set_spec else configured_oai_sets()
    return "; ".join(f"{spec}: {harvest_oai(set_spec=spec).summary()}" for spec in specs)


@shared_task(name="papers.fetch_pending", **HARVEST_RETRY)
def fetch_pending_task() -> str:
    """Fetch every id the extension asked about and we did not have, in one coalesced batch."""
    from papers.services.lookup import pending_fetch

    return pending_fetch().summary()
