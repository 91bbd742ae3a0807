"""PostgreSQL restarts (5 s down) while the API is under load.

The same live gunicorn, worker and traffic as the Redis outage. The web may answer 5xx only
while the database is down and must recover by itself (Django reconnects, CONN_HEALTH_CHECKS),
/healthz must say "degraded" with the database down meanwhile, every acknowledged save must be
stored, and the worker must take tasks again.
"""

from __future__ import annotations

import re
import time

import pytest

from tests.faults.conftest import (
    create_reader,
    free_port,
    send_task,
    service_env,
    sql,
    tagging_problems,
    wait_until,
)
from tests.faults.load import Traffic, summary
from tests.faults.outage import check_health_reports, check_saves_kept, time_on_demand_fetch

pytestmark = pytest.mark.services

DOWN_SECONDS = 5
# Requests sent this soon after PostgreSQL is back may still fail: a gunicorn thread whose
# connection died finds out on its next query, and PostgreSQL takes a moment to accept logins.
GRACE_SECONDS = 2


def test_a_postgres_restart_costs_only_the_requests_made_while_it_is_down(
    postgres, database_with_papers, redis_server, fake_arxiv, processes, tmp_path
):
    url = database_with_papers
    env = service_env(
        database_url=url,
        redis_url=redis_server.url(),
        data_dir=tmp_path / "data",
        ARXIV_API_URL=fake_arxiv.api_url,
        THROTTLE_USER="100000/min",
        THROTTLE_ANON="100000/min",
    )
    token, list_id = create_reader(env)
    known = [row[0] for row in sql(url, "SELECT arxiv_id FROM papers_paper ORDER BY id LIMIT 40")]
    # The worker tags 600 papers, 100 a task, through the restart.
    ids = [row[0] for row in sql(url, "SELECT id FROM papers_paper ORDER BY id LIMIT 600")]
    for start in range(0, len(ids), 100):
        send_task(redis_server.url(), "topics.tag_papers", ids[start : start + 100])
    port = free_port()
    worker = processes.worker(env, "worker")
    processes.web(env, port)
    base = f"http://127.0.0.1:{port}"

    with Traffic(base, token=token, list_id=list_id, known_ids=known) as traffic:
        started = time.monotonic()
        wait_until(
            lambda: tagging_problems(url, ids)["untagged"] < len(ids), timeout=90, what="tagging"
        )
        time.sleep(max(0.0, started + 2 - time.monotonic()))
        untagged_at_stop = tagging_problems(url, ids)["untagged"]
        stopping_at = time.monotonic()
        try:
            postgres.stop("fast")  # what `systemctl restart postgresql` does first
            down_at = time.monotonic()
            time.sleep(DOWN_SECONDS)
        finally:
            starting_at = time.monotonic()
            postgres.start()
        up_at = time.monotonic()

        def healthy_again() -> float | None:
            now = time.monotonic()
            oks = [a.at for a in traffic.between(up_at, now, "healthz") if a.status == 200]
            return oks[0] if oks else None

        healthy_at = wait_until(healthy_again, timeout=30, what="/healthz to answer 200 again")
        time.sleep(2)
    ended = time.monotonic()

    requests = [a for a in traffic.answers if a.kind != "healthz"]
    # The window holds every request running at some time between the stop and GRACE_SECONDS
    # after the start: PostgreSQL ends the sessions of requests in flight when it stops.
    window = [
        a for a in requests if a.at < up_at + GRACE_SECONDS and a.at + a.seconds >= stopping_at
    ]
    outside = [a for a in requests if a not in window]
    # Errors only while PostgreSQL was down, and always an answer: no hung or dropped request.
    assert all(200 <= a.status < 300 for a in outside), summary(
        [a for a in outside if not 200 <= a.status < 300]
    )
    assert all(a.status in (200, 201, 503) for a in window), summary(window)
    assert any(200 <= a.status < 300 for a in traffic.between(up_at + GRACE_SECONDS, ended))

    # /healthz: ok, degraded naming the database while it is down, ok again.
    outage_checks = check_health_reports(
        traffic,
        before=(started, stopping_at),
        outage=(down_at, starting_at),
        after=(healthy_at, ended),
        down="database",
        min_checks=DOWN_SECONDS,
    )
    acknowledged, stored = check_saves_kept(url, list_id, traffic)
    # The worker lived through it and takes tasks again: a paper we lack is fetched on demand.
    fetch_seconds = time_on_demand_fetch(
        url, base, token, worker, processes.logs, after="the restart"
    )
    # No tagging batch was lost to the restart: every paper is tagged, once.
    wait_until(
        lambda: not any(tagging_problems(url, ids).values()),
        timeout=90,
        what="every paper tagged once",
        every=0.5,
    )
    worker_log = (tmp_path / "worker.log").read_text(errors="replace")
    failed_tasks = len(re.findall(r"Task \S+ raised unexpected", worker_log))
    errors = [a for a in window if not 200 <= a.status < 300]
    last_error = max((a.at for a in errors), default=up_at)
    print(
        f"\nPostgreSQL stopped {down_at - stopping_at:.2f} s, down {starting_at - down_at:.1f} s, "
        f"started {up_at - starting_at:.2f} s; in that window: {summary(window)}; whole run: "
        f"{summary(requests)}; last error {last_error - up_at:+.2f} s after it was back; "
        f"/healthz {len(outage_checks)} x 503 degraded (database down), 200 again "
        f"{healthy_at - up_at:.2f} s after; saves acknowledged {len(acknowledged)}, stored "
        f"{len(stored)} ({len(stored - acknowledged)} stored but not acknowledged); worker "
        f"tasks failed meanwhile {failed_tasks}, {untagged_at_stop} papers untagged at the "
        f"stop and all tagged once afterwards; on-demand fetch after the restart done in "
        f"{fetch_seconds:.1f} s"
    )
