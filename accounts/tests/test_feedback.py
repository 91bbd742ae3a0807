"""Tag feedback (issue 4): confirm, reject or add, stored per person; confirm and add make a
"user" tag; the tagger hears about each vote after commit."""

from __future__ import annotations

import sys
import types

import pytest

from accounts.tests.conftest import as_token
from papers.tests.factories import paper_create
from topics.models import PaperTopic, TagFeedback
from topics.tests.factories import tag_create, topic_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def paper():
    return paper_create("2501.00001")


@pytest.fixture
def hook(monkeypatch):
    """A stand-in for topics.services.feedback.feedback_applied, recording its calls."""
    calls = []
    module = types.ModuleType("topics.services.feedback")
    module.feedback_applied = lambda paper_id, topic_slug, vote: calls.append(
        (paper_id, topic_slug, vote)
    )
    monkeypatch.setitem(sys.modules, "topics.services.feedback", module)
    return calls


def test_adding_a_missing_tag_makes_a_user_tag(me, paper, hook, django_capture_on_commit_callbacks):
    topic_create("offline-rl")
    with django_capture_on_commit_callbacks(execute=True):
        response = me.api(
            "post",
            "/api/v1/me/feedback",
            {"arxiv_id": "2501.00001v1", "topic": "offline-rl", "vote": "add"},
        )
    assert response.status_code == 201
    assert response.json() == {
        **response.json(),
        "arxiv_id": "2501.00001",
        "topic": "offline-rl",
        "vote": "add",
    }
    tag = PaperTopic.objects.get(paper=paper)
    assert (tag.source, tag.topic.slug) == ("user", "offline-rl")
    assert hook == [(paper.pk, "offline-rl", "add")]


def test_confirming_a_model_tag_marks_it_as_a_user_tag(
    me, paper, hook, django_capture_on_commit_callbacks
):
    topic = topic_create("bandits")
    tag_create(paper, topic, score=0.55)
    with django_capture_on_commit_callbacks(execute=True):
        me.api(
            "post",
            "/api/v1/me/feedback",
            {"arxiv_id": "2501.00001", "topic": "bandits", "vote": "confirm"},
        )
    tag = PaperTopic.objects.get(paper=paper)
    assert (tag.source, tag.score) == ("user", 0.55)
    assert hook == [(paper.pk, "bandits", "confirm")]


def test_rejecting_records_the_vote_and_a_changed_mind_replaces_it(me, paper, hook):
    topic = topic_create("bandits")
    tag_create(paper, topic)
    assert (
        me.api(
            "post",
            "/api/v1/me/feedback",
            {"arxiv_id": "2501.00001", "topic": "bandits", "vote": "reject"},
        ).status_code
        == 201
    )
    again = me.api(
        "post",
        "/api/v1/me/feedback",
        {"arxiv_id": "2501.00001", "topic": "bandits", "vote": "confirm"},
    )
    assert again.status_code == 200
    assert list(TagFeedback.objects.values_list("vote", flat=True)) == ["confirm"]
    listed = me.api("get", "/api/v1/me/feedback").json()["results"]
    assert [(f["arxiv_id"], f["topic"], f["vote"]) for f in listed] == [
        ("2501.00001", "bandits", "confirm")
    ]


def test_an_unknown_topic_is_a_400_that_says_so(me, paper):
    response = me.api(
        "post", "/api/v1/me/feedback", {"arxiv_id": "2501.00001", "topic": "nope", "vote": "add"}
    )
    assert response.status_code == 400
    assert response.json()["code"] == "unknown_topic"
    assert "'nope'" in response.json()["detail"]
    assert "/api/v1/topics" in response.json()["detail"]
    assert TagFeedback.objects.count() == 0
    assert PaperTopic.objects.count() == 0


def test_an_unknown_paper_is_a_400(me):
    topic_create("bandits")
    response = me.api(
        "post", "/api/v1/me/feedback", {"arxiv_id": "2501.09999", "topic": "bandits", "vote": "add"}
    )
    assert response.status_code == 400
    assert response.json()["code"] == "unknown_paper"
    assert TagFeedback.objects.count() == 0


def test_feedback_works_without_a_tagger_hook(
    me, paper, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setitem(sys.modules, "topics.services.feedback", None)  # import fails
    topic_create("bandits")
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = me.api(
            "post",
            "/api/v1/me/feedback",
            {"arxiv_id": "2501.00001", "topic": "bandits", "vote": "add"},
        )
    assert response.status_code == 201
    assert len(callbacks) == 1


def test_a_failing_hook_does_not_lose_the_vote(
    me, paper, monkeypatch, django_capture_on_commit_callbacks
):
    module = types.ModuleType("topics.services.feedback")

    def broken(*args):
        raise RuntimeError("tagger down")

    module.feedback_applied = broken
    monkeypatch.setitem(sys.modules, "topics.services.feedback", module)
    topic_create("bandits")
    with django_capture_on_commit_callbacks(execute=True):
        response = me.api(
            "post",
            "/api/v1/me/feedback",
            {"arxiv_id": "2501.00001", "topic": "bandits", "vote": "add"},
        )
    assert response.status_code == 201
    assert TagFeedback.objects.count() == 1


def test_the_feedback_scope_is_needed(owner, paper):
    topic_create("bandits")
    caller = as_token(owner, scopes=["read", "lists:write"])
    response = caller.api(
        "post", "/api/v1/me/feedback", {"arxiv_id": "2501.00001", "topic": "bandits", "vote": "add"}
    )
    assert response.status_code == 403
    assert TagFeedback.objects.count() == 0
