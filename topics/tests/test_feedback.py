"""Learning from people (issue 4, item 3): a vote changes the paper's tags and the tagger at once,
re-tagging honours it, and a rebuilt tagger replays the stored votes."""

from __future__ import annotations

import numpy as np
import pytest

from accounts.services.feedback import tag_feedback_submit
from accounts.tests.factories import user_create
from papers.tests.factories import paper_create
from topics import runtime
from topics.models import PaperTopic, TagFeedback
from topics.runtime import paper_input_from, tagger_get, tagger_peek, tagger_reset
from topics.selectors import feedback_verdicts
from topics.services import feedback as feedback_services
from topics.services.tagging import papers_tag
from topics.tagger import Tagger
from topics.tests.learning_setup import GNN_PAPER, OFFLINE_PAPER, PPO_PAPER

pytestmark = pytest.mark.django_db


def vote(person, target, slug, how, capture):
    with capture(execute=True):
        tag_feedback_submit(user=person, arxiv_id=target.arxiv_id, topic_slug=slug, vote=how)


def slugs_of(target, **filters) -> set[str]:
    return set(
        PaperTopic.objects.filter(paper=target, **filters).values_list("topic__slug", flat=True)
    )


def score_of(tagger, target, slug) -> float:
    return dict(tagger.candidates(paper_input_from(target), k=50)).get(slug, 0.0)


def test_a_rejection_removes_the_tag_at_once_and_survives_re_tagging(
    topics, django_capture_on_commit_callbacks
):
    ppo = paper_create(title=PPO_PAPER[0], abstract=PPO_PAPER[1])
    papers_tag(paper_ids=[ppo.id])
    assert {"proximal-policy-optimization", "policy-gradient", "rl"} <= slugs_of(ppo)
    tagger = tagger_get()
    before = score_of(tagger, ppo, "proximal-policy-optimization")

    vote(
        user_create(),
        ppo,
        "proximal-policy-optimization",
        "reject",
        django_capture_on_commit_callbacks,
    )

    assert "proximal-policy-optimization" not in slugs_of(ppo)
    assert {"policy-gradient", "rl"} <= slugs_of(ppo)  # the parents were not rejected
    # The same tagger (no rebuild) learnt it: the rejected paper pushes the topic down.
    assert tagger_peek() is tagger
    assert score_of(tagger, ppo, "proximal-policy-optimization") < before
    papers_tag(paper_ids=[ppo.id])
    papers_tag(paper_ids=[ppo.id])
    assert "proximal-policy-optimization" not in slugs_of(ppo)
    ranks = list(PaperTopic.objects.filter(paper=ppo).order_by("rank").values_list("rank", flat=1))
    assert ranks == list(range(1, len(ranks) + 1))


def test_rejecting_a_parent_removes_the_model_tags_below_it(
    topics, django_capture_on_commit_callbacks
):
    ppo = paper_create(title=PPO_PAPER[0], abstract=PPO_PAPER[1])
    papers_tag(paper_ids=[ppo.id])
    vote(user_create(), ppo, "policy-gradient", "reject", django_capture_on_commit_callbacks)
    assert not slugs_of(ppo) & {"policy-gradient", "proximal-policy-optimization"}
    papers_tag(paper_ids=[ppo.id])
    assert not slugs_of(ppo) & {"policy-gradient", "proximal-policy-optimization"}


def test_an_added_tag_is_kept_with_its_ancestors_through_re_tagging(
    topics, django_capture_on_commit_callbacks
):
    ppo = paper_create(title=PPO_PAPER[0], abstract=PPO_PAPER[1])
    papers_tag(paper_ids=[ppo.id])
    assert "graph-neural-networks" not in slugs_of(ppo)

    vote(user_create(), ppo, "graph-neural-networks", "add", django_capture_on_commit_callbacks)

    assert slugs_of(ppo, source="user") == {"graph-neural-networks"}
    assert "ml" in slugs_of(ppo)  # the hierarchy holds at once
    papers_tag(paper_ids=[ppo.id])
    assert slugs_of(ppo, source="user") == {"graph-neural-networks"}
    assert {"ml", "proximal-policy-optimization", "rl"} <= slugs_of(ppo)
    ranks = sorted(PaperTopic.objects.filter(paper=ppo).values_list("rank", flat=True))
    assert ranks == list(range(1, len(ranks) + 1))


def test_a_confirmation_teaches_the_loaded_tagger_at_once(
    topics, django_capture_on_commit_callbacks
):
    offline = paper_create(title=OFFLINE_PAPER[0], abstract=OFFLINE_PAPER[1])
    ppo = paper_create(title=PPO_PAPER[0], abstract=PPO_PAPER[1])
    papers_tag(paper_ids=[offline.id, ppo.id])
    tagger = tagger_get()
    before = score_of(tagger, ppo, "offline-rl")

    vote(user_create(), ppo, "offline-rl", "confirm", django_capture_on_commit_callbacks)

    assert tagger_peek() is tagger
    assert score_of(tagger, ppo, "offline-rl") > before
    tag = PaperTopic.objects.get(paper=ppo, topic__slug="offline-rl")
    assert tag.source == "user"
    tags = {t.slug: t for t in tagger.tag(paper_input_from(ppo))}
    assert ppo.arxiv_id in [e["id"] for e in tags["offline-rl"].evidence.get("examples", [])]


def test_a_changed_mind_and_several_people_settle_on_the_net_verdict(
    topics, django_capture_on_commit_callbacks
):
    ppo = paper_create(title=PPO_PAPER[0], abstract=PPO_PAPER[1])
    papers_tag(paper_ids=[ppo.id])
    ada, bob, cy = user_create(), user_create(), user_create()
    slug = "proximal-policy-optimization"
    vote(ada, ppo, slug, "reject", django_capture_on_commit_callbacks)
    vote(bob, ppo, slug, "confirm", django_capture_on_commit_callbacks)  # 1:1, newest wins
    assert slug in slugs_of(ppo, source="user")
    vote(cy, ppo, slug, "reject", django_capture_on_commit_callbacks)  # 2:1 against
    assert slug not in slugs_of(ppo)
    papers_tag(paper_ids=[ppo.id])
    assert slug not in slugs_of(ppo)
    vote(ada, ppo, slug, "confirm", django_capture_on_commit_callbacks)  # ada changes her mind
    assert slug in slugs_of(ppo, source="user")
    verdict = feedback_verdicts(paper_ids=[ppo.id])[(ppo.id, topics[slug].id)]
    assert (verdict.confirm, verdict.votes) == (True, 3)


def test_a_rebuilt_tagger_replays_the_stored_feedback(topics, django_capture_on_commit_callbacks):
    offline, ppo, gnn = (
        paper_create(title=OFFLINE_PAPER[0], abstract=OFFLINE_PAPER[1]),
        paper_create(title=PPO_PAPER[0], abstract=PPO_PAPER[1]),
        paper_create(title=GNN_PAPER[0], abstract=GNN_PAPER[1]),
    )
    papers_tag(paper_ids=[offline.id, ppo.id, gnn.id])
    plain = tagger_get()
    untaught = score_of(plain, ppo, "offline-rl")
    vote(user_create(), ppo, "offline-rl", "confirm", django_capture_on_commit_callbacks)
    vote(user_create(), gnn, "graph-neural-networks", "reject", django_capture_on_commit_callbacks)
    taught = score_of(plain, ppo, "offline-rl")
    rejected = score_of(plain, gnn, "graph-neural-networks")

    tagger_reset()  # another process, or a restart
    rebuilt = tagger_get()

    assert rebuilt is not plain
    assert score_of(rebuilt, ppo, "offline-rl") == pytest.approx(taught, abs=1e-4)
    assert score_of(rebuilt, ppo, "offline-rl") > untaught
    assert score_of(rebuilt, gnn, "graph-neural-networks") == pytest.approx(rejected, abs=1e-4)
    # The bulk replay does exactly what apply_feedback does, judgement by judgement.
    by_hand = Tagger(rebuilt.topics, params=rebuilt.params)
    for p, slug, confirm in ((ppo, "offline-rl", True), (gnn, "graph-neural-networks", False)):
        by_hand.apply_feedback(paper_input_from(p), slug, confirm)
    for p in (offline, ppo, gnn):
        assert dict(by_hand.candidates(paper_input_from(p))) == pytest.approx(
            dict(rebuilt.candidates(paper_input_from(p))), abs=1e-4
        )


def test_another_process_catches_up_without_a_rebuild(topics, django_capture_on_commit_callbacks):
    ppo = paper_create(title=PPO_PAPER[0], abstract=PPO_PAPER[1])
    papers_tag(paper_ids=[ppo.id])
    worker = tagger_get()
    before = score_of(worker, ppo, "offline-rl")
    # A vote stored by another process: no hook runs here.
    TagFeedback.objects.create(
        user=user_create(), paper=ppo, topic=topics["offline-rl"], vote=TagFeedback.Vote.ADD
    )
    assert score_of(worker, ppo, "offline-rl") == before
    assert tagger_get() is worker  # the next use catches up
    assert score_of(worker, ppo, "offline-rl") > before


def test_too_many_new_votes_rebuild_the_tagger(topics, monkeypatch):
    ppo, gnn = (
        paper_create(title=PPO_PAPER[0], abstract=PPO_PAPER[1]),
        paper_create(title=GNN_PAPER[0], abstract=GNN_PAPER[1]),
    )
    worker = tagger_get()
    monkeypatch.setattr(runtime, "CATCH_UP_LIMIT", 1)
    person = user_create()
    TagFeedback.objects.create(user=person, paper=ppo, topic=topics["offline-rl"], vote="add")
    TagFeedback.objects.create(user=person, paper=gnn, topic=topics["rl"], vote="reject")
    rebuilt = tagger_get()
    assert rebuilt is not worker
    assert score_of(rebuilt, ppo, "offline-rl") > score_of(worker, ppo, "offline-rl")


def test_paper_vectors_are_cached_in_the_data_folder(
    topics, tmp_path, monkeypatch, django_capture_on_commit_callbacks
):
    papers = [
        paper_create(title=PPO_PAPER[0], abstract=PPO_PAPER[1]),
        paper_create(title=OFFLINE_PAPER[0], abstract=OFFLINE_PAPER[1]),
        paper_create(title=GNN_PAPER[0], abstract=GNN_PAPER[1]),
    ]
    papers_tag(paper_ids=[p.id for p in papers])
    for p in papers:
        vote(user_create(), p, "federated-learning", "reject", django_capture_on_commit_callbacks)
    tagger_reset()
    tagger_get()
    assert (tmp_path / "tagger" / "paper_vectors.npz").is_file()

    embedded = []
    real = Tagger.embed

    def counting(self, items):
        embedded.append(len(items))
        return real(self, items)

    monkeypatch.setattr(Tagger, "embed", counting)
    tagger_reset()
    runtime.paper_vectors_reset()
    rebuilt = tagger_get()
    assert embedded == [1]  # only the pipeline probe: the three papers came from the cache
    vec = runtime.paper_vectors(rebuilt, papers[:1])[0]
    assert np.allclose(vec, real(rebuilt, [paper_input_from(papers[0])])[0], atol=2e-3)


def test_a_vote_on_an_unknown_or_retired_topic_changes_nothing(topics):
    ppo = paper_create(title=PPO_PAPER[0], abstract=PPO_PAPER[1])
    papers_tag(paper_ids=[ppo.id])
    before = slugs_of(ppo)
    feedback_services.feedback_applied(ppo.id, "no-such-topic", "reject")
    feedback_services.feedback_applied(ppo.id + 999, "offline-rl", "reject")
    assert slugs_of(ppo) == before
