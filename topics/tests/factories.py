"""The test builders of the topics app: areas, topics, tags, weekly counts and momentum.

Rows are written directly (no tagger, no harvest), so page and feed tests do not depend on the
tagger or the arXiv parsers. Every argument has a sensible default; pass only what a test is about.
"""

from __future__ import annotations

import itertools
from datetime import date, timedelta

from papers.models import Paper
from papers.tests.factories import paper_create
from topics.models import PaperTopic, Topic, TopicMomentum, TopicWeek

_numbers = itertools.count(1)


def area_create(
    slug: str = "rl",
    name: str = "Reinforcement Learning",
    code: str = "RL",
    *,
    description: str = "Reinforcement learning studies agents that learn by trial and error.",
    position: int = 0,
    **extra,
) -> Topic:
    area = Topic.objects.create(
        slug=slug, name=name, code=code, description=description, position=position, **extra
    )
    area.area = area
    area.save(update_fields=["area"])
    return area


def topic_create(
    slug: str | None = None,
    *,
    parent: Topic | None = None,
    name: str | None = None,
    description: str = "",
    position: int | None = None,
    **extra,
) -> Topic:
    number = next(_numbers)
    if parent is None:  # any topic will do: one under a "Machine Learning" area
        parent = Topic.objects.filter(slug="ml").first() or area_create(
            "ml", "Machine Learning", "ML", position=number
        )
    area = parent.area or parent
    return Topic.objects.create(
        slug=slug or f"topic-{number}",
        name=name or f"Topic {number}",
        parent=parent,
        area=area,
        depth=parent.depth + 1,
        description=description,
        position=number if position is None else position,
        **extra,
    )


def tag_create(
    paper: Paper,
    topic: Topic,
    *,
    score: float = 0.8,
    rank: int = 1,
    evidence: dict | None = None,
    source: str = PaperTopic.Source.MODEL,
    chip_order: float | None = None,
) -> PaperTopic:
    """A stored tag, then the paper's tags re-arranged by the display rule (rank, shown,
    implied and Paper.tags_json), as every service that writes tags does."""
    from topics.services.chips import paper_chips_refresh

    tag = PaperTopic.objects.create(
        paper=paper,
        topic=topic,
        score=score,
        rank=rank,
        source=source,
        chip_order=chip_order,
        evidence=evidence
        if evidence is not None
        else {
            "similarity": 0.61,
            "similarity_keywords": 0.52,
            "phrases": [{"text": topic.name.lower(), "where": "title", "kind": "name", "count": 1}],
        },
        model_version="test",
    )
    paper_chips_refresh(paper_ids=[paper.pk])
    tag.refresh_from_db()
    return tag


def momentum_create(
    *,
    topic: Topic,
    recent: int = 63,
    previous: int = 16,
    total_recent: int = 15000,
    total: int | None = None,
    window_end: date = date(2025, 3, 3),
) -> TopicMomentum:
    return TopicMomentum.objects.create(
        topic=topic,
        window_end=window_end,
        recent_count=recent,
        previous_count=previous,
        total_recent=total_recent,
        total_count=recent + previous if total is None else total,
    )


def weeks_create(*, topic: Topic, counts: list[int], last_week: date) -> list[TopicWeek]:
    """Weekly rows ending at last_week (a Monday), oldest first."""
    first = last_week - timedelta(weeks=len(counts) - 1)
    return TopicWeek.objects.bulk_create(
        [
            TopicWeek(topic=topic, week=first + timedelta(weeks=i), count=count)
            for i, count in enumerate(counts)
        ]
    )


def topic_page_scenario(*, papers: int = 8, newest: date = date(2025, 3, 3)) -> dict:
    """An area with a topic, a child, a sibling that shares papers, `papers` tagged papers one
    day apart (newest first is index 0), weekly counts and momentum: a full topic page."""
    area = area_create()
    topic = topic_create(
        parent=area,
        slug="policy-gradient",
        name="Policy Gradient",
        description=(
            "Policy gradient methods optimise a parameterised policy directly by following an "
            "estimate of the gradient of expected return. Common approaches include REINFORCE, "
            "actor-critic and trust-region methods. They are evaluated on continuous control."
        ),
        aliases=["PG"],
        categories=["cs.LG", "cs.AI"],
    )
    child = topic_create(parent=topic, slug="actor-critic", name="Actor-Critic Methods")
    sibling = topic_create(parent=area, slug="offline-rl", name="Offline RL")
    extra_topics = [
        topic_create(parent=area, slug=f"extra-{i}", name=f"Extra Topic {i}") for i in range(4)
    ]
    rows = []
    for i in range(papers):
        paper = paper_create(
            title=f"Sparse-reward policy learning, study {i}",
            announced=newest - timedelta(days=i),
            authors=[
                "Ada Lovelace",
                "Alan Turing",
                "Grace Hopper",
                "Edsger Dijkstra",
                "Barbara Liskov",
            ],
            categories="cs.LG cs.AI",
        )
        tag_create(paper=paper, topic=topic, score=0.91, rank=1)
        tag_create(paper=paper, topic=area, score=0.95, rank=0)
        tag_create(paper=paper, topic=sibling, score=0.55, rank=2)
        for rank, extra in enumerate(extra_topics, start=3):
            tag_create(paper=paper, topic=extra, score=0.4, rank=rank)
        rows.append(paper)
    last_week = newest - timedelta(days=newest.weekday())
    counts = [i % 5 + 1 for i in range(22)] + [3, 5, 8, papers]
    weeks_create(topic=topic, counts=counts, last_week=last_week)
    momentum_create(topic=topic, recent=63, previous=16, total=papers, window_end=newest)
    momentum_create(topic=area, recent=400, previous=380, total=papers, window_end=newest)
    momentum_create(topic=sibling, recent=3, previous=1, total=papers, window_end=newest)
    return {
        "area": area,
        "topic": topic,
        "child": child,
        "sibling": sibling,
        "extra_topics": extra_topics,
        "papers": rows,
    }
