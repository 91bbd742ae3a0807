"""Idempotent storage of parsed arXiv records: one upsert per page, keyed by arxiv_id."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date

from django.db import transaction

from papers.clients.records import Page, PaperRecord
from papers.models import Paper
from papers.signals import papers_created, papers_updated

logger = logging.getLogger(__name__)

# Fields a record may set; created_at and the id never change after the first insert.
UPSERT_FIELDS = [
    "version",
    "versions",
    "title",
    "abstract",
    "authors",
    "affiliations",
    "primary_category",
    "categories",
    "announced",
    "submitted",
    "updated",
    "comments",
    "journal_ref",
    "doi",
    "license",
    "withdrawn",
    "modified_at",
]
FEED_SOURCES = ("rss", "rss:rdf")
# Fields that decide whether a paper's tags must be recomputed when they change.
TAGGED_FIELDS = ("title", "abstract", "categories")
# Fields whose change is news for the people who saved the paper (papers_updated).
NEWS_FIELDS = ("version", "journal_ref", "doi", "withdrawn")


@dataclass
class UpsertResult:
    fetched: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    malformed: int = 0
    # Papers whose tags are stale: new ones and ones whose title/abstract/categories changed.
    retag_ids: list[int] = field(default_factory=list)

    def add(self, other: UpsertResult) -> None:
        self.fetched += other.fetched
        self.created += other.created
        self.updated += other.updated
        self.unchanged += other.unchanged
        self.malformed += other.malformed
        self.retag_ids.extend(other.retag_ids)

    def summary(self) -> str:
        return (
            f"fetched {self.fetched}, created {self.created}, updated {self.updated}, "
            f"unchanged {self.unchanged}, skipped-malformed {self.malformed}"
        )


def _month_of_id(arxiv_id: str) -> date | None:
    """The first day of the month an id was assigned in: 2501.00001 and cs/0112017 both say."""
    digits = arxiv_id.split("/")[-1][:4]
    if not digits.isdigit():
        return None
    year, month = int(digits[:2]), int(digits[2:])
    if not 1 <= month <= 12:
        return None
    return date(2000 + year if year < 91 else 1900 + year, month, 1)


def _first_announced(record: PaperRecord, existing: Paper | None) -> date | None:
    """The date a paper was first announced: a feed's date only counts for its first appearance.

    A replacement in today's feed is not a new paper, so it must not move the paper into this
    week's momentum; without a better source the submission date of v1 (or the id's month) stands.
    """
    candidates: list[date] = []
    if existing is not None and existing.announced:
        candidates.append(existing.announced)
    if record.announced and record.announce_type in ("new", "cross", ""):
        candidates.append(record.announced)
    if candidates:
        return min(candidates)
    if record.submitted:
        return record.submitted.date()
    if record.versions:
        return min(v.submitted for v in record.versions).date()
    return _month_of_id(record.arxiv_id) or record.announced


def _merged_versions(record: PaperRecord, existing: Paper | None) -> list[dict]:
    by_number: dict[int, dict] = {}
    for item in existing.versions if existing else []:
        by_number[int(item["version"])] = item
    for info in record.versions:
        by_number[info.version] = {
            "version": info.version,
            "date": info.submitted.isoformat(),
            "size": info.size,
        }
    return [by_number[number] for number in sorted(by_number)]


def _values_from(record: PaperRecord, existing: Paper | None) -> dict:
    """The row a record leads to. An older version than the stored one only adds history."""
    versions = _merged_versions(record, existing)
    # Version 0 means "not stated" (OAI-PMH's arXiv format): the metadata is current, the number
    # is whatever we knew.
    stated = record.version or (existing.version if existing else 1)
    newest_known = max([stated, *(int(v["version"]) for v in versions)])
    if existing is not None and stated < existing.version:
        values = {name: getattr(existing, name) for name in UPSERT_FIELDS if name != "modified_at"}
        values["versions"] = versions
        values["announced"] = _first_announced(record, existing)
        return values
    categories = " ".join(record.categories)
    values = {
        "version": max(newest_known, existing.version if existing else 0),
        "versions": versions,
        "title": record.title,
        "abstract": record.abstract or (existing.abstract if existing else ""),
        "authors": list(record.authors) or (existing.authors if existing else []),
        "affiliations": list(record.affiliations) or (existing.affiliations if existing else []),
        "primary_category": record.primary_category
        or (existing.primary_category if existing else ""),
        "categories": categories or (existing.categories if existing else ""),
        "announced": _first_announced(record, existing),
        "submitted": record.submitted
        or (existing.submitted if existing else None)
        or (min(v.submitted for v in record.versions) if record.versions else None),
        "updated": record.updated or (existing.updated if existing else None),
        "comments": record.comments or (existing.comments if existing else ""),
        "journal_ref": record.journal_ref or (existing.journal_ref if existing else ""),
        "doi": record.doi or (existing.doi if existing else ""),
        "license": record.license or (existing.license if existing else ""),
        # Feeds carry no comments, so they cannot tell a withdrawal: they never clear one.
        "withdrawn": record.withdrawn
        if record.source not in FEED_SOURCES
        else record.withdrawn or bool(existing and existing.withdrawn),
    }
    return values


def papers_upsert_records(*, records: Iterable[PaperRecord]) -> UpsertResult:
    """Insert or update papers from parsed records: one read and one write query for the page.

    Re-running with the same records changes nothing (they count as unchanged). When a page holds
    the same paper twice (a cross-list and a replacement), the later record wins.
    """
    latest: dict[str, PaperRecord] = {}
    for record in records:
        latest[record.arxiv_id] = record
    result = UpsertResult(fetched=len(latest))
    if not latest:
        return result
    existing = {p.arxiv_id: p for p in Paper.objects.filter(arxiv_id__in=list(latest))}
    to_write: list[Paper] = []
    retag_arxiv_ids: list[str] = []
    news_arxiv_ids: list[str] = []
    for arxiv_id, record in latest.items():
        current = existing.get(arxiv_id)
        values = _values_from(record, current)
        if current is None:
            result.created += 1
            retag_arxiv_ids.append(arxiv_id)
            to_write.append(Paper(arxiv_id=arxiv_id, **values))
            continue
        changed = [name for name, value in values.items() if getattr(current, name) != value]
        if not changed:
            result.unchanged += 1
            continue
        result.updated += 1
        if any(name in TAGGED_FIELDS for name in changed):
            retag_arxiv_ids.append(arxiv_id)
        if any(name in NEWS_FIELDS for name in changed):
            news_arxiv_ids.append(arxiv_id)
        for name, value in values.items():
            setattr(current, name, value)
        to_write.append(current)
    if to_write:
        Paper.objects.bulk_create(
            to_write,
            update_conflicts=True,
            unique_fields=["arxiv_id"],
            update_fields=UPSERT_FIELDS,
            batch_size=500,
        )
    created_ids = [arxiv_id for arxiv_id in latest if arxiv_id not in existing]
    if created_ids:
        transaction.on_commit(
            lambda: papers_created.send(sender=Paper, arxiv_ids=created_ids), robust=True
        )
    if news_arxiv_ids:
        transaction.on_commit(
            lambda: papers_updated.send(sender=Paper, arxiv_ids=news_arxiv_ids), robust=True
        )
    if retag_arxiv_ids:
        result.retag_ids = list(
            Paper.objects.filter(arxiv_id__in=retag_arxiv_ids).values_list("id", flat=True)
        )
    return result


def page_store(*, page: Page, source: str = "") -> UpsertResult:
    """Store one parsed page atomically; its malformed records are logged and counted."""
    for bad in page.malformed:
        logger.warning("malformed arXiv record %s from %s: %s", bad.identifier, source, bad.reason)
    with transaction.atomic():
        result = papers_upsert_records(records=page.records)
    result.malformed = len(page.malformed)
    return result
