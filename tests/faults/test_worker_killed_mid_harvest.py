"""kill -9 a Celery worker in the middle of an OAI-PMH harvest; a fresh worker finishes it.

The fake arXiv serves the two recorded arXivRaw pages (387 papers) and holds the second one
back, so the kill lands after page one is committed and while the worker waits for page two.
Afterwards the stored papers must be exactly those of the recorded responses, each once, each
tagged once, and the broker's queue empty.
"""

from __future__ import annotations

import json
import time

import pytest

from papers.clients.oai import parse_oai_page
from tests.fake_arxiv import OAI_FIRST_PAGES, OAI_TOKENS, read_fixture
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
GATE_LEASE = 4  # seconds the dead worker's hold on the arXiv politeness gate lasts


def recorded_ids() -> set[str]:
    pages = [OAI_FIRST_PAGES[("arXivRaw", None)], *OAI_TOKENS.values()]
    return {r.arxiv_id for name in pages for r in parse_oai_page(read_fixture(name)).records}


def test_a_worker_killed_mid_harvest_loses_and_doubles_nothing(
    database, redis_server, slow_arxiv, processes, tmp_path
):
    expected = recorded_ids()
    assert len(expected) == 387
    env = service_env(
        database_url=database,
        redis_url=redis_server.url(),
        data_dir=tmp_path / "data",
        ARXIV_OAI_URL=slow_arxiv.oai_url,
        CELERY_VISIBILITY_TIMEOUT=str(VISIBILITY_TIMEOUT),
        ARXIV_GATE_LEASE_SECONDS=str(GATE_LEASE),
    )
    broker = redis_server.client()
    slow_arxiv.page_delay, slow_arxiv.slow_pages = 60, 1
    send_task(redis_server.url(), "papers.harvest_oai", "cs")
    first = processes.worker(env, "first")

    def waiting_for_page_two() -> bool:
        assert first.poll() is None, processes.logs()
        asked = any("resumptionToken" in r.query for r in slow_arxiv.requests)
        return asked and sql(database, "SELECT count(*) FROM papers_paper")[0][0] == 200

    wait_until(waiting_for_page_two, timeout=60, what="page one stored, page two requested")
    processes.kill(first)
    killed_at = time.monotonic()

    # The dead worker still holds the arXiv politeness gate: every worker's requests to arXiv
    # wait until its lease runs out (ARXIV_GATE_LEASE_SECONDS, 300 s in production).
    assert broker.pttl("paperscope:gate:arxiv:lease") > 0
    # The kill landed mid-harvest: page one and its watermark are committed, the task is
    # delivered but not acknowledged.
    assert sql(database, "SELECT count(*) FROM papers_paper")[0][0] == 200
    (state,) = sql(database, "SELECT value FROM papers_harvestwatermark")[0]
    assert json.loads(state)["token"] == "1403493|201"
    assert "papers.harvest_oai" in broker_messages(broker)["unacked"]

    # A supervisor starts a fresh worker; Redis gives the task back to the queue once it is
    # VISIBILITY_TIMEOUT old (2 h in production: docs/faults.md).
    sleep_until_redeliverable(broker, VISIBILITY_TIMEOUT)
    second = processes.worker(env, "second")
    restarted_at = time.monotonic()

    def drained() -> bool:
        assert second.poll() is None, processes.logs()
        stored = sql(database, "SELECT count(*) FROM papers_paper")[0][0]
        messages = broker_messages(broker)
        problems = tagging_problems(database)
        return stored == 387 and not any(problems.values()) and not any(messages.values())

    wait_until(drained, timeout=90, what="the harvest to finish and the queue to drain", every=0.5)
    recovered = time.monotonic() - restarted_at

    stored = [row[0] for row in sql(database, "SELECT arxiv_id FROM papers_paper")]
    assert len(stored) == len(set(stored)) == 387  # none doubled
    assert set(stored) == expected  # none lost, none invented
    (state,) = sql(database, "SELECT value FROM papers_harvestwatermark")[0]
    assert json.loads(state) == {"until": "2016-10-21"}
    assert tagging_problems(database) == {"untagged": 0, "doubled": 0, "misranked": 0}
    # The second run resumed from the stored token instead of starting the list again.
    first_pages = [r for r in slow_arxiv.requests if "metadataPrefix" in r.query]
    token_pages = [r for r in slow_arxiv.requests if "resumptionToken" in r.query]
    assert (len(first_pages), len(token_pages)) == (1, 2)
    (tags,) = sql(database, "SELECT count(*) FROM topics_papertopic")[0]
    print(
        f"\nkill -9 mid-harvest: 200/387 papers stored at the kill; after a restart "
        f"{time.monotonic() - killed_at - recovered:.1f} s later the queue drained in "
        f"{recovered:.1f} s; 387 papers, 0 doubled, 0 lost, {tags} tags, 0 doubled"
    )
