"""arXiv's OAI-PMH interface: ListRecords/GetRecord in the ``arXivRaw`` and ``arXiv`` formats.

https://info.arxiv.org/help/oa/index.html: arXivRaw is the only format with the version history;
datestamps are last-modified dates; resumption tokens expire after about a day.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING

from lxml import etree

from papers.arxiv_ids import parse_arxiv_id
from papers.clients._common import (
    Malformed,
    clean,
    is_withdrawal_note,
    parse_xml,
    read_element,
    required,
    rfc822_utc,
    salvage_id,
    split_authors,
    split_damaged,
    tex_name,
)
from papers.clients.errors import ArxivPermanentError, BadResumptionToken, MalformedResponse
from papers.clients.records import MalformedRecord, Page, PaperRecord, VersionInfo

if TYPE_CHECKING:
    from papers.clients.http import ArxivHttp

_OAI = "{http://www.openarchives.org/OAI/2.0/}"
_RAW = "{http://arxiv.org/OAI/arXivRaw/}"
_ARX = "{http://arxiv.org/OAI/arXiv/}"
_ROOT, _ERROR, _RECORD, _TOKEN = (
    _OAI + t for t in ("OAI-PMH", "error", "record", "resumptionToken")
)
_CONTAINERS = frozenset({_OAI + "ListRecords", _OAI + "GetRecord"})
_HEADER, _METADATA, _IDENTIFIER, _DATESTAMP = (
    _OAI + t for t in ("header", "metadata", "identifier", "datestamp")
)
_RAW_ROOT, _RAW_VERSION = _RAW + "arXivRaw", _RAW + "version"
_RAW_DATE, _RAW_SIZE, _RAW_SOURCE = _RAW + "date", _RAW + "size", _RAW + "source_type"
_RAW_ID, _RAW_TITLE, _RAW_AUTHORS, _RAW_ABSTRACT, _RAW_CATEGORIES = (
    _RAW + t for t in ("id", "title", "authors", "abstract", "categories")
)
_RAW_COMMENTS, _RAW_JOURNAL, _RAW_DOI, _RAW_LICENSE = (
    _RAW + t for t in ("comments", "journal-ref", "doi", "license")
)
_ARX_ROOT, _ARX_AUTHORS = _ARX + "arXiv", _ARX + "authors"
_ARX_KEYNAME, _ARX_FORENAMES, _ARX_SUFFIX, _ARX_AFFILIATION = (
    _ARX + t for t in ("keyname", "forenames", "suffix", "affiliation")
)
_OAI_PREFIX = "oai:arXiv.org:"
_SALVAGE = re.compile(rb"<identifier>\s*([^<]{1,100}?)\s*</identifier>")


def parse_oai_page(xml: bytes) -> Page:
    """Read one OAI-PMH response (ListRecords or GetRecord, arXivRaw or arXiv format).

    Deleted records are skipped; a record whose metadata is unusable becomes a MalformedRecord
    and the rest of the page is kept, also when one record's XML is broken. ``noRecordsMatch``
    is an empty page. Raises BadResumptionToken for ``badResumptionToken``, ArxivPermanentError
    for any other OAI-PMH error, MalformedResponse when the document is not a whole OAI-PMH
    response.
    """
    try:
        root = parse_xml(xml)
    except etree.XMLSyntaxError:
        return _parse_damaged(xml)
    container = _container(root)
    if container is None:
        return Page()
    records: list[PaperRecord] = []
    malformed: list[MalformedRecord] = []
    token_element = None
    for child in container:
        if child.tag == _RECORD:
            read_element(child, _build, _identify, records, malformed)
        elif child.tag == _TOKEN:
            token_element = child
    return _page(records, malformed, token_element)


def _parse_damaged(xml: bytes) -> Page:
    envelope, chunks = split_damaged(xml, b"record")
    container = _container(envelope)
    if container is None:
        return Page()
    records: list[PaperRecord] = []
    malformed: list[MalformedRecord] = []
    for chunk, element in chunks:
        if isinstance(element, Exception):
            identifier = salvage_id(chunk, _SALVAGE).removeprefix(_OAI_PREFIX)
            malformed.append(MalformedRecord(identifier, f"broken XML: {element}"))
        else:
            read_element(element, _build, _identify, records, malformed)
    return _page(records, malformed, container.find(_TOKEN))


def _container(root: etree._Element) -> etree._Element | None:
    """The ListRecords/GetRecord element; None for noRecordsMatch; raises for other errors."""
    if root.tag != _ROOT:
        raise MalformedResponse(f"not an OAI-PMH response (root element {root.tag!r})")
    for child in root:
        if child.tag in _CONTAINERS:
            return child
        if child.tag == _ERROR:
            code, message = child.get("code", ""), clean(child.text)
            if code == "noRecordsMatch":
                return None
            error = BadResumptionToken if code == "badResumptionToken" else ArxivPermanentError
            raise error(f"OAI-PMH {code}: {message}", code=code)
    raise MalformedResponse("OAI-PMH response without ListRecords or GetRecord")


def _page(
    records: list[PaperRecord], malformed: list[MalformedRecord], token: etree._Element | None
) -> Page:
    if token is None:
        return Page(records, malformed)
    size = token.get("completeListSize")
    return Page(
        records,
        malformed,
        resumption_token=clean(token.text) or None,  # the last page has an empty token
        complete_list_size=int(size) if size and size.isdigit() else None,
    )


def _identify(record: etree._Element) -> str:
    text = record.findtext(f"{_HEADER}/{_IDENTIFIER}")
    return clean(text).removeprefix(_OAI_PREFIX)


def _build(record: etree._Element) -> PaperRecord | None:
    header = metadata = None
    for child in record:
        if child.tag == _HEADER:
            header = child
        elif child.tag == _METADATA:
            metadata = child
    if header is None:
        raise Malformed("no header")
    if header.get("status") == "deleted":
        return None
    stamp = header.findtext(_DATESTAMP)
    datestamp = date.fromisoformat(stamp.strip()[:10]) if stamp else None
    if metadata is None or len(metadata) == 0:
        raise Malformed("no metadata")
    payload = metadata[0]
    if payload.tag == _RAW_ROOT:
        return _from_arxiv_raw(payload, datestamp)
    if payload.tag == _ARX_ROOT:
        return _from_arxiv(payload, datestamp)
    raise Malformed(f"unsupported metadata format {payload.tag!r}")


def _from_arxiv_raw(element: etree._Element, datestamp: date | None) -> PaperRecord:
    fields: dict[str, str | None] = {}
    versions: list[tuple[VersionInfo, str]] = []
    for child in element:  # one pass: each step through lxml's proxies costs
        tag = child.tag
        if tag == _RAW_VERSION:
            versions.append(_version(child))
        else:
            fields[tag] = child.text
    versions.sort(key=_version_number)
    arxiv_id = parse_arxiv_id(required(fields.get(_RAW_ID), "id"))
    if not versions:
        raise Malformed("no version history")
    latest, latest_source = versions[-1]
    comments = clean(fields.get(_RAW_COMMENTS))
    authors, affiliations = split_authors(fields.get(_RAW_AUTHORS))
    categories = tuple(clean(fields.get(_RAW_CATEGORIES)).split())
    return PaperRecord(
        arxiv_id=arxiv_id.canonical,
        version=latest.version,
        title=required(fields.get(_RAW_TITLE), "title"),
        abstract=clean(fields.get(_RAW_ABSTRACT)),
        authors=authors,
        affiliations=affiliations,
        primary_category=categories[0] if categories else "",
        categories=categories,
        versions=tuple(v for v, _ in versions),
        submitted=versions[0][0].submitted,
        updated=latest.submitted,
        comments=comments,
        journal_ref=clean(fields.get(_RAW_JOURNAL)),
        doi=clean(fields.get(_RAW_DOI)),
        license=clean(fields.get(_RAW_LICENSE)),
        # arXiv marks a withdrawn version with source type "I" and no source (0kb); the
        # comments then open with the withdrawal note.
        withdrawn=latest.size == "0kb" or "I" in latest_source or is_withdrawal_note(comments),
        datestamp=datestamp,
        source="oai:arXivRaw",
    )


def _version(element: etree._Element) -> tuple[VersionInfo, str]:
    label = element.get("version", "")
    if label[:1] != "v" or not label[1:].isdigit():
        raise Malformed(f"bad version label {label!r}")
    submitted = size = source_type = None
    for child in element:
        tag = child.tag
        if tag == _RAW_DATE:
            submitted = child.text
        elif tag == _RAW_SIZE:
            size = child.text
        elif tag == _RAW_SOURCE:
            source_type = child.text
    if not submitted:
        raise Malformed(f"version {label} has no date")
    info = VersionInfo(int(label[1:]), rfc822_utc(submitted), size.strip() if size else "")
    return info, source_type or ""


def _version_number(item: tuple[VersionInfo, str]) -> int:
    return item[0].version


def _from_arxiv(element: etree._Element, datestamp: date | None) -> PaperRecord:
    fields: dict[str, str | None] = {}
    authors: list[str] = []
    affiliations: list[str] = []
    for child in element:
        if child.tag == _ARX_AUTHORS:
            for author in child:
                name, affiliation = _author(author)
                authors.append(name)
                affiliations.append(affiliation)
        else:
            fields[child.tag[len(_ARX) :]] = child.text
    arxiv_id = parse_arxiv_id(required(fields.get("id"), "id"))
    created = _midnight_utc(fields.get("created"))
    updated = _midnight_utc(fields.get("updated"))
    comments = clean(fields.get("comments"))
    categories = tuple(clean(fields.get("categories")).split())
    return PaperRecord(
        arxiv_id=arxiv_id.canonical,
        # This format names no version: one when never updated, else "more than one" (0).
        version=1 if updated is None else 0,
        title=required(fields.get("title"), "title"),
        abstract=clean(fields.get("abstract")),
        authors=tuple(authors),
        affiliations=tuple(affiliations) if any(affiliations) else (),
        primary_category=categories[0] if categories else "",
        categories=categories,
        versions=(VersionInfo(1, created),) if created else (),
        submitted=created,
        updated=updated or created,
        comments=comments,
        journal_ref=clean(fields.get("journal-ref")),
        doi=clean(fields.get("doi")),
        license=clean(fields.get("license")),
        withdrawn=is_withdrawal_note(comments),
        datestamp=datestamp,
        source="oai:arXiv",
    )


def _author(element: etree._Element) -> tuple[str, str]:
    parts = {_ARX_FORENAMES: "", _ARX_KEYNAME: "", _ARX_SUFFIX: ""}
    affiliations = []
    for child in element:
        if child.tag == _ARX_AFFILIATION:
            affiliations.append(clean(child.text))
        elif child.tag in parts:
            parts[child.tag] = clean(child.text)
    name = " ".join(
        p for p in (parts[_ARX_FORENAMES], parts[_ARX_KEYNAME], parts[_ARX_SUFFIX]) if p
    )
    if not name:
        raise Malformed("author without a name")
    return tex_name(name), "; ".join(a for a in affiliations if a)


def _midnight_utc(text: str | None) -> datetime | None:
    """The ``arXiv`` format gives dates only; they stand for midnight UTC of that day."""
    if not text or not text.strip():
        return None
    day = date.fromisoformat(text.strip())
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


class OaiClient:
    """arXiv's OAI-PMH endpoint over ``ArxivHttp`` (which brings politeness and retries).

    Every method raises ArxivTransientError (retry later) or ArxivPermanentError (do not);
    BadResumptionToken means the token expired and the harvest restarts from its watermark.
    """

    def __init__(self, http: ArxivHttp, base_url: str) -> None:
        self._http = http
        self._base_url = base_url

    def list_records(
        self,
        metadata_prefix: str = "arXivRaw",
        set_spec: str | None = None,
        from_date: date | None = None,
        until_date: date | None = None,
        *,
        resumption_token: str | None = None,
    ) -> Iterator[Page]:
        """Yield page after page, following resumption tokens until the list ends.

        Each page carries the token for the next one, so a caller that stores it after
        committing the page can resume with ``resumption_token=`` (the other arguments are then
        ignored, as OAI-PMH requires). arXiv suggests giving ``from`` and leaving ``until`` unset
        for incremental harvests.
        """
        if resumption_token:
            params = {"verb": "ListRecords", "resumptionToken": resumption_token}
        else:
            params = {"verb": "ListRecords", "metadataPrefix": metadata_prefix}
            if set_spec:
                params["set"] = set_spec
            if from_date:
                params["from"] = from_date.isoformat()
            if until_date:
                params["until"] = until_date.isoformat()
        while True:
            page = self._fetch(params)
            yield page
            if not page.resumption_token:
                return
            params = {"verb": "ListRecords", "resumptionToken": page.resumption_token}

    def get_record(self, arxiv_id: str, metadata_prefix: str = "arXivRaw") -> PaperRecord | None:
        """One paper by id (any accepted form), or None when arXiv does not know it."""
        identifier = _OAI_PREFIX + parse_arxiv_id(arxiv_id).canonical
        params = {"verb": "GetRecord", "identifier": identifier, "metadataPrefix": metadata_prefix}
        try:
            page = self._fetch(params)
        except ArxivPermanentError as exc:
            if exc.code == "idDoesNotExist":
                return None
            raise
        if page.malformed:
            raise ArxivPermanentError(f"{identifier}: {page.malformed[0].reason}", code="malformed")
        return page.records[0] if page.records else None

    def _fetch(self, params: dict[str, str]) -> Page:
        try:
            body = self._http.get(self._base_url, params=params)
        except ArxivPermanentError as exc:
            # Some OAI-PMH servers send their error documents with a 4xx status.
            if b"<OAI-PMH" in exc.body[:4096]:
                return parse_oai_page(exc.body)
            raise
        return parse_oai_page(body)
