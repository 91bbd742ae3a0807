"""A real Celery worker process consumes a task from Redis and writes to PostgreSQL."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from config.celery import app
from papers.models import Paper
from topics.models import PaperTopic, Topic

ROOT = Path(__file__).resolve().parent.parent
pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def worker():
    db = connection.settings_dict
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DEBUG": "0",
        "SECRET_KEY": "worker-test-" + "y" * 40,
        # The worker must write into the test database pytest-django created.
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}",
        "REDIS_URL": settings.REDIS_URL,
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo",
         "--loglevel", "WARNING", "--without-gossip", "--without-mingle", "--without-heartbeat"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    yield process
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()


def test_a_worker_process_tags_a_paper_sent_through_redis_into_postgresql(worker):
    assert connection.vendor == "postgresql"
    assert settings.CELERY_BROKER_URL.startswith("redis://")
    area = Topic.objects.create(slug="rl", name="Reinforcement Learning", code="RL", depth=0)
    area.area = area
    area.save()
    Topic.objects.create(
        slug="policy-gradient",
        name="Policy Gradient",
        parent=area,
        area=area,
        depth=1,
        description="Policy gradient methods optimise a parametrised policy by gradient ascent.",
        keywords=["policy gradient", "REINFORCE", "actor-critic"],
        categories=["cs.LG"],
    )
    paper = Paper.objects.create(
        arxiv_id="2501.00001",
        title="Variance reduction for policy gradient methods in reinforcement learning",
        abstract="We propose a policy gradient estimator with lower variance than REINFORCE.",
        categories="cs.LG",
        primary_category="cs.LG",
        announced=date(2025, 1, 6),
    )
    # send_task goes through the broker even though the test settings run .delay() eagerly.
    app.send_task("topics.tag_papers", args=[[paper.id]])
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and worker.poll() is None:
        if PaperTopic.objects.filter(paper=paper).exists():
            break
        time.sleep(0.5)
    assert worker.poll() is None, worker.stdout.read()
    slugs = set(PaperTopic.objects.filter(paper=paper).values_list("topic__slug", flat=True))
    assert {"policy-gradient", "rl"} <= slugs
