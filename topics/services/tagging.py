"""Tagging stored papers: run the tagger over a batch and replace the model's tags in one go."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.db import transaction
from django.utils import timezone

from papers.models import Paper
from topics.models import PaperTopic, Topic
from topics.selectors import tagger_get
from topics.tagger.engine import PaperInput

logger = logging.getLogger(__name__)

BATCH_SIZE = 500


def paper_input_from(paper: Paper) -> PaperInput:
    return PaperInput(
        id=paper.arxiv_id,
        title=paper.title,
        abstract=paper.abstract,
        categories=tuple(paper.category_list),
        authors=tuple(paper.authors),
    )


def papers_tag(*, paper_ids: Iterable[int]) -> int:
    """Compute and store the model's tags for these papers, in batches; returns papers tagged.

    Tags people gave or curated (source user/curated) are kept; the model's own are replaced,
    so running it twice leaves the same rows. Papers deleted since they were queued are skipped.
    """
    ids = sorted(set(paper_ids))
    tagged = 0
    for start in range(0, len(ids), BATCH_SIZE):
        tagged += _tag_batch(ids[start : start + BATCH_SIZE])
    return tagged


def _tag_batch(paper_ids: list[int]) -> int:
    papers = list(
        Paper.objects.filter(id__in=paper_ids).only(
            "id", "arxiv_id", "title", "abstract", "categories", "authors"
        )
    )
    if not papers:
        return 0
    tagger = tagger_get()
    results = tagger.tag_batch([paper_input_from(p) for p in papers])
    topic_ids = dict(Topic.objects.filter(active=True).values_list("slug", "id"))
    rows = []
    for paper, tags in zip(papers, results, strict=True):
        for tag in tags:
            topic_id = topic_ids.get(tag.slug)
            if topic_id is None:
                continue  # retired between building the tagger and now
            rows.append(
                PaperTopic(
                    paper_id=paper.id,
                    topic_id=topic_id,
                    score=round(float(tag.score), 4),
                    rank=tag.rank,
                    source=PaperTopic.Source.MODEL,
                    evidence=tag.evidence,
                    model_version=tagger.model_version,
                )
            )
    with transaction.atomic():
        PaperTopic.objects.filter(
            paper_id__in=[p.id for p in papers], source=PaperTopic.Source.MODEL
        ).delete()
        PaperTopic.objects.bulk_create(rows, ignore_conflicts=True, batch_size=1000)
        Paper.objects.filter(id__in=[p.id for p in papers]).update(tagged_at=timezone.now())
    return len(papers)


def papers_tag_untagged(*, progress=lambda _: None) -> int:
    """Tag every paper the tagger has not seen yet (start-up, after a bulk import)."""
    untagged = Paper.objects.filter(tagged_at__isnull=True).order_by("id")
    ids = list(untagged.values_list("id", flat=True))
    done = 0
    for start in range(0, len(ids), BATCH_SIZE):
        done += _tag_batch(ids[start : start + BATCH_SIZE])
        progress(f"tagged {done}/{len(ids)}")
    return done
