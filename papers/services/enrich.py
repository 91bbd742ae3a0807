"""Enrichment from OpenAlex: institutions per author and the citation count of stored papers.

Idempotent: each paper's values are *set* from OpenAlex's answer (never appended), so running a
batch twice, or a task retried after a fault, stores the same thing once. Each batch commits on
its own: a fault after it loses nothing already stored, and the papers of the failed batch keep
``enriched_at`` empty, so the next run asks for them again. Works OpenAlex does not know are
marked asked-about and asked again after RECHECK_AFTER (it indexes new arXiv papers within days).
"""

from __future__ import annotations

import logging
import re
import unicodedata
from dataclasses import dataclass
from datetime import timedelta

import httpx
from django.core.cache import cache
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from papers.clients.errors import ArxivTransientError
from papers.clients.openalex import BATCH_SIZE, OpenAlexClient, Work
from papers.models import Paper

logger = logging.getLogger(__name__)

RECHECK_AFTER = timedelta(days=3)
RECHECK_WITHIN = timedelta(days=60)  # papers announced longer ago than this are not re-asked
SWEEP_LIMIT = 2_000
# "OpenAlex is unreachable" is logged once per this long, however many tasks run meanwhile.
UNREACHABLE_SAID_FOR = 6 * 60 * 60
UNREACHABLE_KEY = "openalex:unreachable-said"


@dataclass
class EnrichResult:
    asked: int = 0
    found: int = 0
    unknown: int = 0
    requests: int = 0
    unreachable: bool = False

    def summary(self) -> str:
        text = (
            f"OpenAlex: {self.asked} papers asked about in {self.requests} requests, "
            f"{self.found} found, {self.unknown} unknown to it"
        )
        return text + (" (unreachable: stopped)" if self.unreachable else "")


def _name_key(name: str) -> str:
    """The last word of a name, without accents or case: how two spellings of one author meet."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    words = re.findall(r"[a-z]+", plain)
    return words[-1] if words else ""


def affiliations_for(paper: Paper, work: Work) -> list[list[str]]:
    """Institutions per author of `paper` (parallel to its authors): what arXiv gave where it
    gave something, else OpenAlex's, matched by position when both list the same number of
    authors, else by surname."""
    authors = [a for a in paper.authors or [] if isinstance(a, str)]
    given = list(paper.affiliations or [])
    by_position = len(work.authorships) == len(authors)
    by_name: dict[str, tuple[str, ...]] = {}
    for authorship in work.authorships:
        by_name.setdefault(_name_key(authorship.name), authorship.institutions)
    rows = []
    for index, author in enumerate(authors):
        existing = given[index] if index < len(given) else None
        existing = [existing] if isinstance(existing, str) else existing
        if existing and any(isinstance(e, str) and e.strip() for e in existing):
            rows.append([e for e in existing if isinstance(e, str) and e.strip()])
        elif by_position:
            rows.append(list(work.authorships[index].institutions))
        else:
            rows.append(list(by_name.get(_name_key(author), ())))
    return rows


def papers_to_enrich(*, limit: int = SWEEP_LIMIT) -> list[str]:
    """Never asked about, or unknown to OpenAlex, recent, and last asked a while ago."""
    now = timezone.now()
    due = Q(enriched_at__isnull=True) | Q(
        openalex_id="",
        enriched_at__lt=now - RECHECK_AFTER,
        announced__gte=(now - RECHECK_WITHIN).date(),
    )
    rows = Paper.objects.filter(due).order_by("-announced", "-id")
    return list(rows.values_list("arxiv_id", flat=True)[:limit])


def _store(batch: list[str], works: dict[str, Work]) -> int:
    now = timezone.now()
    with transaction.atomic():
        papers = Paper.objects.select_for_update().filter(arxiv_id__in=batch)
        for paper in papers:
            work = works.get(paper.arxiv_id)
            if work is None:
                Paper.objects.filter(pk=paper.pk).update(enriched_at=now)
                continue
            Paper.objects.filter(pk=paper.pk).update(
                affiliations=affiliations_for(paper, work),
                cited_by_count=work.cited_by_count,
                openalex_id=work.openalex_id,
                enriched_at=now,
            )
    return len(works)


def _unreachable(exc: BaseException) -> bool:
    """Whether the failure was never getting a connection (not a slow or refusing server)."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, httpx.ConnectError | httpx.ConnectTimeout):
            return True
        cause = cause.__cause__
    return False


def enrich_papers(*, client: OpenAlexClient, arxiv_ids: list[str] | None = None) -> EnrichResult:
    """Ask OpenAlex about these papers (default: the ones due), 50 per request.

    Raises ArxivTransientError when OpenAlex keeps failing (the task retries later; batches
    already stored stay). When it cannot be reached at all, says so once and stops quietly.
    """
    ids = list(dict.fromkeys(arxiv_ids)) if arxiv_ids is not None else papers_to_enrich()
    result = EnrichResult()
    for start in range(0, len(ids), BATCH_SIZE):
        batch = ids[start : start + BATCH_SIZE]
        try:
            works = client.works(batch)
        except ArxivTransientError as exc:
            if not _unreachable(exc):
                raise
            result.unreachable = True
            if cache.add(UNREACHABLE_KEY, True, UNREACHABLE_SAID_FOR):
                logger.warning(
                    "OpenAlex (%s) is not reachable: papers are not enriched with affiliations "
                    "and citations until it is; the next harvest tries again",
                    client.works_url,
                )
            break
        result.requests += 1
        result.asked += len(batch)
        result.found += _store(batch, works)
        result.unknown += len(batch) - len(works)
    if result.requests and not result.unreachable:
        cache.delete(UNREACHABLE_KEY)
    return result
