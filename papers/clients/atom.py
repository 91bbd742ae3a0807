"""arXiv's query API (https://info.arxiv.org/help/api/user-manual.html): Atom feeds by id list.

Both the 2016 layout (namespaces declared per element, ``<link title="doi">``) and the 2026 one
(namespaces on the root) read the same way; an entry titled "Error" whose id points at
``/api/errors`` is how the API reports a bad request.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from lxml import etree

from papers.arxiv_ids import parse_arxiv_id
from papers.clients._common import (
    Malformed,
    clean,
    is_withdrawal_note,
    iso_utc,
    parse_xml,
    read_element,
    required,
    salvage_id,
    split_damaged,
    tex_name,
)
from papers.clients.errors import ArxivPermanentError, MalformedResponse
from papers.clients.records import MalformedRecord, Page, PaperRecord, VersionInfo

if TYPE_CHECKING:
    from papers.clients.http import ArxivHttp

_ATOM = "{http://www.w3.org/2005/Atom}"
_AX = "{http://arxiv.org/schemas/atom}"
_OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"
_FEED, _ENTRY, _TOTAL = _ATOM + "feed", _ATOM + "entry", _OPENSEARCH + "totalResults"
_ID, _TITLE, _SUMMARY, _PUBLISHED, _UPDATED, _AUTHOR, _CATEGORY, _NAME = (
    _ATOM + t
    for t in ("id", "title", "summary", "published", "updated", "author", "category", "name")
)
_PRIMARY, _AFFILIATION, _COMMENT, _JOURNAL, _DOI = (
    _AX + t for t in ("primary_category", "affiliation", "comment", "journal_ref", "doi")
)
_SALVAGE = re.compile(rb"<id>\s*([^<]{1,200}?)\s*</id>")
BATCH_SIZE = 100


def parse_atom_feed(xml: bytes) -> Page:
    """Read one query-API response into a Page (``complete_list_size`` = totalResults).

    Raises ArxivPermanentError for the API's error feed (code = arXiv's error anchor, e.g.
    ``incorrect_id_format_for_abc``), MalformedResponse when the body is not an Atom feed.
    """
    try:
        root = parse_xml(xml)
    except etree.XMLSyntaxError:
        return _parse_damaged(xml)
    _check_feed(root)
    records: list[PaperRecord] = []
    malformed: list[MalformedRecord] = []
    total = None
    for child in root:
        tag = child.tag
        if tag == _ENTRY:
            _raise_if_error(child)
            read_element(child, _build, _identify, records, malformed)
        elif tag == _TOTAL:
            total = child.text
    return Page(records, malformed, complete_list_size=_int_or_none(total))


def _parse_damaged(xml: bytes) -> Page:
    envelope, chunks = split_damaged(xml, b"entry")
    _check_feed(envelope)
    records: list[PaperRecord] = []
    malformed: list[MalformedRecord] = []
    for chunk, element in chunks:
        if isinstance(element, Exception):
            identifier = salvage_id(chunk, _SALVAGE)
            malformed.append(MalformedRecord(_short_id(identifier), f"broken XML: {element}"))
        else:
            _raise_if_error(element)
            read_element(element, _build, _identify, records, malformed)
    return Page(records, malformed, complete_list_size=_int_or_none(envelope.findtext(_TOTAL)))


def _check_feed(root: etree._Element) -> None:
    if root.tag != _FEED:
        raise MalformedResponse(f"not an Atom feed (root element {root.tag!r})")


def _raise_if_error(entry: etree._Element) -> None:
    entry_id = entry.findtext(_ID) or ""
    if "/api/errors" in entry_id and clean(entry.findtext(_TITLE)) == "Error":
        message = clean(entry.findtext(_SUMMARY)) or "error"
        code = entry_id.rpartition("#")[2] or "error"
        raise ArxivPermanentError(f"arXiv API: {message}", code=code)


def _int_or_none(text: str | None) -> int | None:
    return int(text) if text and text.strip().isdigit() else None


def _short_id(url: str) -> str:
    return url.rpartition("/abs/")[2] or url


def _identify(entry: etree._Element) -> str:
    return _short_id(clean(entry.findtext(_ID)))


def _build(entry: etree._Element) -> PaperRecord:
    fields: dict[str, str | None] = {}
    authors: list[str] = []
    affiliations: list[str] = []
    categories: list[str] = []
    primary = ""
    for child in entry:
        tag = child.tag
        if tag == _AUTHOR:
            name, affiliation = _author(child)
            authors.append(name)
            affiliations.append(affiliation)
        elif tag == _CATEGORY:
            term = child.get("term")
            if term and term not in categories:
                categories.append(term)
        elif tag == _PRIMARY:
            primary = child.get("term") or ""
        else:
            fields[tag] = child.text
    arxiv_id = parse_arxiv_id(required(fields.get(_ID), "id"))
    if arxiv_id.version is None:
        raise Malformed(f"{arxiv_id.canonical}: entry id names no version")
    published = iso_utc(required(fields.get(_PUBLISHED), "published date"))
    updated = iso_utc(str(fields[_UPDATED])) if fields.get(_UPDATED) else published
    version = arxiv_id.version
    versions = [VersionInfo(1, published)]
    if version > 1:
        versions.append(VersionInfo(version, updated))
    if primary:
        categories = [primary, *(c for c in categories if c != primary)]
    comments = clean(fields.get(_COMMENT))
    return PaperRecord(
        arxiv_id=arxiv_id.canonical,
        version=version,
        title=required(fields.get(_TITLE), "title"),
        abstract=clean(fields.get(_SUMMARY)),
        authors=tuple(authors),
        affiliations=tuple(affiliations) if any(affiliations) else (),
        primary_category=primary or (categories[0] if categories else ""),
        categories=tuple(categories),
        versions=tuple(versions),
        submitted=published,
        updated=updated,
        comments=comments,
        journal_ref=clean(fields.get(_JOURNAL)),
        doi=clean(fields.get(_DOI)),
        withdrawn=is_withdrawal_note(comments),
        source="atom",
    )


def _author(element: etree._Element) -> tuple[str, str]:
    name = ""
    affiliations = []
    for child in element:
        if child.tag == _NAME:
            name = clean(child.text)
        elif child.tag == _AFFILIATION:
            affiliations.append(clean(child.text))
    if not name:
        raise Malformed("author without a name")
    return tex_name(name), "; ".join(a for a in affiliations if a)


class QueryClient:
    """arXiv's query API by id list, over ``ArxivHttp`` (politeness, retries).

    Raises ArxivTransientError (retry later) or ArxivPermanentError (bad request; do not retry).
    """

    def __init__(self, http: ArxivHttp, base_url: str) -> None:
        self._http = http
        self._base_url = base_url

    def fetch_ids(self, ids: list[str]) -> Page:
        """Fetch papers by id (any accepted form; a version asks for that version), as one Page.

        Sends batches of at most 100 ids (``id_list`` + ``max_results``) and merges them. Ids
        arXiv does not know are simply absent. Raises InvalidArxivId before any request when an
        id is not an arXiv id (validate with ``split_valid_ids`` first).
        """
        records: list[PaperRecord] = []
        malformed: list[MalformedRecord] = []
        for page in self.fetch_ids_in_batches(ids):
            records.extend(page.records)
            malformed.extend(page.malformed)
        return Page(records, malformed, complete_list_size=len(records))

    def fetch_ids_in_batches(self, ids: list[str]) -> Iterator[Page]:
        """Like ``fetch_ids``, one Page per request of at most 100 ids, so each can be stored
        as soon as it arrives. Duplicates are asked for once."""
        wanted = list(dict.fromkeys(parse_arxiv_id(i).versioned for i in ids))
        for start in range(0, len(wanted), BATCH_SIZE):
            batch = wanted[start : start + BATCH_SIZE]
            yield self._fetch({"id_list": ",".join(batch), "max_results": str(len(batch))})

    def _fetch(self, params: dict[str, str]) -> Page:
        try:
            body = self._http.get(self._base_url, params=params)
        except ArxivPermanentError as exc:
            # The API answers a bad request with HTTP 400 and an Atom error feed: use its reason.
            if exc.body and b"<feed" in exc.body[:2048]:
                parse_atom_feed(exc.body)
            raise
        return parse_atom_feed(body)
