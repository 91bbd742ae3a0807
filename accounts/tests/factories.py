"""Plain functions that build users, topics, papers, tags and tokens for the accounts tests."""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime

from django.contrib.auth import get_user_model

from accounts.services.tokens import ALL_SCOPES, token_create
from papers.models import Paper
from topics.models import PaperTopic, Topic

PASSWORD = "correct horse battery staple"
_numbers = itertools.count(1)


def user_create(username: str | None = None, *, email: str | None = None):
    username = username or f"user{next(_numbers)}"
    return get_user_model().objects.create_user(
        username=username, email=email if email is not None else f"{username}@example.org",
        password=PASSWORD,
    )  # fmt: skip


def area_create(slug: str = "ml", name: str = "Machine Learning", code: str = "ML") -> Topic:
    area = Topic.objects.create(slug=slug, name=name, code=code, position=next(_numbers))
    area.area = area
    area.save(update_fields=["area"])
    return area


def topic_create(slug: str | None = None, *, name: str | None = None, parent: Topic | None = None):
    number = next(_numbers)
    parent = parent or Topic.objects.filter(slug="ml").first() or area_create()
    return Topic.objects.create(
        slug=slug or f"topic-{number}",
        name=name or f"Topic {number}",
        parent=parent,
        area=parent.area or parent,
        depth=parent.depth + 1,
        position=number,
    )


def paper_create(
    arxiv_id: str | None = None,
    *,
    title: str | None = None,
    authors: list[str] | None = None,
    announced: date | None = date(2025, 3, 3),
    topics: list[Topic] = (),
    **extra,
) -> Paper:
    number = next(_numbers)
    arxiv_id = arxiv_id or f"2503.{number:05d}"
    paper = Paper.objects.create(
        arxiv_id=arxiv_id,
        title=title or f"Paper {number} on sparse rewards",
        abstract=extra.pop("abstract", "We study $\\alpha$-divergences in long-horizon tasks."),
        authors=authors if authors is not None else ["Ada Lovelace", "Alan Turing"],
        primary_category=extra.pop("primary_category", "cs.LG"),
        categories=extra.pop("categories", "cs.LG stat.ML"),
        announced=announced,
        submitted=extra.pop(
            "submitted",
            datetime.combine(announced, datetime.min.time(), UTC) if announced else None,
        ),
        **extra,
    )
    for rank, topic in enumerate(topics, start=1):
        tag_create(paper, topic, rank=rank)
    return paper


def tag_create(paper: Paper, topic: Topic, *, score: float = 0.8, rank: int = 1) -> PaperTopic:
    """A tag, then the paper's tags arranged by the chips' display rule, as the services do."""
    from topics.services.chips import paper_chips_refresh

    tag = PaperTopic.objects.create(paper=paper, topic=topic, score=score, rank=rank)
    paper_chips_refresh(paper_ids=[paper.pk])
    tag.refresh_from_db()
    return tag


def api_token(user, *, scopes=ALL_SCOPES, name: str = "test token") -> tuple:
    """(token row, clear text)."""
    return token_create(user=user, name=name, scopes=list(scopes))
