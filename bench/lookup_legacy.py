"""The batch lookup as it was before Paper.tags_json (commit 949823e), for bench_web.py's
``--lookup-ab``: the same request answered by the old and the new code path alternately in one
process, so that the comparison does not depend on the machine's load at two different times.

Old path: three narrow queries (papers, their tags, their topics), one dict per tag, DRF's
JSONRenderer over the whole answer. Kept here, out of the application, only to be measured.
"""

from __future__ import annotations

from rest_framework.response import Response


def paper_lookup_rows(*, arxiv_ids: list[str]) -> dict[str, dict]:
    from papers.models import Paper
    from topics.models import PaperTopic, Topic

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


def post(self, request):
    """PaperLookupApi.post of commit 949823e."""
    from config.api import BadRequest
    from papers.apis import MAX_LOOKUP_IDS
    from papers.arxiv_ids import split_valid_ids
    from papers.models import PendingLookup
    from papers.services.lookup import pending_register

    ids = request.data.get("ids") if isinstance(request.data, dict) else None
    if isinstance(ids, list) and len(ids) > MAX_LOOKUP_IDS:
        raise BadRequest(
            f"At most {MAX_LOOKUP_IDS} ids per lookup, got {len(ids)}.", code="too_many_ids"
        )
    body = self.LookupInput(data=request.data)
    body.is_valid(raise_exception=True)
    good, bad = split_valid_ids(body.validated_data["ids"])
    if bad:
        raise BadRequest(f"Not arXiv ids: {', '.join(bad[:20])}", code="invalid_arxiv_id")
    wanted = list(dict.fromkeys(i.canonical for i in good))
    known = paper_lookup_rows(arxiv_ids=wanted)
    missing = [arxiv_id for arxiv_id in wanted if arxiv_id not in known]
    not_found = set(
        PendingLookup.objects.filter(arxiv_id__in=missing, not_found=True).values_list(
            "arxiv_id", flat=True
        )
    )
    pending = [arxiv_id for arxiv_id in missing if arxiv_id not in not_found]
    pending_register(arxiv_ids=pending)
    return Response(
        {
            "papers": [known[i] for i in wanted if i in known],
            "pending": pending,
            "not_found": sorted(not_found),
        }
    )
