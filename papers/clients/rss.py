"""arXiv's announcement feeds (https://info.arxiv.org/help/rss.html).

Two layouts: RSS 2.0 from rss.arxiv.org (since 2024: ``arxiv:announce_type``, ``dc:creator``, the
channel ``pubDate`` is the announcement date) and the older RSS 1.0/RDF from export.arxiv.org/rss
(type and primary category folded into the title: "Title. (arXiv:2307.01202v1 [cs.LG] UPDATED)").
Feeds carry no comments and no submission dates: records from them have no ``versions``,
``submitted`` or ``updated`` and never claim ``withdrawn``.
"""

from __future__ import annotations

import html
import re
from datetime import date, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING

from lxml import etree

from papers.arxiv_ids import parse_arxiv_id
from papers.clients._common import (
    Malformed,
    clean,
    parse_xml,
    read_element,
    required,
    salvage_id,
    split_authors,
    split_damaged,
)
from papers.clients.errors import MalformedResponse
from papers.clients.records import MalformedRecord, Page, PaperRecord

if TYPE_CHECKING:
    from papers.clients.http import ArxivHttp

_AX = "{http://arxiv.org/schemas/atom}"
_DC = "{http://purl.org/dc/elements/1.1/}"
_RSS1 = "{http://purl.org/rss/1.0/}"
_RDF = "{http://www.w3.org/1999/02/22-rdf-syntax-ns#}"
_ANNOUNCE, _DOI, _JOURNAL = _AX + "announce_type", _AX + "DOI", _AX + "journal_reference"
_CREATOR, _RIGHTS, _DC_DATE = _DC + "creator", _DC + "rights", _DC + "date"
_RDF_ROOT, _RSS1_CHANNEL, _RSS1_ITEM = _RDF + "RDF", _RSS1 + "channel", _RSS1 + "item"
_RSS1_TITLE, _RSS1_LINK, _RSS1_DESCRIPTION = _RSS1 + "title", _RSS1 + "link", _RSS1 + "description"

_DESCRIPTION = re.compile(r"\s*arXiv:(\S+)\s+Announce Type:\s*(\S+)")
_OLD_TITLE = re.compile(
    r"(?P<title>.*?)\.?\s*\(arXiv:(?P<id>\S+) \[(?P<primary>[^\]]+)\](?: (?P<kind>[A-Z ]+))?\)\s*$",
    re.DOTALL,
)
_TAG = re.compile(r"<[^>]+>")
_CATEGORY = re.compile(r"[a-z-]+(?:\.[A-Za-z-]+)?")
_SALVAGE = re.compile(rb"<(?:guid|link)[^>]*>\s*([^<]{1,200}?)\s*</(?:guid|link)>")


def parse_rss_feed(xml: bytes) -> Page:
    """Read one arXiv feed (either layout) into a Page whose ``announced`` is the feed's date.

    An item without a usable id or title becomes a MalformedRecord; the others are kept, also
    when one item's XML is broken. Raises MalformedResponse when the body is not such a feed.
    """
    try:
        root = parse_xml(xml)
        chunks = None
    except etree.XMLSyntaxError:
        root, chunks = split_damaged(xml, b"item")
    build: _Rss2Item | _RdfItem
    if root.tag == "rss":
        channel = root.find("channel")
        if channel is None:
            raise MalformedResponse("RSS feed without a channel")
        announced = _rss2_announced(channel)
        items, build = channel.iterchildren("item"), _Rss2Item(announced)
    elif root.tag == _RDF_ROOT:
        channel = root.find(_RSS1_CHANNEL)
        if channel is None:
            raise MalformedResponse("RDF feed without a channel")
        announced = _rdf_announced(channel)
        items = root.iterchildren(_RSS1_ITEM)
        build = _RdfItem(announced, _feed_categories(channel))
    else:
        raise MalformedResponse(f"not an arXiv feed (root element {root.tag!r})")
    records: list[PaperRecord] = []
    malformed: list[MalformedRecord] = []
    if chunks is None:
        for item in items:
            read_element(item, build, _identify, records, malformed)
    else:
        for chunk, element in chunks:
            if isinstance(element, Exception):
                identifier = _short_id(salvage_id(chunk, _SALVAGE))
                malformed.append(MalformedRecord(identifier, f"broken XML: {element}"))
            else:
                read_element(element, build, _identify, records, malformed)
    return Page(records, malformed, announced=announced)


def _rss2_announced(channel: etree._Element) -> date | None:
    # "Fri, 31 May 2024 00:00:00 -0400": the day arXiv's listing is labelled with, in its zone.
    text = channel.findtext("pubDate")
    if not text:
        return None
    try:
        return parsedate_to_datetime(text.strip()).date()
    except (TypeError, ValueError, IndexError):
        return None


def _rdf_announced(channel: etree._Element) -> date | None:
    # dc:date is the evening of the mailing ("2023-07-05T20:30:00-05:00"); arXiv labels that
    # mailing with the next day, as the RSS 2.0 pubDate does, so evenings move on one day.
    text = channel.findtext(_DC_DATE)
    if not text:
        return None
    try:
        stamp = datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    return stamp.date() + timedelta(days=1) if stamp.hour >= 12 else stamp.date()


def _feed_categories(channel: etree._Element) -> frozenset[str]:
    # "cs.LG updates on arXiv.org" names the feed; "cs.LG+cs.AI" names several.
    title = clean(channel.findtext(_RSS1_TITLE))
    return frozenset(title.split(" ", 1)[0].split("+")) if title else frozenset()


def _short_id(text: str) -> str:
    return text.rpartition("/abs/")[2].removeprefix("oai:arXiv.org:") if text else ""


def _identify(item: etree._Element) -> str:
    for tag in ("guid", "link", _RSS1_LINK):
        text = item.findtext(tag)
        if text:
            return _short_id(clean(text))
    return _short_id(item.get(_RDF + "about", ""))


class _Rss2Item:
    """Builds records from rss.arxiv.org items (RSS 2.0)."""

    def __init__(self, announced: date | None) -> None:
        self.announced = announced

    def __call__(self, item: etree._Element) -> PaperRecord:
        fields: dict[str, str | None] = {}
        categories: list[str] = []
        for child in item:
            if child.tag == "category":
                if child.text:
                    categories.append(child.text.strip())
            else:
                fields[child.tag] = child.text
        description = fields.get("description") or ""
        head = _DESCRIPTION.match(description)
        # The guid ("oai:arXiv.org:2501.00001v2") and the description both name the version.
        arxiv_id = parse_arxiv_id(
            fields.get("guid")
            or (head.group(1) if head else "")
            or required(fields.get("link"), "id")
        )
        if arxiv_id.version is None and head:
            arxiv_id = parse_arxiv_id(head.group(1))
        _, found, abstract = description.partition("Abstract: ")
        authors, affiliations = split_authors(fields.get(_CREATOR))
        announce_type = clean(fields.get(_ANNOUNCE)) or (head.group(2) if head else "")
        return PaperRecord(
            arxiv_id=arxiv_id.canonical,
            version=arxiv_id.version or 1,
            title=required(fields.get("title"), "title"),
            abstract=clean(abstract if found else description),
            authors=authors,
            affiliations=affiliations,
            primary_category=categories[0] if categories else "",  # arXiv lists it first
            categories=tuple(categories),
            announced=self.announced,
            journal_ref=clean(fields.get(_JOURNAL)),
            doi=clean(fields.get(_DOI)),
            license=clean(fields.get(_RIGHTS)),
            announce_type=announce_type,
            source="rss",
        )


class _RdfItem:
    """Builds records from export.arxiv.org/rss items (RSS 1.0/RDF, before 2024)."""

    def __init__(self, announced: date | None, feed_categories: frozenset[str]) -> None:
        self.announced = announced
        self.feed_categories = feed_categories

    def __call__(self, item: etree._Element) -> PaperRecord:
        raw_title = required(item.findtext(_RSS1_TITLE), "title")
        match = _OLD_TITLE.match(raw_title)
        if match is None:
            raise Malformed(f"title without the (arXiv:id [category]) suffix: {raw_title[:80]!r}")
        arxiv_id = parse_arxiv_id(match["id"])
        primary = match["primary"].strip()
        description = html.unescape(_TAG.sub(" ", item.findtext(_RSS1_DESCRIPTION) or ""))
        creators = html.unescape(_TAG.sub("", item.findtext(_CREATOR) or ""))
        authors, affiliations = split_authors(creators)
        return PaperRecord(
            arxiv_id=arxiv_id.canonical,
            version=arxiv_id.version or 1,
            title=required(match["title"], "title"),
            abstract=clean(description),
            authors=authors,
            affiliations=affiliations,
            primary_category=primary,
            categories=(primary,),
            announced=self.announced,
            announce_type=self._announce_type(match["kind"] or "", primary),
            source="rss:rdf",
        )

    def _announce_type(self, kind: str, primary: str) -> str:
        if kind == "CROSS LISTED":
            return "cross"
        # Unknown feed categories: say "new"/"replace" rather than guess a cross-list.
        home = not self.feed_categories or bool(
            {primary, primary.split(".")[0]} & self.feed_categories
        )
        if kind == "UPDATED":
            return "replace" if home else "replace-cross"
        return "new" if home else "cross"


class RssClient:
    """arXiv's RSS feeds over ``ArxivHttp`` (politeness, retries).

    Raises ArxivTransientError (retry later) or ArxivPermanentError (do not).
    """

    def __init__(self, http: ArxivHttp, base_url: str) -> None:
        self._http = http
        self._base_url = base_url.rstrip("/")

    def fetch(self, categories: list[str]) -> Page:
        """The latest announcement for these categories, in one request (``cs.LG+cs.AI``).

        Raises ValueError for a category name that could not be arXiv's.
        """
        if not categories:
            raise ValueError("no categories to fetch")
        for category in categories:
            if not _CATEGORY.fullmatch(category):
                raise ValueError(f"not an arXiv category: {category!r}")
        return parse_rss_feed(self._http.get(f"{self._base_url}/{'+'.join(categories)}"))
