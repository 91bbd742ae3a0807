"""Reads of the papers app."""

from __future__ import annotations

import re
from datetime import date

from django.db.models import Prefetch, Q, QuerySet

from papers.models import Paper
from topics.models import PaperTopic, Topic


def tags_prefetch() -> Prefetch:
    """Each paper's tags, best first, with their topics and the topics' areas: one query each,
    every topic built once however many tags it has (a page of 25 papers has ~100 tags but
    ~30 distinct topics in ~6 areas; select_related would build 200 topics)."""
    return Prefetch(
        "tags",
        queryset=PaperTopic.objects.filter(topic__active=True)
        .order_by("rank", "-score")
        .prefetch_related("topic", "topic__area"),
    )


def paper_get(*, arxiv_id: str) -> Paper | None:
    return Paper.objects.prefetch_related(tags_prefetch()).filter(arxiv_id=arxiv_id).first()


def papers_in_order(*, paper_ids: list[int]) -> list[Paper]:
    """These papers (by primary key) with their tags, in the order given."""
    papers = Paper.objects.filter(id__in=paper_ids).prefetch_related(tags_prefetch()).in_bulk()
    return [papers[pk] for pk in paper_ids if pk in papers]


def papers_by_ids(*, arxiv_ids: list[str]) -> dict[str, Paper]:
    papers = Paper.objects.filter(arxiv_id__in=arxiv_ids).prefetch_related(tags_prefetch())
    return {paper.arxiv_id: paper for paper in papers}


def paper_lookup_rows(*, arxiv_ids: list[str]) -> dict[str, dict]:
    """The batch lookup's rows for these canonical ids, by id, in LookupPaperOutput's shape:
    arxiv_id, version, title, primary_category and the tags best first (slug, name, area,
    score, rank, source), exactly what papers.serializers.LookupPaperOutput makes of a paper.

    Built from three narrow queries without model instances: for the extension's 2,000 ids,
    models with prefetched tags and topics (papers_by_ids) take 5x as long as the rest of the
    request, most of it building ~10,000 model instances and collecting them again.
    """
    rows: dict[str, dict] = {}
    tags_of: dict[int, list[dict]] = {}
    papers = Paper.objects.filter(arxiv_id__in=arxiv_ids).values_list(
        "id", "arxiv_id", "version", "title", "primary_category"
    )
    for pk, arxiv_id, version, title, primary_category in papers:
        tags_of[pk] = []
        rows[arxiv_id] = {
            "arxiv_id": arxiv_id,
            "version": version,
            "title": title,
            "primary_category": primary_category,
            "tags": tags_of[pk],
        }
    if not tags_of:
        return rows
    tags = list(
        PaperTopic.objects.filter(paper_id__in=list(tags_of), topic__active=True)
        .order_by("rank", "-score")
        .values_list("paper_id", "topic_id", "score", "rank", "source")
    )
    topics = {
        pk: (slug, name, area)
        for pk, slug, name, area in Topic.objects.filter(
            id__in={topic_id for _, topic_id, *_ in tags}
        ).values_list("id", "slug", "name", "area__slug")
    }
    for paper_id, topic_id, score, rank, source in tags:
        slug, name, area = topics[topic_id]
        tags_of[paper_id].append(
            dict(slug=slug, name=name, area=area, score=score, rank=rank, source=source)
        )
    return rows


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
