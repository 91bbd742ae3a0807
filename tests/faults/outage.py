"""What every outage test checks once the service is back: /healthz told the truth all along,
no acknowledged save was lost, and the worker takes tasks again."""

from __future__ import annotations

import time

import httpx

from tests.faults.conftest import sql, wait_until
from tests.faults.load import Answer, Traffic

FETCHABLE = "1605.08386"  # known to the fake arXiv's query API, not to the database


def check_health_reports(
    traffic: Traffic,
    *,
    before: tuple[float, float],
    outage: tuple[float, float],
    after: tuple[float, float],
    down: str,
    min_checks: int,
) -> list[Answer]:
    """/healthz answered 200 in ``before``, 503 "degraded" naming ``down`` ("database" or
    "broker") and only it through ``outage`` (at least ``min_checks`` times), and 200 all
    through ``after``. A check counts for a period only if it was asked and answered inside it.
    Returns the outage's checks."""
    up = "broker" if down == "database" else "database"
    for answer in traffic.within(*before, "healthz"):
        assert answer.status == 200, answer
    outage_checks = traffic.within(*outage, "healthz")
    assert len(outage_checks) >= min_checks
    for answer in outage_checks:
        assert answer.status == 503, answer
        assert answer.body["status"] == "degraded"
        assert answer.body[down]["ok"] is False
        assert answer.body[up]["ok"] is True
    healthy = traffic.between(*after, "healthz")
    assert healthy
    assert all(a.status == 200 for a in healthy)
    return outage_checks


def check_saves_kept(url: str, list_id: int, traffic: Traffic) -> tuple[set[str], set[str]]:
    """Every save that was acknowledged is stored, and nothing was stored that was not sent.
    Returns (acknowledged, stored)."""
    stored = {
        row[0]
        for row in sql(
            url, "SELECT arxiv_id FROM accounts_listitem WHERE reading_list_id = %s", (list_id,)
        )
    }
    acknowledged = traffic.acknowledged_saves()
    assert acknowledged <= stored
    assert stored <= traffic.attempted_saves()
    return acknowledged, stored


def time_on_demand_fetch(url: str, base: str, token: str, worker, logs, *, after: str) -> float:
    """Seconds until a lookup of a paper we lack has the worker fetch and store it, asking once
    a second (the worker must stay alive all along)."""

    def fetched() -> bool:
        assert worker.poll() is None, "the worker died:\n" + logs()
        httpx.post(
            f"{base}/api/v1/papers/lookup",
            json={"ids": [FETCHABLE]},
            headers={"Authorization": f"Bearer {token}"},
            timeout=10,
        ).raise_for_status()
        return bool(sql(url, "SELECT 1 FROM papers_paper WHERE arxiv_id = %s", (FETCHABLE,)))

    asked_at = time.monotonic()
    wait_until(fetched, timeout=60, what=f"the worker to fetch a paper after {after}", every=1)
    return time.monotonic() - asked_at
