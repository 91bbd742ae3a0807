"""The refined tagging stage in the service: the worker's sweep re-tags the newest papers the
fast path tagged with the contextual encoder, a fast re-tag sends a paper back to the sweep,
the stage can be turned off, and tag_papers --refined runs it by hand."""

from __future__ import annotations

import json
from datetime import date

import pytest
from django.conf import settings as django_settings
from django.core.management import CommandError, call_command

from papers.models import Paper
from papers.tests.factories import paper_create
from topics.models import PaperTopic
from topics.runtime import tagger_reset
from topics.services.tagging import papers_refine, papers_tag
from topics.tagger.contextual import model_file
from topics.tasks import refine_tags_task
from topics.tests.learning_setup import GNN_PAPER, OFFLINE_PAPER, PPO_PAPER

pytestmark = pytest.mark.django_db

REFINED_MARK = "+" + model_file()[2]  # the shipped encoder's name, e.g. minilm-int8-96


def tagged_papers() -> list[Paper]:
    """Three tagged papers, announced on three days (oldest first)."""
    papers = [
        paper_create(title=source[0], abstract=source[1], announced=date(2025, 5, day))
        for day, source in ((5, PPO_PAPER), (6, GNN_PAPER), (7, OFFLINE_PAPER))
    ]
    papers_tag(paper_ids=[p.id for p in papers])
    return papers


def versions(paper: Paper) -> set[str]:
    rows = PaperTopic.objects.filter(paper=paper, source=PaperTopic.Source.MODEL)
    return set(rows.values_list("model_version", flat=True))


def test_the_sweep_refines_the_newest_tagged_papers_first_up_to_its_limit(topics):
    oldest, middle, newest = tagged_papers()
    untagged = paper_create(title="A paper no tagger has seen", announced=date(2025, 5, 9))

    assert papers_refine(limit=2) == 2

    for paper in (newest, middle):
        paper.refresh_from_db()
        assert paper.refined_at is not None
        (version,) = versions(paper)
        assert version.endswith(REFINED_MARK)
        assert json.loads(paper.tags_json)  # the chips readers see were rebuilt
    oldest.refresh_from_db()
    assert oldest.refined_at is None
    assert not any(v.endswith(REFINED_MARK) for v in versions(oldest))
    untagged.refresh_from_db()
    assert untagged.refined_at is None
    assert untagged.tagged_at is None

    assert refine_tags_task() == 1  # the next sweep takes the rest
    oldest.refresh_from_db()
    assert oldest.refined_at is not None
    assert papers_refine() == 0


def test_a_sweep_leaves_the_work_to_one_already_running(topics):
    from django.core.cache import cache

    from topics.services.tagging import REFINE_LOCK

    papers = tagged_papers()
    cache.add(REFINE_LOCK, 1, 60)  # another worker's sweep holds it
    try:
        assert papers_refine() == 0
        assert not Paper.objects.filter(refined_at__isnull=False).exists()
    finally:
        cache.delete(REFINE_LOCK)
    assert papers_refine() == len(papers)  # and the lock is free after a sweep
    assert cache.add(REFINE_LOCK, 1, 60)
    cache.delete(REFINE_LOCK)


def test_a_fast_retag_sends_the_paper_back_to_the_sweep(topics):
    paper = tagged_papers()[0]
    papers_refine()
    paper.refresh_from_db()
    assert paper.refined_at is not None

    papers_tag(paper_ids=[paper.id])  # e.g. a topic edit re-tags it with the fast path

    paper.refresh_from_db()
    assert paper.refined_at is None
    assert not any(v.endswith(REFINED_MARK) for v in versions(paper))
    assert papers_refine() == 1


def test_with_the_stage_off_the_sweep_and_the_command_change_nothing(topics, settings):
    papers = tagged_papers()
    before = {p.id: versions(p) for p in papers}
    settings.TAGGER_REFINED = False
    tagger_reset()

    assert papers_refine() == 0
    with pytest.raises(CommandError, match="TAGGER_REFINED is off"):
        call_command("tag_papers", "--refined")

    assert not Paper.objects.filter(refined_at__isnull=False).exists()
    assert {p.id: versions(p) for p in papers} == before


def test_tag_papers_refined_refines_every_stored_paper(topics, capsys):
    tagged_papers()
    call_command("tag_papers", "--refined")
    assert "refined 3 stored papers" in capsys.readouterr().out
    assert Paper.objects.filter(refined_at__isnull=True).count() == 0


def test_tag_papers_refined_tags_an_input_file_with_the_refined_stage(topics, tmp_path):
    source, target = tmp_path / "papers.jsonl", tmp_path / "tags.jsonl"
    source.write_text(json.dumps({"id": "a", "title": PPO_PAPER[0], "abstract": PPO_PAPER[1]}))
    call_command("tag_papers", "--refined", "--input", str(source), "--output", str(target))
    (line,) = [json.loads(x) for x in target.read_text().splitlines()]
    assert "proximal-policy-optimization" in [t["slug"] for t in line["tags"]]


def test_the_beat_runs_the_sweep_every_minute():
    entry = django_settings.CELERY_BEAT_SCHEDULE["topics.refine-tags"]
    assert entry["task"] == "topics.refine_tags"
    assert sorted(entry["schedule"].minute) == list(range(60))
