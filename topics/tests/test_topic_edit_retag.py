"""Editing a topic re-tags the affected papers in the background (issue 4, item 3): after the
commit, one task per transaction re-tags the papers tagged with the topic or matching its new
names and keywords."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.test import Client
from django.utils import timezone

from papers.models import Paper
from papers.tests.factories import paper_create
from topics import tasks
from topics.models import PaperTopic, Topic
from topics.services import retagging
from topics.services.retagging import topics_retag_candidates
from topics.services.tagging import papers_tag
from topics.services.taxonomy import taxonomy_load
from topics.tagger.taxonomy import Taxonomy
from topics.tests.learning_setup import GNN_PAPER, MINI, OFFLINE_PAPER

pytestmark = pytest.mark.django_db

WIDGETS = (
    "Quantum sea-ice widgets for Arctic buoy arrays",
    "We build quantum sea-ice widgets that measure brine channels in Arctic sea ice with "
    "entangled photon probes. The widgets survive the polar winter and report hourly.",
)
FL_PAPER = (
    "Communication-efficient federated learning with heterogeneous clients",
    "Federated learning trains a shared model across clients that keep their data local. We "
    "reduce communication with compressed client updates and handle non-IID client data.",
)


@pytest.fixture
def queued(monkeypatch):
    """Calls of the re-tag task, recorded instead of run."""
    calls = []
    monkeypatch.setattr(tasks.retag_topics_task, "delay", lambda *args: calls.append(args))
    return calls


def tagged_at(p: Paper):
    return Paper.objects.get(pk=p.pk).tagged_at


def slugs_of(p: Paper) -> set[str]:
    return set(PaperTopic.objects.filter(paper=p).values_list("topic__slug", flat=True))


def test_new_keywords_re_tag_matching_and_tagged_papers_after_the_commit(
    topics, monkeypatch, django_capture_on_commit_callbacks
):
    # With 8 topics every topic is among every paper's candidates: leave the similarity route
    # out to see which papers the tag and keyword routes pick.
    monkeypatch.setattr(retagging, "SIMILARITY_SCAN", 0)
    widgets, fl, gnn = (
        paper_create(title=WIDGETS[0], abstract=WIDGETS[1]),
        paper_create(title=FL_PAPER[0], abstract=FL_PAPER[1]),
        paper_create(title=GNN_PAPER[0], abstract=GNN_PAPER[1]),
    )
    papers_tag(paper_ids=[widgets.id, fl.id, gnn.id])
    assert "federated-learning" not in slugs_of(widgets)
    assert "federated-learning" in slugs_of(fl)
    untouched = tagged_at(gnn)

    topic = topics["federated-learning"]
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        topic.keywords = [*topic.keywords, "quantum sea-ice widgets"]
        topic.save()
        assert "federated-learning" not in slugs_of(widgets)  # only after the commit

    assert {"federated-learning", "ml"} <= slugs_of(widgets)
    tag = PaperTopic.objects.get(paper=widgets, topic=topic)
    assert tag.source == "model"
    assert any(p["text"] == "quantum sea-ice widgets" for p in tag.evidence["phrases"])
    assert "federated-learning" in slugs_of(fl)  # re-tagged: tagged with the topic
    assert tagged_at(fl) > untouched
    assert tagged_at(gnn) == untouched  # neither tagged with it nor matching it


def test_the_similarity_route_finds_papers_without_the_keywords(topics, monkeypatch):
    gnn = paper_create(title=GNN_PAPER[0], abstract=GNN_PAPER[1])
    papers_tag(paper_ids=[gnn.id])
    topic = topics["diffusion-models"]
    assert topics_retag_candidates([topic.id]) == [gnn.id]  # a candidate topic of the paper
    monkeypatch.setattr(retagging, "SIMILARITY_SCAN", 0)
    assert topics_retag_candidates([topic.id]) == []


def test_an_edit_in_the_admin_re_tags(topics, django_capture_on_commit_callbacks):
    widgets = paper_create(title=WIDGETS[0], abstract=WIDGETS[1])
    papers_tag(paper_ids=[widgets.id])
    admin = get_user_model().objects.create_superuser("admin", "a@example.org", "x" * 20)
    client = Client()
    client.force_login(admin)
    topic = topics["offline-rl"]
    form = {
        "slug": topic.slug,
        "name": topic.name,
        "code": "",
        "parent": topic.parent_id,
        "area": topic.area_id,
        "depth": topic.depth,
        "position": topic.position,
        "description": topic.description,
        "aliases": "[]",
        "keywords": '["offline reinforcement learning", "sea-ice widgets"]',
        "categories": '["cs.LG"]',
        "active": "on",
        "taxonomy_version": "",
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/admin/topics/topic/{topic.id}/change/", form)
    assert response.status_code == 302, response.content[:2000]
    assert Topic.objects.get(pk=topic.pk).keywords[-1] == "sea-ice widgets"
    assert {"offline-rl", "rl"} <= slugs_of(widgets)


def test_retiring_a_topic_removes_its_model_tags(topics, django_capture_on_commit_callbacks):
    offline = paper_create(title=OFFLINE_PAPER[0], abstract=OFFLINE_PAPER[1])
    papers_tag(paper_ids=[offline.id])
    assert "offline-rl" in slugs_of(offline)
    topic = topics["offline-rl"]
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        topic.active = False
        topic.save()
    assert "offline-rl" not in slugs_of(offline)


def test_one_task_per_transaction_and_none_without_a_real_change(
    topics, queued, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        for slug in ("offline-rl", "diffusion-models"):
            topic = topics[slug]
            topic.description += " It also covers widgets."
            topic.save()
        topics["rl"].save()  # nothing changed
    assert len(queued) == 1
    ids, edited_at = queued[0]
    assert ids == sorted([topics["offline-rl"].id, topics["diffusion-models"].id])
    assert edited_at

    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        topic = topics["ml"]
        topic.position += 10
        topic.save()  # not something the tagger reads
        topics["rl"].save(update_fields=["position"])
    assert len(queued) == 1

    def rename_then_fail():
        with transaction.atomic():
            topic = topics["offline-rl"]
            topic.name = "Batch RL"
            topic.save()
            raise RuntimeError("rolled back")

    with django_capture_on_commit_callbacks(execute=True), pytest.raises(RuntimeError):
        rename_then_fail()
    assert len(queued) == 1


def test_load_taxonomy_queues_only_the_topics_it_changed(
    topics, queued, django_capture_on_commit_callbacks
):
    specs = []
    for topic in Topic.objects.order_by("position"):
        specs.append(
            replace(
                _spec(topic),
                keywords=(*topic.keywords, "widget learning")
                if topic.slug == "graph-neural-networks"
                else tuple(topic.keywords),
            )
        )
    with django_capture_on_commit_callbacks(execute=True):
        result = taxonomy_load(taxonomy=Taxonomy(version="test", topics=tuple(specs)))
    assert result.updated == len(MINI)  # the version changes everywhere ...
    assert queued == [([topics["graph-neural-networks"].id], queued[0][1])]  # ... one re-tag


def _spec(topic: Topic):
    from topics.tagger.taxonomy import TopicSpec

    return TopicSpec(
        slug=topic.slug,
        name=topic.name,
        parent=topic.parent.slug if topic.parent_id else None,
        area=topic.area.slug,
        depth=topic.depth,
        code=topic.code,
        description=topic.description,
        aliases=tuple(topic.aliases),
        keywords=tuple(topic.keywords),
        categories=tuple(topic.categories),
        position=topic.position,
    )


def test_candidates_are_bounded_and_skip_papers_tagged_since_the_edit(topics):
    fl_papers = [paper_create(title=f"{FL_PAPER[0]} {n}", abstract=FL_PAPER[1]) for n in range(6)]
    papers_tag(paper_ids=[p.id for p in fl_papers])
    topic_id = topics["federated-learning"].id
    assert len(topics_retag_candidates([topic_id])) == 6
    assert len(topics_retag_candidates([topic_id], limit=4)) == 4
    long_ago = timezone.now() - timedelta(days=1)
    assert topics_retag_candidates([topic_id], edited_at=long_ago) == []
