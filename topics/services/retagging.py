"""Re-tagging the papers a topic edit may change (queued by topics.signals after the commit).

Candidates, newest first and at most ``RETAG_LIMIT`` in all:
1. papers tagged with an edited topic now (its tags may go, move or change score);
2. papers whose title or abstract contains one of its names, aliases or keywords (a database
   ``icontains`` pre-filter confirmed by the tagger's own phrase matcher, so "PPO" does not
   pick up "opposite");
3. among the newest ``SIMILARITY_SCAN`` papers, those for which the edited topic is now one of
   the tagger's candidates (similarity to the new description or keywords, or an example).
A paper tagged after the edit already reflects it and is skipped, and so is a paper never tagged
(the tagging queue has it). When more than ``BROAD_EDIT`` topics changed at once (a taxonomy
reload), the newest ``RETAG_LIMIT`` tagged papers are re-tagged.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime

from django.db.models import Q, QuerySet

from papers.models import Paper
from papers.paging import newest_first
from topics.models import PaperTopic, Topic
from topics.runtime import paper_input_from, tagger_get

logger = logging.getLogger(__name__)

RETAG_LIMIT = 5_000
BROAD_EDIT = 50
SIMILARITY_SCAN = 2_000
KEYWORD_SCAN = 4 * RETAG_LIMIT  # rows pre-filtered by the database, then checked by the matcher


def _phrase_variants(phrase: str) -> set[str]:
    phrase = " ".join(str(phrase).split())
    if len(phrase) < 3:
        return set()
    out = {phrase}
    if "-" in phrase:
        out |= {phrase.replace("-", " "), phrase.replace("-", "")}
    return {p for p in out if len(p) >= 3}


def _keyword_matches(base: QuerySet, topic: Topic, limit: int) -> list[int]:
    from topics.tagger.keywords import KeywordMatcher
    from topics.tagger.text import MAX_ABSTRACT_CHARS, MAX_TITLE_CHARS, clean

    phrases = set()
    for text in [topic.name, *topic.aliases, *topic.keywords]:
        phrases |= _phrase_variants(text)
    if not phrases:
        return []
    query = Q()
    for phrase in sorted(phrases):
        query |= Q(title__icontains=phrase) | Q(abstract__icontains=phrase)
    spec = _spec(topic)
    matcher = KeywordMatcher([spec])
    out = []
    rows = newest_first(base.filter(query)).values_list("id", "title", "abstract")[:KEYWORD_SCAN]
    for paper_id, title, abstract in rows.iterator(chunk_size=500):
        if matcher.match(clean(title, MAX_TITLE_CHARS), clean(abstract, MAX_ABSTRACT_CHARS)):
            out.append(paper_id)
            if len(out) >= limit:
                break
    return out


def _spec(topic: Topic):
    from topics.tagger.taxonomy import TopicSpec

    return TopicSpec(
        slug=topic.slug,
        name=topic.name,
        aliases=tuple(topic.aliases or ()),
        keywords=tuple(topic.keywords or ()),
    )


def _similar(base: QuerySet, slugs: set[str], exclude: set[int]) -> list[int]:
    """Newest papers for which one of ``slugs`` is among the tagger's scored candidates."""
    tagger = tagger_get()
    fields = ("id", "arxiv_id", "title", "abstract", "categories", "authors")
    papers = [p for p in newest_first(base).only(*fields)[:SIMILARITY_SCAN] if p.id not in exclude]
    if not papers:
        return []
    found = tagger.candidate_slugs([paper_input_from(p) for p in papers])
    return [p.id for p, cands in zip(papers, found, strict=True) if slugs.intersection(cands)]


def topics_retag_candidates(
    topic_ids: Iterable[int], *, edited_at: datetime | None = None, limit: int = RETAG_LIMIT
) -> list[int]:
    """Ids of the papers to re-tag after these topics changed, at most ``limit``."""
    topics = list(Topic.objects.filter(id__in=list(topic_ids)))
    if not topics:
        return []
    # Papers never tagged are left to the tagging queue (harvest and `make run` queue them);
    # papers tagged after the edit already reflect it.
    base = Paper.objects.filter(tagged_at__isnull=False)
    if edited_at is not None:
        base = base.filter(tagged_at__lt=edited_at)
    if not base.exists():
        return []
    if len(topics) > BROAD_EDIT:
        return list(newest_first(base).values_list("id", flat=True)[:limit])

    chosen: dict[int, None] = {}  # insertion-ordered set

    def take(ids: Iterable[int]) -> bool:
        for paper_id in ids:
            chosen.setdefault(paper_id, None)
            if len(chosen) >= limit:
                return True
        return False

    tagged = base.filter(
        id__in=PaperTopic.objects.filter(topic_id__in=[t.id for t in topics]).values("paper_id")
    )
    if take(newest_first(tagged).values_list("id", flat=True)[:limit]):
        return list(chosen)
    for topic in topics:
        if topic.active and take(_keyword_matches(base, topic, limit)):
            return list(chosen)
    active = {t.slug for t in topics if t.active}
    if active:
        take(_similar(base, active, set(chosen)))
    return list(chosen)


def topics_retag(
    *, topic_ids: Iterable[int], edited_at: str | datetime | None = None, limit: int = RETAG_LIMIT
) -> int:
    """Re-tag the papers these topic edits may change; returns the number of papers tagged."""
    from topics.services.stats import topic_stats_schedule
    from topics.services.tagging import papers_tag

    if isinstance(edited_at, str):
        edited_at = datetime.fromisoformat(edited_at)
    topic_ids = list(topic_ids)
    ids = topics_retag_candidates(topic_ids, edited_at=edited_at, limit=limit)
    if not ids:
        return 0
    tagged = papers_tag(paper_ids=ids)
    logger.info("re-tagged %d papers after an edit of topics %s", tagged, topic_ids[:20])
    topic_stats_schedule()
    return tagged
