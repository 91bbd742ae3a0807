"""Typed records that the clients return; nothing from the wire travels past papers.clients."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime


@dataclass(frozen=True, slots=True)
class VersionInfo:
    """One version of a paper: its number, when it was submitted (aware, UTC), its size ("12kb")."""

    version: int
    submitted: datetime
    size: str = ""


@dataclass(frozen=True, slots=True)
class PaperRecord:
    """One paper as one source describes it.

    ``arxiv_id`` is canonical (no version). Text fields are whitespace-normalised and keep their
    TeX; author names are display names (TeX accents turned into letters). ``affiliations`` is
    parallel to ``authors`` ('' where unknown) or empty when the source gives none.
    ``categories`` starts with ``primary_category``. ``versions`` holds the versions this source
    states, oldest first: complete only from OAI-PMH arXivRaw. ``version`` is the latest version
    the source knows; 0 means "more than one, number not stated" (OAI-PMH ``arXiv`` format).
    ``announced`` comes from feeds, ``datestamp`` from OAI-PMH headers. ``source`` names the
    format the record was read from (see ``SOURCES``).
    """

    arxiv_id: str
    version: int
    title: str
    abstract: str = ""
    authors: tuple[str, ...] = ()
    affiliations: tuple[str, ...] = ()
    primary_category: str = ""
    categories: tuple[str, ...] = ()
    versions: tuple[VersionInfo, ...] = ()
    announced: date | None = None
    submitted: datetime | None = None
    updated: datetime | None = None
    comments: str = ""
    journal_ref: str = ""
    doi: str = ""
    license: str = ""
    withdrawn: bool = False
    announce_type: str = ""
    datestamp: date | None = None
    source: str = ""

    @property
    def versioned_id(self) -> str:
        return f"{self.arxiv_id}v{self.version}" if self.version else self.arxiv_id


SOURCES = ("oai:arXivRaw", "oai:arXiv", "rss", "rss:rdf", "atom")
ANNOUNCE_TYPES = ("new", "cross", "replace", "replace-cross")


@dataclass(frozen=True, slots=True)
class MalformedRecord:
    """A record that could not be read; ``identifier`` is whatever id could be salvaged, or ''."""

    identifier: str
    reason: str


@dataclass(frozen=True, slots=True)
class Page:
    """One response: its good records, its broken ones, and where the list goes on.

    ``resumption_token`` is None on the last OAI-PMH page (and for feeds);
    ``complete_list_size`` is OAI-PMH's completeListSize or the API's totalResults;
    ``announced`` is the announcement date a feed belongs to.
    """

    records: list[PaperRecord] = field(default_factory=list)
    malformed: list[MalformedRecord] = field(default_factory=list)
    resumption_token: str | None = None
    complete_list_size: int | None = None
    announced: date | None = None
