"""The one test builder of papers (every app's tests use it). Rows are written directly (no
harvest, no tagger); every argument has a sensible default: pass only what a test is about."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from datetime import UTC, date, datetime, timedelta

from papers.models import Paper

_numbers = itertools.count(1)

LOREM_ABSTRACT = (
    "We study how agents learn from sparse rewards in long-horizon tasks. Our method combines a "
    "policy gradient estimator with a learned value baseline and a curriculum over goals. On "
    "standard continuous-control benchmarks it improves sample efficiency by a wide margin, and "
    "an ablation shows which components matter. We release code and trained models so that the "
    "results can be reproduced and extended by others working on the same problems."
)


def next_arxiv_id() -> str:
    """A new-style id no other builder call has handed out in this process."""
    return f"2503.{next(_numbers):05d}"


def paper_create(
    arxiv_id: str | None = None,
    *,
    title: str | None = None,
    abstract: str = LOREM_ABSTRACT,
    authors: list[str] | None = None,
    announced: date | None = date(2025, 3, 3),
    primary_category: str = "cs.LG",
    categories: str | None = None,
    version: int = 1,
    versions: list[dict] | None = None,
    topics: Iterable = (),
    **extra,
) -> Paper:
    """A paper; ``topics`` (Topic rows) are tagged in order, rank 1 first."""
    arxiv_id = arxiv_id or next_arxiv_id()
    submitted = datetime.combine(announced or date(2025, 3, 1), datetime.min.time(), UTC)
    if versions is None:
        versions = [
            {
                "version": v,
                "date": (submitted - timedelta(days=2) + timedelta(days=7 * (v - 1))).isoformat(),
                "size": f"{400 + v}kb",
            }
            for v in range(1, version + 1)
        ]
    extra.setdefault("submitted", submitted if announced else None)
    paper = Paper.objects.create(
        arxiv_id=arxiv_id,
        title=title or f"Paper {arxiv_id} on learning from sparse rewards",
        abstract=abstract,
        authors=authors if authors is not None else ["Ada Lovelace", "Alan Turing"],
        announced=announced,
        primary_category=primary_category,
        categories=categories if categories is not None else primary_category,
        version=version,
        versions=versions,
        **extra,
    )
    if topics:
        from topics.tests.factories import tag_create

        for rank, topic in enumerate(topics, start=1):
            tag_create(paper, topic, rank=rank)
    return paper


def papers_bulk_create(arxiv_ids: Iterable[str], **fields) -> list[Paper]:
    """Many bare papers in one query (listing-size tests)."""
    return Paper.objects.bulk_create(
        Paper(arxiv_id=i, title=fields.get("title") or f"Paper {i}") for i in arxiv_ids
    )
