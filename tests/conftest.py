"""Fixtures shared by the cross-app tests."""

import pytest
from django.test import Client

from accounts.tests.factories import api_token
from papers.tests.factories import paper_create
from tests.fake_arxiv import fake_arxiv  # noqa: F401 - a fixture: a running fake arXiv server
from topics.tests.factories import area_create, tag_create, topic_create


# --- the owner's script and a topic's papers (hostile input and strangers) -------------------
@pytest.fixture
def api(owner) -> Client:
    """The owner's script: a Bearer token with every scope."""
    _, raw = api_token(owner, name="owner's script")
    return Client(headers={"Authorization": f"Bearer {raw}"})


@pytest.fixture
def papers(db):
    area = area_create()
    topic = topic_create(parent=area, slug="policy-gradient", name="Policy Gradient")
    rows = [paper_create(arxiv_id=f"2501.0000{i}") for i in range(1, 4)]
    for paper in rows:
        tag_create(paper=paper, topic=topic)
    return {"topic": topic, "papers": rows}
