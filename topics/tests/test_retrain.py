"""The scheduled retrain (issue 4, item 3): refits and recalibrates the scorer from judgements and
the training labels, refreshes the priors, stores both under the data folder, and tagger_get
uses them."""

from __future__ import annotations

import json

import pytest
from django.conf import settings as django_settings

from accounts.tests.factories import user_create
from papers.tests.factories import paper_create
from topics.models import PaperTopic, TagFeedback
from topics.runtime import tagger_get
from topics.services import retrain as retrain_services
from topics.services.tagging import papers_tag
from topics.tagger import ScorerParams
from topics.tasks import retrain_tagger_task
from topics.tests.learning_setup import GNN_PAPER, OFFLINE_PAPER, PPO_PAPER

pytestmark = pytest.mark.django_db


def judged_corpus(topics, copies: int = 4) -> list:
    """Papers of three kinds, each judged right on its own topic and wrong on another one."""
    people = [user_create() for _ in range(2)]
    papers = []
    for n in range(copies):
        for (title, abstract), right, wrong in (
            (PPO_PAPER, "proximal-policy-optimization", "offline-rl"),
            (OFFLINE_PAPER, "offline-rl", "policy-gradient"),
            (GNN_PAPER, "graph-neural-networks", "federated-learning"),
        ):
            p = paper_create(title=f"{title} (study {n})", abstract=abstract)
            papers.append(p)
            for person in people:
                TagFeedback.objects.create(
                    user=person, paper=p, topic=topics[right], vote="confirm"
                )
                TagFeedback.objects.create(user=person, paper=p, topic=topics[wrong], vote="reject")
    return papers


def test_retrain_stores_a_scorer_and_priors_that_tagger_get_uses(topics, tmp_path):
    papers = judged_corpus(topics)
    before = tagger_get()
    assert before.params.version == ScorerParams.load().version

    summary = retrain_tagger_task.delay(force=True).get()

    assert summary.startswith("tagger retrained")
    stored = json.loads((tmp_path / "tagger" / "scorer.json").read_text())
    assert stored["fit"]["base_version"] == ScorerParams.load().version
    assert stored["fit"]["feedback"]["pairs"] == 2 * len(papers)  # net verdict per pair
    assert stored["fit"]["feedback"]["max_id"] == TagFeedback.objects.latest("id").id
    assert stored["fit"]["training_set"]["pairs"] > 1000  # the labelled training papers
    assert 0 <= stored["fit"]["ece_calibration"] <= 1
    priors = json.loads((tmp_path / "tagger" / "priors.json").read_text())
    assert priors["papers"] > len(papers)
    assert "cs.LG" in priors["lift"]

    after = tagger_get()
    assert after is not before
    assert after.params.version == stored["version"]
    assert after.index.prior_row  # the priors are in
    papers_tag(paper_ids=[papers[0].id])
    versions = set(PaperTopic.objects.filter(paper=papers[0]).values_list("model_version", flat=1))
    assert versions == {after.model_version}
    assert stored["version"] in after.model_version


def test_the_schedule_waits_for_enough_new_judgements(topics, tmp_path):
    judged_corpus(topics, copies=1)  # 12 judgements
    result = retrain_services.tagger_retrain(min_new=50)
    assert not result.retrained
    assert "12 new judgements" in result.reason
    assert not (tmp_path / "tagger" / "scorer.json").exists()

    assert retrain_services.tagger_retrain(min_new=10, training_set=False).retrained
    # Nothing new since: the next scheduled run does nothing.
    again = retrain_services.tagger_retrain(min_new=1)
    assert not again.retrained
    assert again.new_judgements == 0


def test_the_beat_schedule_runs_the_retrain_and_the_proposals():
    tasks = {entry["task"] for entry in django_settings.CELERY_BEAT_SCHEDULE.values()}
    assert {"topics.retrain_tagger", "topics.propose_topics"} <= tasks


def test_a_scorer_fitted_from_another_shipped_scorer_is_ignored(topics, tmp_path):
    judged_corpus(topics, copies=1)
    retrain_services.tagger_retrain(force=True, training_set=False)
    path = tmp_path / "tagger" / "scorer.json"
    data = json.loads(path.read_text())
    assert tagger_get().params.version == data["version"]
    data["fit"]["base_version"] = "an-older-shipped-scorer"
    path.write_text(json.dumps(data))
    assert tagger_get().params.version == ScorerParams.load().version


def test_gold_set_papers_never_enter_the_retrain(topics, monkeypatch):
    papers = judged_corpus(topics, copies=2)
    monkeypatch.setattr(retrain_services, "_gold_ids", lambda: {papers[0].arxiv_id})
    result = retrain_services.tagger_retrain(force=True, training_set=False)
    assert result.retrained
    feedback = result.fit["feedback"]
    assert feedback["papers"] == len(papers) - 1
    assert feedback["kept_out_gold"] == 1


def test_too_little_data_is_reported_not_raised(topics):
    p = paper_create(title=PPO_PAPER[0], abstract=PPO_PAPER[1])
    TagFeedback.objects.create(user=user_create(), paper=p, topic=topics["rl"], vote="confirm")
    result = retrain_services.tagger_retrain(force=True, training_set=False)
    assert not result.retrained
    assert result.reason.startswith("cannot fit")
