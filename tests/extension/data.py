"""Database rows the end-to-end tests need: topics, tagged papers, a user with a token."""

from __future__ import annotations

from papers.models import Paper
from topics.models import PaperTopic, Topic
from topics.services.chips import paper_chips_refresh


def area(slug: str, name: str, code: str) -> Topic:
    topic = Topic.objects.create(slug=slug, name=name, code=code)
    topic.area = topic
    topic.save(update_fields=["area"])
    return topic


def topic(slug: str, name: str, parent: Topic) -> Topic:
    return Topic.objects.create(slug=slug, name=name, parent=parent, area=parent, depth=1)


def paper(arxiv_id: str, tags: list[tuple[Topic, float]], title: str = "") -> Paper:
    row = Paper.objects.create(arxiv_id=arxiv_id, title=title or f"Paper {arxiv_id}")
    PaperTopic.objects.bulk_create(
        PaperTopic(paper=row, topic=t, score=score, rank=rank)
        for rank, (t, score) in enumerate(tags, start=1)
    )
    paper_chips_refresh(paper_ids=[row.pk])  # display order, shown/implied, tags_json
    return row


def papers_bulk(arxiv_ids: list[str], tags: list[tuple[Topic, float]]) -> None:
    rows = Paper.objects.bulk_create(Paper(arxiv_id=i, title=f"Paper {i}") for i in arxiv_ids)
    PaperTopic.objects.bulk_create(
        PaperTopic(paper=row, topic=t, score=score, rank=rank)
        for row in rows
        for rank, (t, score) in enumerate(tags, start=1)
    )
    paper_chips_refresh(paper_ids=[row.pk for row in rows])


def taxonomy() -> dict[str, Topic]:
    """A small tree: two areas, four topics, one with a name that is an XSS attempt."""
    ml = area("ml", "Machine Learning", "ML")
    astro = area("astro", "Astrophysics", "AS")
    return {
        "ml": ml,
        "astro": astro,
        "gnn": topic("graph-neural-networks", "Graph neural networks", ml),
        "rl": topic("reinforcement-learning", "Reinforcement learning", ml),
        "kilonovae": topic("kilonovae", "Kilonovae & r-process", astro),
        "xss": topic("xss-topic", "<img src=x onerror=window.__pwned=1>", ml),
    }


def user_with_token(username: str = "alice"):
    """A user, their default list and an extension token (clear text returned once)."""
    from accounts.services.account import account_create
    from accounts.services.lists import reading_list_default
    from accounts.services.tokens import EXTENSION_SCOPES, token_create

    user = account_create(username=username, password="correct horse battery staple")
    _, raw = token_create(user=user, name="Chromium e2e", scopes=EXTENSION_SCOPES)
    return user, raw, reading_list_default(user=user)
