"""Redis, the cache and the broker, goes away for 30 s while the API is under load.

A live gunicorn serves lookups, paper reads and saves to a reading list (Bearer token) from
four threads, a Celery worker runs beside it, and /healthz is polled. Redis is killed and
started again empty 30 s later, as after a crash without persistence. The web must keep
answering every request, /healthz must say "degraded" with the broker down during the outage
and 200 after, every acknowledged save must be stored, and the worker must take tasks again.
"""

from __future__ import annotations

import time

import pytest

from tests.faults.conftest import (
    broker_messages,
    create_reader,
    free_port,
    send_task,
    service_env,
    sql,
    wait_until,
)
from tests.faults.load import Traffic, summary
from tests.faults.outage import check_health_reports, check_saves_kept, time_on_demand_fetch

pytestmark = pytest.mark.services

OUTAGE_SECONDS = 30
# Known to the fake arXiv's query API, not to the database: fetched on demand by the worker.


def test_a_redis_outage_costs_the_cache_not_the_site(
    database_with_papers, redis_server, fake_arxiv, processes, tmp_path
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
    port = free_port()
    worker = processes.worker(env, "worker")
    processes.web(env, port)
    base = f"http://127.0.0.1:{port}"

    with Traffic(base, token=token, list_id=list_id, known_ids=known) as traffic:
        started = time.monotonic()
        # The worker holds a countdown task when Redis goes, as it mostly does in production
        # (the on-demand fetch and the stats recount are queued with a countdown): Celery 5.7
        # crashes on that without the workaround in config/celery.py.
        send_task(redis_server.url(), "topics.stats", countdown=600)
        broker = redis_server.client()
        wait_until(
            lambda: "topics.stats" in broker_messages(broker)["unacked"],
            timeout=30,
            what="the worker to hold the countdown task",
        )
        time.sleep(max(0.0, started + 2 - time.monotonic()))
        # A check answered while the kill lands sees the broker gone: "before" ends here.
        stopping_at = time.monotonic()
        redis_server.stop()
        down_at = time.monotonic()
        time.sleep(OUTAGE_SECONDS)
        restarting_at = time.monotonic()
        redis_server.start()
        up_at = time.monotonic()

        def healthy_again() -> float | None:
            oks = [
                a.at for a in traffic.between(up_at, time.monotonic(), "healthz") if a.status == 200
            ]
            return oks[0] if oks else None

        healthy_at = wait_until(healthy_again, timeout=30, what="/healthz to answer 200 again")
        time.sleep(2)
    ended = time.monotonic()

    requests = [a for a in traffic.answers if a.kind != "healthz"]
    during = [a for a in traffic.between(down_at, up_at) if a.kind != "healthz"]
    failed = [a for a in requests if not 200 <= a.status < 300]
    # The web kept serving reads and saves through the outage: not one error, before or after.
    assert {a.kind for a in during} == {"lookup", "read", "save"}
    assert failed == [], summary(failed)

    # /healthz: ok, then degraded naming the broker for the whole outage, then ok again.
    outage_checks = check_health_reports(
        traffic,
        before=(started, stopping_at),
        outage=(down_at, restarting_at),
        after=(healthy_at, ended),
        down="broker",
        min_checks=OUTAGE_SECONDS,
    )
    acknowledged, stored = check_saves_kept(url, list_id, traffic)
    # The worker reconnected: a lookup of a paper we lack is fetched on demand again.
    fetch_seconds = time_on_demand_fetch(
        url, base, token, worker, processes.logs, after="the outage"
    )
    print(
        f"\nRedis down {restarting_at - down_at:.1f} s under load; during the outage: "
        f"{summary(during)}; whole run: {summary(requests)}; /healthz during the outage "
        f"{len(outage_checks)} x 503 degraded (broker down), 200 again {healthy_at - up_at:.2f} s "
        f"after Redis came back; saves acknowledged {len(acknowledged)}, stored {len(stored)}; "
        f"on-demand fetch after the outage done in {fetch_seconds:.1f} s"
    )
