"""Database rows the end-to-end tests need: topics, tagged papers, a user with a token. Rows come
from each app's one builder (papers/, topics/, accounts/ tests/factories.py)."""

from __future__ import annotations

from papers.models import Paper
from papers.tests.factories import paper_create, papers_bulk_create
from topics.models import PaperTopic, Topic
from topics.services.chips import paper_chips_refresh
from topics.tests.factories import area_create, topic_create


def tagged_paper(arxiv_id: str, tags: list[tuple], title: str = "") -> Paper:
    """A paper tagged with (topic, score) or (topic, score, chip order) tuples, ranked in the
    order given."""
    row = paper_create(arxiv_id, title=title or f"Paper {arxiv_id}")
    _tag([row], tags)
    return row


def tagged_papers_bulk(arxiv_ids: list[str], tags: list[tuple]) -> None:
    """Listing-size sets of papers, all with the same tags, in two queries."""
    _tag(papers_bulk_create(arxiv_ids), tags)


def _tag(rows: list[Paper], tags: list[tuple]) -> None:
    PaperTopic.objects.bulk_create(
        PaperTopic(
            paper=row, topic=t, score=score, rank=rank, chip_order=order[0] if order else None
        )
        for row in rows
        for rank, (t, score, *order) in enumerate(tags, start=1)
    )
    paper_chips_refresh(paper_ids=[row.pk for row in rows])  # display order, shown/implied


def taxonomy() -> dict[str, Topic]:
    """A small tree: two areas, four topics, one with a name that is an XSS attempt."""
    ml = area_create("ml", "Machine Learning", "ML")
    astro = area_create("astro", "Astrophysics", "AS")
    return {
        "ml": ml,
        "astro": astro,
        "gnn": topic_create("graph-neural-networks", name="Graph neural networks", parent=ml),
        "rl": topic_create("reinforcement-learning", name="Reinforcement learning", parent=ml),
        "kilonovae": topic_create("kilonovae", name="Kilonovae & r-process", parent=astro),
        "xss": topic_create("xss-topic", name="<img src=x onerror=window.__pwned=1>", parent=ml),
    }


def user_with_token(username: str = "alice"):
    """A user, their default list and an extension token (clear text returned once)."""
    from accounts.services.account import account_create
    from accounts.services.lists import reading_list_default
    from accounts.services.tokens import EXTENSION_SCOPES, token_create

    user = account_create(username=username, password="correct horse battery staple")
    _, raw = token_create(user=user, name="Chromium e2e", scopes=EXTENSION_SCOPES)
    return user, raw, reading_list_default(user=user)
