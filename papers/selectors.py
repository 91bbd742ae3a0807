"""Reads of the papers app."""

from __future__ import annotations

import json
import re
from datetime import date

from django.db import connection
from django.db.models import Prefetch, Q, QuerySet
from django.db.models.functions import Coalesce

from papers.models import Paper
from topics.models import PaperTopic


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


def paper_lookup_json(*, arxiv_ids: list[str]) -> dict[str, str]:
    """The batch lookup's entries for these canonical ids, by id, each already encoded as JSON
    in LookupPaperOutput's shape: arxiv_id, version, title, primary_category and the tags in
    display order (slug, name, area, score, confidence, rank, source, shown, implied).

    One query, no model instances and no per-tag work: the tags are ``Paper.tags_json``, which
    the tagging services keep current (topics.services.chips). For the extension's 2,000 ids,
    reading ~8 tag rows a paper and encoding them took most of the request. A paper whose
    ``tags_json`` is not built yet (NULL) gets it built from its stored tags here.
    """
    columns = ("id", "arxiv_id", "version", "title", "primary_category", "tags_json")
    # One parameter for all the ids instead of an IN list of 2,000. PostgreSQL: an array; the
    # ORM's form spent longer building, sending and planning the list, and converting rows, than
    # the server did finding them. SQLite (development, tests, the extension benchmark): a JSON
    # array; the ORM split the ids into IN lists of 999 and took ~5 ms to build them, as long as
    # the query (JSON1 is always there: Django's JSONField needs it).
    where: dict[str, tuple[str, list[str] | str]] = {
        "postgresql": ("arxiv_id = ANY(%s)", list(arxiv_ids)),
        "sqlite": ("arxiv_id IN (SELECT value FROM json_each(%s))", json.dumps(list(arxiv_ids))),
    }
    if connection.vendor in where:
        clause, param = where[connection.vendor]
        sql = f"SELECT {', '.join(columns)} FROM {Paper._meta.db_table} WHERE {clause}"  # noqa: S608
        with connection.cursor() as cursor:  # the names above are ours; the ids are bound
            cursor.execute(sql, [param])
            rows = cursor.fetchall()
    else:
        rows = list(Paper.objects.filter(arxiv_id__in=arxiv_ids).values_list(*columns))
    missing = [pk for pk, *_, tags in rows if tags is None]
    built = _tags_json_from_rows(paper_ids=missing) if missing else {}
    dumps = json.JSONEncoder(ensure_ascii=False).encode
    return {
        arxiv_id: (
            f'{{"arxiv_id":{dumps(arxiv_id)},"version":{int(version)},"title":{dumps(title)},'
            f'"primary_category":{dumps(primary_category)},"tags":{built.get(pk, tags) or "[]"}}}'
        )
        for pk, arxiv_id, version, title, primary_category, tags in rows
    }


def _tags_json_from_rows(*, paper_ids: list[int]) -> dict[int, str]:
    """``tags_json`` of papers whose copy is not built, from their stored tags (rank order)."""
    from topics.services.chips import tags_encode

    by_paper: dict[int, list[list]] = {pk: [] for pk in paper_ids}
    tags = (
        PaperTopic.objects.filter(paper_id__in=paper_ids, topic__active=True)
        .annotate(reader_confidence=Coalesce("chip_order", "score"))  # chips.tag_confidence
        .order_by("rank")
    )
    for paper_id, *entry in tags.values_list(
        "paper_id", "topic__slug", "topic__name", "topic__area__slug",
        "score", "reader_confidence", "rank", "source", "shown", "implied",
    ):  # fmt: skip
        by_paper[paper_id].append(entry)
    return {pk: tags_encode(entries) for pk, entries in by_paper.items()}


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
