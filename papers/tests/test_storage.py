"""papers_upsert_records: one upsert per page, idempotent, newer versions win."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from papers.clients.records import MalformedRecord, Page, PaperRecord, VersionInfo
from papers.models import Paper
from papers.services.storage import page_store, papers_upsert_records

pytestmark = pytest.mark.django_db


def record(arxiv_id: str = "2501.00001", version: int = 1, **fields) -> PaperRecord:
    defaults = {
        "title": f"Paper {arxiv_id}",
        "abstract": "We study $\\alpha$-divergences.",
        "authors": ("Ada Lovelace", "Alan Turing"),
        "primary_category": "cs.LG",
        "categories": ("cs.LG", "stat.ML"),
        "announced": date(2025, 1, 6),
        "announce_type": "new",
    }
    defaults.update(fields)
    return PaperRecord(arxiv_id=arxiv_id, version=version, **defaults)


def test_it_creates_papers_keeping_tex_and_order():
    result = papers_upsert_records(records=[record(), record("2501.00002")])
    assert (result.created, result.updated, result.unchanged) == (2, 0, 0)
    paper = Paper.objects.get(arxiv_id="2501.00001")
    assert paper.abstract == "We study $\\alpha$-divergences."
    assert paper.authors == ["Ada Lovelace", "Alan Turing"]
    assert paper.category_list == ["cs.LG", "stat.ML"]
    assert paper.announced == date(2025, 1, 6)
    assert sorted(result.retag_ids) == sorted(Paper.objects.values_list("id", flat=True))


def test_running_the_same_page_twice_changes_nothing():
    records = [record(f"2501.0000{n}") for n in range(1, 6)]
    papers_upsert_records(records=records)
    before = list(Paper.objects.order_by("id").values())
    again = papers_upsert_records(records=records)
    assert (again.created, again.updated, again.unchanged) == (0, 0, 5)
    assert again.retag_ids == []
    assert list(Paper.objects.order_by("id").values()) == before


def test_a_page_is_one_read_and_one_batched_write_not_one_per_record():
    records = [record(f"2501.{n:05d}") for n in range(1, 201)]
    with CaptureQueriesContext(connection) as queries:
        papers_upsert_records(records=records)
    statements = [q["sql"].split()[0].upper() for q in queries.captured_queries]
    # read existing, INSERT .. ON CONFLICT, read ids of papers to tag. SQLite caps a statement
    # at 999 parameters, so there the insert is split in batches of ~58 rows.
    fields = [f for f in Paper._meta.concrete_fields if f.name != "id"]
    per_statement = min(500, connection.ops.bulk_batch_size(fields, records))
    assert statements.count("INSERT") == -(-len(records) // per_statement)
    assert statements.count("INSERT") <= len(records) // 25  # batches, never one per record
    assert statements.count("SELECT") == 2
    assert Paper.objects.count() == 200


def test_a_newer_version_updates_the_paper_and_keeps_its_history():
    v1 = VersionInfo(1, datetime(2025, 1, 2, 10, tzinfo=UTC), "100kb")
    v2 = VersionInfo(2, datetime(2025, 2, 3, 11, tzinfo=UTC), "120kb")
    papers_upsert_records(records=[record(version=1, versions=(v1,))])
    result = papers_upsert_records(
        records=[
            record(
                version=2,
                versions=(v1, v2),
                title="Paper 2501.00001, revised",
                announced=date(2025, 2, 4),
                announce_type="replace",
            )
        ]
    )
    assert (result.created, result.updated) == (0, 1)
    paper = Paper.objects.get()
    assert paper.version == 2
    assert paper.title == "Paper 2501.00001, revised"
    assert [v["version"] for v in paper.versions] == [1, 2]
    # A replacement is not a new announcement: the paper stays where it first appeared.
    assert paper.announced == date(2025, 1, 6)
    assert len(result.retag_ids) == 1


def test_an_older_version_only_adds_history():
    v1 = VersionInfo(1, datetime(2025, 1, 2, 10, tzinfo=UTC), "100kb")
    papers_upsert_records(records=[record(version=3, title="Third version")])
    papers_upsert_records(records=[record(version=1, versions=(v1,), title="First version")])
    paper = Paper.objects.get()
    assert (paper.version, paper.title) == (3, "Third version")
    assert [v["version"] for v in paper.versions] == [1]


def test_a_replacement_of_an_unknown_paper_is_dated_by_its_submission_not_the_feed():
    submitted = datetime(2024, 11, 20, 9, tzinfo=UTC)
    papers_upsert_records(
        records=[
            record(
                "2411.01234",
                version=2,
                announced=date(2025, 1, 6),
                announce_type="replace",
                versions=(VersionInfo(1, submitted, "1mb"),),
            )
        ]
    )
    assert Paper.objects.get().announced == date(2024, 11, 20)


def test_malformed_records_are_counted_and_the_rest_of_the_page_is_kept():
    page = Page(
        records=[record("2501.00001"), record("2501.00002")],
        malformed=[MalformedRecord("2501.00003", "no title")],
    )
    result = page_store(page=page, source="test")
    assert (result.created, result.malformed) == (2, 1)
    assert set(Paper.objects.values_list("arxiv_id", flat=True)) == {"2501.00001", "2501.00002"}
    assert "skipped-malformed 1" in result.summary()


def test_the_later_record_of_the_same_paper_in_one_page_wins():
    result = papers_upsert_records(
        records=[record(title="cross-list copy"), record(version=2, title="replacement")]
    )
    assert result.fetched == 1
    assert Paper.objects.get().title == "replacement"
