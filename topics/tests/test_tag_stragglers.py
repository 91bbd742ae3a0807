"""The straggler sweep: papers whose tagging task was lost get tagged on the next sweep, papers
still waiting in the queue are left to their task, and the beat runs the sweep."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.utils import timezone

from papers.models import Paper
from papers.tests.factories import paper_create
from topics.models import PaperTopic
from topics.services.tagging import STRAGGLER_AGE, papers_tag_stragglers
from topics.tasks import tag_stragglers_task
from topics.tests.learning_setup import GNN_PAPER, OFFLINE_PAPER, PPO_PAPER

pytestmark = pytest.mark.django_db


def stored_ago(target: Paper, age: timedelta) -> Paper:
    Paper.objects.filter(id=target.id).update(created_at=timezone.now() - age)
    return target


def tag_count(target: Paper) -> int:
    return PaperTopic.objects.filter(paper=target).count()


def test_a_paper_whose_task_was_lost_is_tagged_and_a_queued_one_is_left_alone(topics):
    lost = stored_ago(
        paper_create(title=PPO_PAPER[0], abstract=PPO_PAPER[1]),
        STRAGGLER_AGE + timedelta(minutes=5),
    )
    queued = stored_ago(
        paper_create(title=GNN_PAPER[0], abstract=GNN_PAPER[1]),
        STRAGGLER_AGE - timedelta(minutes=5),
    )

    assert tag_stragglers_task() == 1

    lost.refresh_from_db()
    queued.refresh_from_db()
    assert lost.tagged_at is not None
    assert tag_count(lost) >= 3
    assert queued.tagged_at is None
    assert tag_count(queued) == 0


def test_a_sweep_takes_the_oldest_first_up_to_its_limit_and_the_next_one_the_rest(topics):
    papers = [
        stored_ago(paper_create(title=source[0], abstract=source[1]), timedelta(hours=3))
        for source in (PPO_PAPER, GNN_PAPER, OFFLINE_PAPER)
    ]

    assert papers_tag_stragglers(limit=2) == 2
    tagged = set(Paper.objects.filter(tagged_at__isnull=False).values_list("id", flat=True))
    assert tagged == {papers[0].id, papers[1].id}

    assert papers_tag_stragglers(limit=2) == 1
    assert not Paper.objects.filter(tagged_at__isnull=True).exists()
    assert papers_tag_stragglers(limit=2) == 0  # nothing left: a sweep costs one index probe


def test_a_tagged_paper_is_not_tagged_again(topics):
    done = stored_ago(paper_create(title=PPO_PAPER[0], abstract=PPO_PAPER[1]), timedelta(hours=3))
    papers_tag_stragglers()
    tagged_at = Paper.objects.get(id=done.id).tagged_at

    assert papers_tag_stragglers() == 0
    assert Paper.objects.get(id=done.id).tagged_at == tagged_at


def test_the_beat_schedule_runs_the_sweep_every_ten_minutes():
    entry = django_settings.CELERY_BEAT_SCHEDULE["topics.tag-stragglers"]
    assert entry["task"] == tag_stragglers_task.name
    assert sorted(entry["schedule"].minute) == list(range(5, 60, 10))
