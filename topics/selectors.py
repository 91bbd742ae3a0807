"""Reads of the topics app."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from django.db.models import Max

from topics.models import Topic
from topics.tagger.taxonomy import TopicSpec

if TYPE_CHECKING:  # the engine pulls in numpy and the embedding model: load it only to tag
    from topics.tagger.engine import Tagger

_tagger_lock = threading.Lock()
_tagger_cache: dict[tuple, Tagger] = {}


def topic_specs_active() -> list[TopicSpec]:
    """The active taxonomy as the tagger sees it, parents before children."""
    topics = list(Topic.objects.filter(active=True).select_related("parent", "area"))
    depth_first = sorted(topics, key=lambda t: (t.depth, t.position))
    return [
        TopicSpec(
            slug=t.slug,
            name=t.name,
            code=t.code,
            parent=t.parent.slug if t.parent_id else None,
            area=t.area.slug if t.area_id else t.slug,
            depth=t.depth,
            description=t.description,
            aliases=tuple(t.aliases),
            keywords=tuple(t.keywords),
            categories=tuple(t.categories),
            position=t.position,
        )
        for t in depth_first
    ]


def tagger_get() -> Tagger:
    """The process's tagger, rebuilt when a topic was added, edited or retired."""
    stamp = Topic.objects.filter(active=True).aggregate(changed=Max("modified_at"))["changed"]
    key = (stamp, Topic.objects.filter(active=True).count())
    with _tagger_lock:
        tagger = _tagger_cache.get(key)
        if tagger is None:
            from topics.tagger.engine import Tagger

            _tagger_cache.clear()
            tagger = Tagger(topic_specs_active())
            _tagger_cache[key] = tagger
    return tagger


def topic_list(
    *, query: str | None = None, area: str | None = None, sort: str = "name"
) -> list[Topic]:
    """Active topics, searched by name, alias or slug, optionally in one area."""
    topics = Topic.objects.filter(active=True).select_related("area", "parent", "momentum")
    if area:
        topics = topics.filter(area__slug=area)
    if query:
        needle = query.strip().lower()
        topics = [
            t
            for t in topics
            if needle in t.name.lower()
            or needle in t.slug
            or any(needle in alias.lower() for alias in t.aliases)
        ]
    else:
        topics = list(topics)
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
    from topics.momentum import momentum_summary

    try:
        momentum = topic.momentum
    except Topic.momentum.RelatedObjectDoesNotExist:
        momentum = None
    topic.momentum_summary = momentum_summary(momentum)
    return topic


def topic_get(*, slug: str) -> Topic | None:
    """One topic with everything its page shows: ancestors, children, weekly series, related."""
    topic = Topic.objects.select_related("area", "parent").filter(slug=slug, active=True).first()
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
    from datetime import timedelta

    from topics.models import TopicWeek
    from topics.services.stats import SERIES_WEEKS, latest_announcement, week_start

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
    (bounded, so a page never aggregates the whole corpus). Ancestors and areas are left out."""
    from django.db.models import Count

    from topics.models import PaperTopic

    recent_papers = (
        PaperTopic.objects.filter(topic=topic)
        .order_by("-paper__announced", "-paper_id")
        .values_list("paper_id", flat=True)[:sample]
    )
    excluded = {topic.id, *(a.id for a in getattr(topic, "ancestors", []))}
    rows = (
        PaperTopic.objects.filter(paper_id__in=list(recent_papers), topic__active=True)
        .exclude(topic_id__in=excluded)
        .exclude(topic__parent__isnull=True)
        .values("topic_id")
        .annotate(n=Count("id"))
        .order_by("-n")[:limit]
    )
    ids = [row["topic_id"] for row in rows]
    by_id = Topic.objects.in_bulk(ids)
    return [by_id[i] for i in ids if i in by_id]


def topic_paper_list(*, topic: Topic):
    from papers.selectors import paper_list

    return paper_list(topic_slug=topic.slug)
