"""Helpers the three parsers share: XML parsing with a per-record fallback, text clean-up,
author lists, dates and withdrawal notes. Private to papers.clients."""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Callable
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TypeVar

from lxml import etree

from papers.clients.errors import MalformedResponse
from papers.clients.records import MalformedRecord, PaperRecord

T = TypeVar("T")

# --- XML ----------------------------------------------------------------------------------------
_local = threading.local()  # lxml parsers must not be shared between threads


def _parser() -> etree.XMLParser:
    parser = getattr(_local, "parser", None)
    if parser is None:
        # No entities, no network, no DTD: a feed is data, never instructions to the parser.
        # Dropping whitespace-only text between elements makes pretty-printed pages ~10% faster.
        parser = etree.XMLParser(
            resolve_entities=False,
            no_network=True,
            load_dtd=False,
            remove_blank_text=True,
            collect_ids=False,
        )
        _local.parser = parser
    return parser


def parse_xml(xml: bytes) -> etree._Element:
    """Parse a whole document; raise etree.XMLSyntaxError when it is not well-formed."""
    return etree.fromstring(xml, _parser())


_NS_DECL = re.compile(rb"""\sxmlns(?::[\w.-]+)?\s*=\s*(?:"[^"]*"|'[^']*')""")
_ROOT_TAG = re.compile(rb"<(?![?!])[^>]*>")


def split_damaged(xml: bytes, tag: bytes) -> tuple[etree._Element, list[tuple[bytes, object]]]:
    """Read a document whose XML is broken somewhere inside its repeated ``<tag>`` elements.

    Returns the envelope (the document with every ``<tag>`` element cut out, parsed) and, for each
    element in order, its bytes and either the parsed element or the XMLSyntaxError it raised.
    Raises MalformedResponse when the envelope itself is broken (a body cut short, not XML).
    """
    starts = [m.start() for m in re.finditer(rb"<" + tag + rb"[\s>/]", xml)]
    closing = b"</" + tag + b">"
    end = xml.rfind(closing)
    if not starts or end < starts[-1]:
        raise MalformedResponse("response is not well-formed XML")
    end += len(closing)
    root_tag = _ROOT_TAG.search(xml)
    declarations = b"".join(_NS_DECL.findall(root_tag.group(0))) if root_tag else b""
    try:
        envelope = parse_xml(xml[: starts[0]] + xml[end:])
    except etree.XMLSyntaxError as exc:
        raise MalformedResponse(f"response is not well-formed XML: {exc}") from exc
    chunks: list[tuple[bytes, object]] = []
    for start, stop in zip(starts, [*starts[1:], end], strict=True):
        chunk = xml[start:stop]
        try:
            wrapper = parse_xml(b"<w" + declarations + b">" + chunk + b"</w>")
            chunks.append((chunk, wrapper[0]))
        except (etree.XMLSyntaxError, IndexError) as exc:
            chunks.append((chunk, exc))
    return envelope, chunks


def read_element(
    element: etree._Element,
    build: Callable[[etree._Element], PaperRecord | None],
    identify: Callable[[etree._Element], str],
    records: list[PaperRecord],
    malformed: list[MalformedRecord],
) -> None:
    """Turn one element into a record, or into a MalformedRecord when its content is unusable."""
    try:
        record = build(element)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
        malformed.append(MalformedRecord(identify(element), str(exc) or type(exc).__name__))
        return
    if record is not None:
        records.append(record)


def salvage_id(chunk: bytes, pattern: re.Pattern[bytes]) -> str:
    """Best-effort id from the bytes of a record that is not even XML."""
    match = pattern.search(chunk)
    return clean(match.group(1).decode("utf-8", "replace")) if match else ""


# --- text ---------------------------------------------------------------------------------------
def clean(text: str | None) -> str:
    """Collapse every run of whitespace to one space (one fixture was pretty-printed)."""
    return " ".join(text.split()) if text else ""


class Malformed(ValueError):
    """A record lacks something every record must have."""


def required(text: str | None, what: str) -> str:
    value = clean(text)
    if not value:
        raise Malformed(f"no {what}")
    return value


# A withdrawal note opens the comments ("This paper has been withdrawn by the author ...").
# Mentions elsewhere ("v2: withdrawn claim corrected") are not withdrawals, so anchor at the start.
_WITHDRAWN = re.compile(
    r"\s*(?:this\s+(?:paper|article|manuscript|submission|preprint|work|version)\s+"
    r"(?:has\s+been|is|was)\s+withdrawn|(?:paper\s+)?withdrawn\b)",
    re.IGNORECASE,
)


def is_withdrawal_note(comments: str) -> bool:
    return bool(comments) and _WITHDRAWN.match(comments) is not None


# --- authors ------------------------------------------------------------------------------------
# arXiv gives authors as one string: "A. B (MIT), C. D and E. F", sometimes with numbered
# affiliations "A (1), B (1, 2) ((1) MIT, (2) ETH)". Commas inside parentheses are not separators.
_GROUP = re.compile(r"\((?:[^()]|\([^()]*\))*\)")
_SEPARATOR = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s*;\s*")
_PLACEHOLDER = re.compile(r"\x00(\d+)\x00")
_REFERENCES = re.compile(r"[\d\s,;&]+|(?:\d+\s*(?:,|and|&)\s*)+\d+")
_LEGEND_SPLIT = re.compile(r"\(\s*(\d+)\s*\)")
_SUFFIXES = frozenset({"Jr", "Jr.", "Sr", "Sr.", "II", "III", "IV"})
_DROP = frozenset({"et al", "et al.", "others"})
_ET_AL = re.compile(r"\s+et\s+al\.?$")


def split_authors(raw: str | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Split arXiv's author string into (display names, affiliations parallel to them or ())."""
    text = clean(raw)
    if not text:
        return (), ()
    if "et al" in text:
        text = _ET_AL.sub("", text)
    if "(" not in text:
        plain = [p for p in _SEPARATOR.split(text) if p and p not in _DROP]
        if "Jr" in text or "Sr" in text or " I" in text:
            plain = _merge_suffixes(plain)
        if "\\" in text or "{" in text:
            plain = [tex_name(n) for n in plain]
        return tuple(plain), ()
    groups: list[str] = []

    def hide(match: re.Match[str]) -> str:
        groups.append(match.group(0)[1:-1].strip())
        return f"\x00{len(groups) - 1}\x00"

    masked = _GROUP.sub(hide, text)
    legend: dict[str, str] = {}
    names: list[str] = []
    affiliations: list[str] = []
    for piece in _SEPARATOR.split(masked):
        found = [groups[int(i)] for i in _PLACEHOLDER.findall(piece)]
        name = clean(_PLACEHOLDER.sub(" ", piece)).replace("\x00", "")
        own = []
        for group in found:
            if group.startswith("("):
                legend.update(_read_legend(group))
            else:
                own.append(group)
        if not name or name in _DROP:
            continue
        if name in _SUFFIXES and names:
            names[-1] = f"{names[-1]} {name}"
            continue
        names.append(tex_name(name))
        affiliations.append("; ".join(own))
    if legend:
        affiliations = [_resolve(a, legend) for a in affiliations]
    if not any(affiliations):
        return tuple(names), ()
    return tuple(names), tuple(tex_name(a) if "\\" in a else a for a in affiliations)


def _merge_suffixes(names: list[str]) -> list[str]:
    merged: list[str] = []
    for name in names:
        if name in _SUFFIXES and merged:
            merged[-1] = f"{merged[-1]} {name}"
        else:
            merged.append(name)
    return merged


def _read_legend(group: str) -> dict[str, str]:
    parts = _LEGEND_SPLIT.split(group)
    return {parts[i]: parts[i + 1].strip(" ,;") for i in range(1, len(parts) - 1, 2)}


def _resolve(affiliation: str, legend: dict[str, str]) -> str:
    if not affiliation or not _REFERENCES.fullmatch(affiliation):
        return affiliation
    numbers = re.findall(r"\d+", affiliation)
    return "; ".join(legend.get(n, n) for n in numbers)


# TeX accents in names ("Br\\'eg\\`ere") become letters; titles and abstracts keep their TeX.
_COMBINING = {
    "`": "\u0300", "'": "\u0301", "^": "\u0302", "~": "\u0303", "=": "\u0304", "u": "\u0306",
    ".": "\u0307", '"': "\u0308", "r": "\u030a", "H": "\u030b", "v": "\u030c", "c": "\u0327",
    "k": "\u0328",
}  # fmt: skip
_LETTERS = {
    "o": "ø", "O": "Ø", "l": "ł", "L": "Ł", "ss": "ß", "ae": "æ", "AE": "Æ", "oe": "œ",
    "OE": "Œ", "aa": "å", "AA": "Å", "i": "ı", "j": "ȷ",
}  # fmt: skip
_ACCENT = re.compile(
    r"""\\([`'^"~=.])\s*(?:\{\s*(\\i|[A-Za-z])\s*\}|(\\i|[A-Za-z]))"""
    r"""|\\([uvHckr])(?:\s*\{\s*(\\i|[A-Za-z])\s*\}|\s+([A-Za-z]))"""
)
_LETTER = re.compile(r"\\(ss|ae|AE|oe|OE|aa|AA|[oOlLij])(?![A-Za-z])\s?")


def tex_name(name: str) -> str:
    if "\\" not in name:
        return name.replace("{", "").replace("}", "") if "{" in name else name

    def accent(match: re.Match[str]) -> str:
        if match.group(1):
            mark, base = match.group(1), match.group(2) or match.group(3)
        else:
            mark, base = match.group(4), match.group(5) or match.group(6)
        base = "i" if base == "\\i" else base
        return base + _COMBINING[mark]

    text = _ACCENT.sub(accent, name)
    text = _LETTER.sub(lambda m: _LETTERS[m.group(1)], text)
    if "\\" not in text:
        text = text.replace("{", "").replace("}", "")
    return unicodedata.normalize("NFC", text)


# --- dates --------------------------------------------------------------------------------------
_MONTHS = {
    m: i
    for i, m in enumerate(
        ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1
    )
}


def rfc822_utc(text: str) -> datetime:
    """'Fri, 8 Feb 2013 21:00:01 GMT' (or any RFC 2822 date) as an aware UTC datetime."""
    parts = text.split()
    # The common arXivRaw form is parsed by hand: parsedate_to_datetime is several times slower.
    if len(parts) == 6 and parts[5] == "GMT" and parts[2] in _MONTHS:
        hour, minute, second = parts[4].split(":")
        return datetime(
            int(parts[3]), _MONTHS[parts[2]], int(parts[1]), int(hour), int(minute), int(second),
            tzinfo=UTC,
        )  # fmt: skip
    try:
        value = parsedate_to_datetime(text.strip())
    except (TypeError, IndexError) as exc:
        raise Malformed(f"bad date {text!r}") from exc
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def iso_utc(text: str) -> datetime:
    """'2017-07-27T08:18:33Z' as an aware UTC datetime."""
    value = datetime.fromisoformat(text.strip())
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
