"""Writing passages: a paper's title and abstract sentences (indexed on first use), and its full
text's passages once fetched."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence

from django.db import IntegrityError, transaction

from ask import embeddings
from ask.models import Passage
from ask.text import Chunk, sentences, squash
from papers.models import Paper

logger = logging.getLogger(__name__)

FULLTEXT_FIRST_POSITION = 1000  # full-text passages come after the abstract's


ABSTRACT_WINDOW = 3  # sentences per abstract passage; windows overlap by all but one sentence
TITLE_PASSAGES = False  # the title is context of every passage (its vector, the title column)


def _abstract_rows(paper: Paper) -> list[tuple[str, str, str]]:
    """(kind, section, text) of the passages of the title and abstract.

    The abstract becomes overlapping windows of ``ABSTRACT_WINDOW`` sentences: a question that
    restates the problem a paper solves finds the sentence that states the problem, and with it
    the next one, which so often holds the answer. The title is a passage of its own only when
    there is no abstract (otherwise it is the context of every passage)."""
    title = squash(paper.title)
    parts = sentences(paper.abstract)
    starts = range(max(1, len(parts) - ABSTRACT_WINDOW + 1)) if parts else range(0)
    rows = [
        (Passage.Kind.ABSTRACT, "Abstract", " ".join(parts[i : i + ABSTRACT_WINDOW]))
        for i in starts
    ]
    if title and (TITLE_PASSAGES or not rows):
        rows.insert(0, (Passage.Kind.TITLE, "", title))
    return rows


def passages_index_papers(*, papers: Iterable[Paper]) -> int:
    """Index the title and abstract sentences of every paper given that has no passages yet;
    the number of passages written. Safe to run twice or concurrently (the second run finds
    the passages, or loses the race on the unique (paper, position) and moves on)."""
    papers = list(papers)
    if not papers:
        return 0
    done = set(
        Passage.objects.filter(paper__in=papers, position=0).values_list("paper_id", flat=True)
    )
    todo = [p for p in papers if p.id not in done]
    if not todo:
        return 0
    rows: list[Passage] = []
    texts: list[str] = []
    titles: list[str] = []
    for paper in todo:
        title = squash(paper.title)
        for position, (kind, section, text) in enumerate(_abstract_rows(paper)):
            rows.append(
                Passage(paper=paper, kind=kind, section=section, position=position, text=text,
                        title=title)
            )  # fmt: skip
            texts.append(text)
            titles.append(title)
    vectors = embeddings.encode_in_context(texts, titles)
    for row, vector in zip(rows, vectors, strict=True):
        row.vector = embeddings.to_bytes(vector)
    try:
        with transaction.atomic():
            Passage.objects.bulk_create(rows, batch_size=500)
    except IntegrityError:
        # Another request indexed some of these papers meanwhile: write the rest one by one.
        written = 0
        for paper in todo:
            mine = [r for r in rows if r.paper_id == paper.id]
            try:
                with transaction.atomic():
                    Passage.objects.bulk_create(mine)
                written += len(mine)
            except IntegrityError:
                continue
        return written
    return len(rows)


@transaction.atomic
def passages_replace_fulltext(*, paper: Paper, chunks: Sequence[Chunk]) -> int:
    """Replace the paper's full-text passages with these; the number written."""
    Passage.objects.filter(paper=paper, kind=Passage.Kind.FULLTEXT).delete()
    if not chunks:
        return 0
    title = squash(paper.title)
    vectors = embeddings.encode_in_context(
        [f"{c.section}. {c.text}" for c in chunks], [title] * len(chunks)
    )
    Passage.objects.bulk_create(
        [
            Passage(paper=paper, kind=Passage.Kind.FULLTEXT, section=c.section[:300],
                    position=FULLTEXT_FIRST_POSITION + i, text=c.text, title=title,
                    vector=embeddings.to_bytes(v))
            for i, (c, v) in enumerate(zip(chunks, vectors, strict=True))
        ],
        batch_size=500,
    )  # fmt: skip
    return len(chunks)


def passages_index_pending(*, limit: int = 20_000, batch: int = 500) -> int:
    """Index the newest papers that have no passages yet, up to ``limit``; passages written."""
    from django.db.models import Exists, OuterRef

    indexed = Passage.objects.filter(paper=OuterRef("pk"), position=0)
    ids = list(
        Paper.objects.filter(~Exists(indexed))
        .order_by("-announced", "-id")
        .values_list("id", flat=True)[:limit]
    )
    written = 0
    for start in range(0, len(ids), batch):
        written += passages_index_papers(
            papers=Paper.objects.filter(id__in=ids[start : start + batch])
        )
    return written


SYNC_INDEX_PAPERS = 300  # papers a question may wait for (about a second) before its answer


def passages_index_for_question(*, paper_ids: list[int]) -> int:
    """Before answering over these papers (newest first): index the ones without passages, at
    most SYNC_INDEX_PAPERS of the newest; queue the rest for the worker (the schedule would
    reach them within minutes anyway). The number of papers left to the worker."""
    done = set(
        Passage.objects.filter(paper_id__in=paper_ids, position=0).values_list(
            "paper_id", flat=True
        )
    )
    missing = [i for i in paper_ids if i not in done]
    later = missing[SYNC_INDEX_PAPERS:]
    if later:
        from ask.tasks import passages_index_pending as passages_index_pending_task

        passages_index_pending_task.delay()
    papers = Paper.objects.in_bulk(missing[:SYNC_INDEX_PAPERS])
    passages_index_papers(papers=papers.values())
    return len(later)
