"""Tagging stored papers: run the tagger over a batch and replace the model's tags in one go."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import timedelta

from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from papers.models import Paper
from papers.paging import newest_first
from topics.models import PaperTopic
from topics.runtime import paper_input_from, refined_tagger_get, tagger_get
from topics.selectors import feedback_verdicts
from topics.services.chips import tags_arrange, tags_json, topic_tree
from topics.tagger.engine import Tagger

logger = logging.getLogger(__name__)

BATCH_SIZE = 500


def papers_tag(*, paper_ids: Iterable[int]) -> int:
    """Compute and store the model's tags for these papers, in batches; returns papers tagged.

    Tags people gave or curated (source user/curated) are kept; the model's own are replaced,
    so running it twice leaves the same rows. Rejections are honoured: a topic people rejected
    on a paper (net over everyone's votes) is not tagged again, nor are the topics below it, and
    a user tag the vote went against is removed (curated tags stay). The ancestors of kept tags
    are tagged too (with the model's own score for them), and ranks run over all of a paper's
    tags in display order (topics.tagger.chips), which is also what ``Paper.tags_json`` holds.
    Papers deleted since they were queued are skipped.
    """
    return _tag_in_batches(sorted(set(paper_ids)))


def _tag_in_batches(
    ids: list[int], progress=lambda _: None, *, refined: Tagger | None = None
) -> int:
    """Tag these papers in the order given, BATCH_SIZE at a time (the refined stage's slower
    tagger REFINE_BATCH at a time); returns papers tagged."""
    size = BATCH_SIZE if refined is None else REFINE_BATCH
    verb = "tagged" if refined is None else "refined"
    done = 0
    for start in range(0, len(ids), size):
        done += _tag_batch(ids[start : start + size], refined=refined)
        progress(f"{verb} {done}/{len(ids)}")
    return done


def _tag_batch(paper_ids: list[int], *, refined: Tagger | None = None) -> int:
    """Tag these papers with the fast path, or with the ``refined`` stage's tagger."""
    papers = list(
        Paper.objects.filter(id__in=paper_ids).only(
            "id", "arxiv_id", "title", "abstract", "categories", "authors"
        )
    )
    if not papers:
        return 0
    tagger = refined if refined is not None else tagger_get()
    results = tagger.tag_batch([paper_input_from(p) for p in papers])
    tree = topic_tree()
    topics = {node.slug: pk for pk, node in tree.items() if node.active}
    ids = [p.id for p in papers]
    rejected: dict[int, set[int]] = {}
    for (paper_id, topic_id), verdict in feedback_verdicts(paper_ids=ids).items():
        if not verdict.confirm:
            rejected.setdefault(paper_id, set()).add(topic_id)
    kept: dict[int, list[PaperTopic]] = {}
    for row in PaperTopic.objects.filter(paper_id__in=ids).exclude(source=PaperTopic.Source.MODEL):
        kept.setdefault(row.paper_id, []).append(row)

    def blocked(paper_id: int, topic_id: int) -> bool:
        """Rejected on this paper, or below a rejected topic."""
        no = rejected.get(paper_id, ())
        node = tree.get(topic_id)
        return topic_id in no or any(a in no for a in (node.ancestors if node else ()))

    rows, dropped, reranked, chips = [], [], [], []
    implied_of_kept: list[tuple[int, PaperTopic]] = []  # (paper index, row): scored below
    for index, (paper, tags) in enumerate(zip(papers, results, strict=True)):
        mine = []
        for row in kept.get(paper.id, ()):
            if row.source == PaperTopic.Source.USER and row.topic_id in rejected.get(paper.id, ()):
                dropped.append(row.id)
            else:
                mine.append(row)
        have = {row.topic_id for row in mine}
        new = []
        for tag in tags:
            found = topics.get(tag.slug)
            if found is None:
                continue  # retired between building the tagger and now
            topic_id = found
            if topic_id in have or blocked(paper.id, topic_id):
                continue
            have.add(topic_id)
            new.append(
                PaperTopic(
                    paper_id=paper.id,
                    topic_id=topic_id,
                    score=round(float(tag.score), 4),
                    rank=tag.rank,
                    chip_order=None if tag.chip_order is None else round(tag.chip_order, 4),
                    source=PaperTopic.Source.MODEL,
                    evidence=tag.evidence,
                    model_version=tagger.model_version,
                )
            )
        for row in mine:  # a kept tag implies its ancestors
            node = tree.get(row.topic_id)
            for ancestor in node.ancestors if node else ():
                if ancestor in have or blocked(paper.id, ancestor):
                    continue
                have.add(ancestor)
                implied = PaperTopic(
                    paper_id=paper.id,
                    topic_id=ancestor,
                    score=0.0,
                    rank=0,
                    source=PaperTopic.Source.MODEL,
                    evidence={"implied_by_source": row.source},
                    model_version=tagger.model_version,
                )
                new.append(implied)
                implied_of_kept.append((index, implied))
        rows.extend(new)
        chips.append((paper.id, mine, new))
    _score_implied(tagger, papers, implied_of_kept, tree)
    json_of = {}
    for paper_id, mine, new in chips:
        before = {row.pk: (row.rank, row.shown, row.implied) for row in mine}
        ordered = tags_arrange([*mine, *new], tree)
        reranked += [r for r in mine if before[r.pk] != (r.rank, r.shown, r.implied)]
        json_of[paper_id] = tags_json(ordered, tree)
    now = timezone.now()
    with transaction.atomic():
        PaperTopic.objects.filter(paper_id__in=ids, source=PaperTopic.Source.MODEL).delete()
        if dropped:
            PaperTopic.objects.filter(id__in=dropped).delete()
        PaperTopic.objects.bulk_create(rows, ignore_conflicts=True, batch_size=1000)
        if reranked:
            PaperTopic.objects.bulk_update(reranked, ["rank", "shown", "implied"], batch_size=1000)
        refined_at = now if refined is not None else None  # None: the refine sweep's again
        Paper.objects.bulk_update(
            [
                Paper(pk=pk, tags_json=text, tagged_at=now, refined_at=refined_at)
                for pk, text in json_of.items()
            ],
            ["tags_json", "tagged_at", "refined_at"],
            batch_size=500,
        )
    return len(papers)


def _score_implied(tagger, papers, implied: list[tuple[int, PaperTopic]], tree) -> None:
    """Give the ancestors implied by people's and editors' tags the model's own score for them
    (the tagger did not select them; copying the child's score would claim a confidence the
    model never gave)."""
    if not implied:
        return
    wanted = sorted({i for i, _ in implied})
    own = tagger.own_scores([paper_input_from(papers[i]) for i in wanted])
    row_of = {i: n for n, i in enumerate(wanted)}
    for i, row in implied:
        row.score = round(float(own[row_of[i]].get(tree[row.topic_id].slug, 0.0)), 4)


# A paper stored this long ago and still untagged has lost its tagging task (a worker killed in
# the middle of a batch hands it back only after the broker's visibility timeout, two hours; a
# queue can be lost with Redis). Long enough that a paper merely waiting in a busy queue is
# rarely picked twice; a paper tagged twice gets the same tags, the second time costs ~1 ms.
STRAGGLER_AGE = timedelta(minutes=30)
STRAGGLER_LIMIT = 5000  # per sweep: a few seconds of tagging


def papers_tag_stragglers(
    *, older_than: timedelta = STRAGGLER_AGE, limit: int = STRAGGLER_LIMIT
) -> int:
    """Tag the papers stored more than ``older_than`` ago that no tagging task has reached,
    oldest first, at most ``limit`` of them (the scheduled sweep, every ten minutes)."""
    cutoff = timezone.now() - older_than
    stragglers = Paper.objects.filter(tagged_at__isnull=True, created_at__lt=cutoff)
    ids = list(stragglers.order_by("id").values_list("id", flat=True)[:limit])
    done = _tag_in_batches(ids)
    if ids:
        logger.warning("tagged %d papers whose tagging task was lost", done)
    return done


def papers_retag_all(*, progress=lambda _: None) -> int:
    """Tag every stored paper again, newest first (an upgrade shipped a new scorer or taxonomy:
    what readers see first is current first). Curated and people's tags are kept, as always."""
    newest = newest_first(Paper.objects.all()).values_list("id", flat=True)
    return _tag_in_batches(list(newest), progress)


def papers_tag_untagged(*, progress=lambda _: None) -> int:
    """Tag every paper the tagger has not seen yet (start-up, after a bulk import)."""
    untagged = Paper.objects.filter(tagged_at__isnull=True).order_by("id")
    return _tag_in_batches(list(untagged.values_list("id", flat=True)), progress)


# The refined stage: the contextual encoder reads 50-100 papers a second on two cores, so each
# sweep takes a bounded share (about a minute of work) and the next sweep goes on, newest first:
# what readers see first is refined first, a day's announcements within minutes.
REFINE_LIMIT = 1500
REFINE_BATCH = 100  # papers per write: a sweep cut short keeps what it finished
# One sweep at a time across workers: a sweep still running when the next minute's starts would
# otherwise refine the same newest papers twice (seen under make run: a quarter of the work).
# The lock lapses after the task's hard time limit, so a killed sweep does not block the next.
REFINE_LOCK = "topics:refine-sweep"
REFINE_LOCK_SECONDS = 11 * 60


def papers_refine(*, limit: int | None = REFINE_LIMIT, progress=lambda _: None) -> int:
    """Tag again with the refined stage the newest papers the fast path tagged and the refined
    stage has not (at most ``limit``, None: all); returns papers refined (0 where the stage is
    off)."""
    tagger = refined_tagger_get()
    if tagger is None:
        return 0
    if cache.add(REFINE_LOCK, 1, REFINE_LOCK_SECONDS) is False:  # None: no cache, go on
        logger.info("a refine sweep is running already; this one leaves it the work")
        return 0
    try:
        due = Paper.objects.filter(tagged_at__isnull=False, refined_at__isnull=True)
        ids = list(newest_first(due).values_list("id", flat=True)[:limit])
        return _tag_in_batches(ids, progress, refined=tagger)
    finally:
        cache.delete(REFINE_LOCK)
