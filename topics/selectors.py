"""Reads of the topics app."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from django.db.models import Count, Max

from papers.models import Paper
from papers.paging import newest_first, newest_first_slice
from papers.selectors import papers_in_order
from topics.models import PaperTopic, TagFeedback, Topic, TopicWeek
from topics.momentum import SERIES_WEEKS, momentum_summary, week_start


def latest_announcement() -> date | None:
    """The newest announcement date stored: where momentum windows and the weekly series end."""
    return Paper.objects.aggregate(latest=Max("announced"))["latest"]


def topic_list(
    *, query: str | None = None, area: str | None = None, sort: str = "name"
) -> list[Topic]:
    """Active topics, searched by name, alias or slug, optionally in one area."""
    active = Topic.objects.filter(active=True).select_related("area", "parent", "momentum")
    if area:
        active = active.filter(area__slug=area)
    topics: list[Topic]
    if query:
        # Match on the three fields the search reads, then build only the matches in full: a
        # thousand topics with their area, parent and momentum cost more than the search page.
        needle = query.strip().lower()
        matched = [
            pk
            for pk, name, slug, aliases in active.values_list("id", "name", "slug", "aliases")
            if needle in name.lower()
            or needle in slug
            or any(needle in alias.lower() for alias in aliases)
        ]
        topics = list(active.filter(id__in=matched)) if matched else []
    else:
        topics = list(active)
    if sort == "momentum":
        topics.sort(key=lambda t: (-_recent(t), t.name))
    elif sort == "size":
        topics.sort(key=lambda t: (-_total(t), t.name))
    else:
        topics.sort(key=lambda t: t.name.lower())
    for topic in topics:
        _decorate(topic)
    return topics


def _recent(topic: Topic) -> int:
    momentum = getattr(topic, "momentum", None)
    return momentum.recent_count if momentum else 0


def _total(topic: Topic) -> int:
    momentum = getattr(topic, "momentum", None)
    return momentum.total_count if momentum else 0


def _decorate(topic: Topic) -> Topic:

    try:
        momentum = topic.momentum
    except Topic.momentum.RelatedObjectDoesNotExist:
        momentum = None
    topic.momentum_summary = momentum_summary(momentum)
    return topic


def topic_get(*, slug: str) -> Topic | None:
    """One topic with everything its page shows: ancestors, children, weekly series, related."""
    topic = (
        Topic.objects.select_related("area", "parent", "parent__parent", "momentum")
        .filter(slug=slug, active=True)
        .first()
    )
    if topic is None:
        return None
    _decorate(topic)
    ancestors = []
    node = topic.parent
    while node is not None:
        ancestors.append(node)
        node = node.parent
    topic.ancestors = list(reversed(ancestors))
    topic.active_children = list(topic.children.filter(active=True).order_by("position"))
    topic.weekly = topic_weekly_series(topic=topic)
    topic.related = topic_related(topic=topic)
    return topic


def topic_weekly_series(*, topic: Topic) -> list[dict]:
    """Counts for the last SERIES_WEEKS weeks, zero-filled, oldest first."""
    end = latest_announcement()
    if end is None:
        return []
    last = week_start(end)
    weeks = [last - timedelta(weeks=n) for n in range(SERIES_WEEKS - 1, -1, -1)]
    counts = dict(
        TopicWeek.objects.filter(topic=topic, week__gte=weeks[0]).values_list("week", "count")
    )
    return [{"week": week, "count": counts.get(week, 0)} for week in weeks]


def topic_related(*, topic: Topic, limit: int = 8, sample: int = 400) -> list[Topic]:
    """Topics that most often share a paper with this one, over its latest `sample` papers
    (bounded, so a page never aggregates the whole corpus). Ancestors and areas are left out.

    One query: the latest papers are one range of the index on (topic, announced, paper),
    whatever the topic's size, and their other tags an index-only scan by paper id."""
    recent_papers = newest_first(PaperTopic.objects.filter(topic=topic), id_field="paper_id")
    recent_papers = recent_papers.values("paper_id")[:sample]
    excluded = {topic.id, *(a.id for a in getattr(topic, "ancestors", []))}
    rows = (
        PaperTopic.objects.filter(paper_id__in=recent_papers, topic__active=True)
        .exclude(topic_id__in=excluded)
        .exclude(topic__parent__isnull=True)
        .values("topic_id")
        .annotate(n=Count("*"))  # not Count("id"): (paper, topic) alone is an index-only scan
        .order_by("-n", "topic__position", "topic_id")[:limit]
    )
    ids = [row["topic_id"] for row in rows]
    by_id = Topic.objects.in_bulk(ids)
    return [by_id[i] for i in ids if i in by_id]


def topic_papers_page(
    *, topic: Topic, cursor: str | None = None, size: int
) -> tuple[list, str | None]:
    """One newest-first page of the topic's papers, each with its tags, and the cursor of the
    next page (None on the last): the page's tags are one range of the index on (topic,
    announced, paper) whatever the topic's size, then their papers are read by id. Raises
    papers.paging.InvalidCursor for a cursor this service did not give out."""
    tags = PaperTopic.objects.filter(topic=topic).only("paper_id", "announced")
    page, next_cursor = newest_first_slice(tags, cursor=cursor, size=size, id_field="paper_id")
    return papers_in_order(paper_ids=[tag.paper_id for tag in page]), next_cursor


# --- feedback ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class FeedbackVerdict:
    """What people said about one topic on one paper, over everyone's latest votes."""

    confirm: bool  # True: the topic applies (confirm/add win); False: rejected
    added: bool  # someone added it (the tagger had missed it): a strong positive
    votes: int
    last_id: int  # the newest vote's row id


def feedback_verdicts(
    *,
    paper_ids: Iterable[int] | None = None,
    pairs: Iterable[tuple[int, int]] | None = None,
    limit: int | None = None,
) -> dict[tuple[int, int], FeedbackVerdict]:
    """Net verdict per (paper id, topic id): confirm if more people confirmed or added than
    rejected, rejected if more rejected; a tie goes to the newest vote. Restricted to some papers
    or (paper, topic) pairs, or to the newest ``limit`` votes."""
    rows = TagFeedback.objects.order_by("-id")
    wanted = None
    if pairs is not None:
        wanted = {(int(p), int(t)) for p, t in pairs}
        if not wanted:
            return {}
        rows = rows.filter(paper_id__in={p for p, _ in wanted}, topic_id__in={t for _, t in wanted})
    if paper_ids is not None:
        ids = set(paper_ids)
        if not ids:
            return {}
        rows = rows.filter(paper_id__in=ids)
    values = rows.values_list("id", "paper_id", "topic_id", "vote")
    if limit is not None:
        values = values[:limit]
    tally: dict[tuple[int, int], list] = {}  # pair -> [positive, negative, added, last id, last]
    for row_id, paper_id, topic_id, vote in values:
        pair = (paper_id, topic_id)
        if wanted is not None and pair not in wanted:
            continue
        entry = tally.get(pair)
        if entry is None:  # rows come newest first
            entry = tally[pair] = [0, 0, False, row_id, vote]
        if vote == TagFeedback.Vote.REJECT:
            entry[1] += 1
        else:
            entry[0] += 1
            entry[2] = entry[2] or vote == TagFeedback.Vote.ADD
    out = {}
    for pair, (pos, neg, added, last_id, last_vote) in tally.items():
        confirm = pos > neg if pos != neg else last_vote != TagFeedback.Vote.REJECT
        out[pair] = FeedbackVerdict(confirm, added and confirm, pos + neg, last_id)
    return out


def topic_descendant_ids(topic_ids: Iterable[int]) -> set[int]:
    """Every active or retired topic below these (not the topics themselves)."""
    children: dict[int, list[int]] = {}
    for topic_id, parent_id in Topic.objects.exclude(parent=None).values_list("id", "parent_id"):
        children.setdefault(parent_id, []).append(topic_id)
    out: set[int] = set()
    stack = list(topic_ids)
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in out:
                out.add(child)
                stack.append(child)
    return out


# A rising topic's ratio is smoothed by this many papers on both sides: 8 -> 20 (x2.5) outranks
# 1 -> 4 (x4) once both are past the low-count guard, and big broad topics need real growth.
TRENDING_SMOOTHING = 5


def trending_topics(*, topics: list[Topic], limit: int) -> list[Topic]:
    """Fine topics that are rising, fastest first: no areas, none under the low-count guard,
    leaves (the most specific topics) before topics with subtopics. `topics` come from
    topic_list(), decorated with their momentum_summary."""
    parents = {t.parent_id for t in topics if t.parent_id}

    def rising(topic: Topic) -> bool:
        summary = topic.momentum_summary
        if topic.is_area or not summary or summary["low_count"] or not summary["recent_count"]:
            return False
        return summary["change"] is None or summary["change"] >= 0.005

    def score(topic: Topic) -> float:
        summary = topic.momentum_summary or {}
        return (summary["recent_count"] + TRENDING_SMOOTHING) / (
            summary["previous_count"] + TRENDING_SMOOTHING
        )

    chosen = sorted(
        (t for t in topics if rising(t)),
        key=lambda t: (t.id in parents, -score(t), t.name.lower()),
    )
    return chosen[:limit]
