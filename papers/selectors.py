"""Reads of the papers app."""

from __future__ import annotations

import re
from datetime import date

from django.db.models import Prefetch, Q, QuerySet

from papers.models import Paper
from topics.models import PaperTopic


def tags_prefetch() -> Prefetch:
    """Each paper's tags, best first, with their topic in the same query."""
    return Prefetch(
        "tags",
        queryset=PaperTopic.objects.filter(topic__active=True)
        .select_related("topic", "topic__area")
        .order_by("rank", "-score"),
    )


def paper_get(*, arxiv_id: str) -> Paper | None:
    return Paper.objects.prefetch_related(tags_prefetch()).filter(arxiv_id=arxiv_id).first()


def papers_by_ids(*, arxiv_ids: list[str]) -> dict[str, Paper]:
    papers = Paper.objects.filter(arxiv_id__in=arxiv_ids).prefetch_related(tags_prefetch())
    return {paper.arxiv_id: paper for paper in papers}


def category_filter(category: str) -> Q:
    """Word-bounded match in the space-separated category list (works on SQLite and PostgreSQL)."""
    escaped = re.escape(category)
    return Q(categories__regex=rf"(^| ){escaped}( |$)")


def paper_list(
    *,
    topic_slug: str | None = None,
    query: str | None = None,
    since: date | None = None,
    category: str | None = None,
) -> QuerySet[Paper]:
    papers = Paper.objects.all()
    if topic_slug:
        papers = papers.filter(tags__topic__slug=topic_slug)
    if since:
        papers = papers.filter(announced__gte=since)
    if category:
        papers = papers.filter(category_filter(category))
    if query:
        from papers.search import search_filter

        papers = search_filter(papers, query)
    return papers.prefetch_related(tags_prefetch())
