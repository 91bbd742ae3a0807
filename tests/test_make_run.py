"""The first README command: `make run` sets everything up, serves, and can run again."""

from __future__ import annotations

import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.processes import child_env, free_port

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "papers" / "tests" / "fixtures" / "rss"


@pytest.fixture
def instance(tmp_path):
    """Environment of a fresh embedded instance with a two-feed sample."""
    sample = tmp_path / "sample"
    sample.mkdir()
    for name in ("luvata_2024-06-01-cs-lg.xml.gz", "luvata_2024-06-01-cs-ai.xml.gz"):
        shutil.copy(FIXTURES / name, sample / name)
    env = child_env(
        DEBUG="1",
        PAPERSCOPE_DATA_DIR=str(tmp_path / "var"),
        PAPERSCOPE_SAMPLE_DIR=str(sample),
        HARVEST_ON_START="0",
    )
    return env, tmp_path / "var" / "paperscope.sqlite3"


def counts(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        return {
            table: conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]  # noqa: S608
            for table in (
                "papers_paper",
                "topics_topic",
                "topics_papertopic",
                "topics_topicmomentum",
            )
        }


def setup_only(env) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", "paperscope_run", "--setup-only"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_running_it_twice_duplicates_nothing_and_keeps_what_was_saved(instance):
    env, db = instance
    first = setup_only(env)
    assert "bundled sample (2 feeds)" in first
    after_first = counts(db)
    assert after_first["papers_paper"] > 400
    assert after_first["topics_topic"] >= 400
    assert after_first["topics_papertopic"] >= 3 * after_first["papers_paper"]
    second = setup_only(env)
    assert "bundled sample already imported" in second
    assert "tagged 0 papers" in second
    assert counts(db) == after_first


def refined_count(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        sql = "SELECT COUNT(*) FROM papers_paper WHERE refined_at IS NOT NULL"
        return conn.execute(sql).fetchone()[0]


def test_it_serves_topic_pages_with_tagged_papers_then_stops_on_ctrl_c(instance):
    env, db = instance
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "manage.py", "paperscope_run", "--port", str(port)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 240
        health = None
        while time.monotonic() < deadline and process.poll() is None:
            try:
                health = httpx.get(f"{base}/healthz", timeout=2)
                break
            except httpx.HTTPError:
                time.sleep(0.5)
        assert health is not None, process.stdout
        assert health.status_code == 200, health.text
        assert health.json()["broker"]["detail"] == "filesystem"
        # The worker tags the sample newest first and refreshes momentum after its batches.
        busiest = None
        while time.monotonic() < deadline and busiest is None:
            topics = httpx.get(f"{base}/api/v1/topics", params={"sort": "momentum"}).json()
            top = topics["results"][0]
            if top["momentum"] and top["momentum"]["recent_count"] > 0:
                busiest = top
            else:
                time.sleep(1)
        assert busiest is not None, "no topic got papers: was the sample tagged by the worker?"
        page = httpx.get(f"{base}/topics/{busiest['slug']}/")
        assert page.status_code == 200
        assert busiest["name"] in page.text
        papers = httpx.get(f"{base}/api/v1/topics/{busiest['slug']}/papers").json()["results"]
        assert papers
        assert all(paper["tags"] for paper in papers)
        # The beat's minute sweep re-tags them with the refined stage (contextual encoder).
        deadline = max(deadline, time.monotonic() + 100)
        while time.monotonic() < deadline and refined_count(db) == 0:
            time.sleep(2)
        assert refined_count(db) > 0, "the worker's refine sweep never ran"
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
    assert process.returncode == 0
    # nothing of the worker is left: its pool children and its embedded beat stopped with it
    leftover = subprocess.run(["pgrep", "-f", str(db.parent)], capture_output=True, text=True)
    assert leftover.stdout == "", leftover.stdout
