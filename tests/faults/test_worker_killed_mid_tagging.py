"""kill -9 a Celery worker in the middle of a tagging batch; a fresh worker finishes the job.

1,302 untagged papers are queued for tagging the way `make run` queues them (papers_tag commits
every 500 papers). The worker is killed once the first task's first 500 are committed, while it
tags the next 500: the task is redone from the start by the next worker, so its first 500 papers
are tagged a second time. Afterwards every paper must be tagged, with no (paper, topic) row
doubled and no paper holding tags from two runs.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest

from tests.faults.conftest import (
    broker_messages,
    send_task,
    service_env,
    sleep_until_redeliverable,
    sql,
    tagging_problems,
    wait_until,
)

pytestmark = pytest.mark.services

VISIBILITY_TIMEOUT = 5  # seconds before Redis hands a dead worker's task to another
FIRST_TASK = 1000  # papers in the first task: two commits of 500 (topics.services.tagging)


def tagged(url: str) -> int:
    return sql(url, "SELECT count(*) FROM papers_paper WHERE tagged_at IS NOT NULL")[0][0]


def test_a_worker_killed_mid_tagging_batch_leaves_every_paper_tagged_once(
    database_with_papers, redis_server, processes, tmp_path
):
    url = database_with_papers
    env = service_env(
        database_url=url,
        redis_url=redis_server.url(),
        data_dir=tmp_path / "data",
        CELERY_VISIBILITY_TIMEOUT=str(VISIBILITY_TIMEOUT),
    )
    broker = redis_server.client()
    ids = [row[0] for row in sql(url, "SELECT id FROM papers_paper ORDER BY id")]
    total = len(ids)
    assert total == 1302
    send_task(redis_server.url(), "topics.tag_papers", ids[:FIRST_TASK])
    send_task(redis_server.url(), "topics.tag_papers", ids[FIRST_TASK:])
    first = processes.worker(env, "first")

    def first_commit_done() -> bool:
        assert first.poll() is None, processes.logs()
        return tagged(url) >= 500

    wait_until(first_commit_done, timeout=90, what="the first 500 papers tagged", every=0.1)
    processes.kill(first)
    killed_at = datetime.now(UTC)

    # The kill landed inside the first task, between its two commits.
    at_kill = tagged(url)
    assert at_kill == 500, at_kill
    assert broker_messages(broker) == {
        "queued": ["topics.tag_papers"],
        "unacked": ["topics.tag_papers"],
    }
    (tags_at_kill,) = sql(url, "SELECT count(*) FROM topics_papertopic")[0]

    sleep_until_redeliverable(broker, VISIBILITY_TIMEOUT)
    second = processes.worker(env, "second")
    restarted_at = time.monotonic()

    def drained() -> bool:
        assert second.poll() is None, processes.logs()
        return not any(tagging_problems(url).values()) and not any(broker_messages(broker).values())

    wait_until(drained, timeout=120, what="every paper tagged and the queue drained", every=0.5)
    recovered = time.monotonic() - restarted_at

    assert tagging_problems(url) == {"untagged": 0, "doubled": 0, "misranked": 0}
    assert sql(url, "SELECT count(*), count(DISTINCT arxiv_id) FROM papers_paper")[0] == (
        total,
        total,
    )
    # The redelivered task tagged its first 500 again: their tags were replaced, not added to.
    (retagged,) = sql(url, "SELECT count(*) FROM papers_paper WHERE tagged_at > %s", (killed_at,))[
        0
    ]
    assert retagged == total
    (tags,) = sql(url, "SELECT count(*) FROM topics_papertopic")[0]
    (first_500_tags,) = sql(
        url,
        "SELECT count(*) FROM topics_papertopic WHERE paper_id = ANY(%s)",
        (ids[:500],),
    )[0]
    assert first_500_tags == tags_at_kill
    print(
        f"\nkill -9 mid-tagging: {at_kill}/{total} papers tagged at the kill; the queue drained "
        f"{recovered:.1f} s after the restart; {total} tagged, {tags} tags, 0 doubled, "
        f"0 misranked; the first 500 re-tagged with the same {first_500_tags} tags"
    )
