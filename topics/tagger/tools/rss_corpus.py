"""Read papers from the recorded arXiv RSS corpus (``YYYY-MM-DD-cs-lg.xml.gz`` files).

Used by the benchmark, the distillation tool and sanity checks; never at run time. Each item gives
the arXiv id, title, the abstract (the part of ``<description>`` after ``Abstract:``), categories
(primary first), authors (``dc:creator``, comma separated) and the announce type.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from lxml import etree

_DC = "{http://purl.org/dc/elements/1.1/}"
_ARXIV = "{http://arxiv.org/schemas/atom}"
_FILE_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})-")
_ID = re.compile(r"arxiv\.org/abs/([^\s?#]+?)(?:v\d+)?$")
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)


@dataclass(frozen=True)
class RssPaper:
    id: str
    title: str
    abstract: str
    categories: tuple[str, ...]
    authors: tuple[str, ...]
    announce_type: str
    file_date: date


def file_date(path: Path) -> date | None:
    m = _FILE_DATE.match(path.name)
    return date.fromisoformat(m.group(1)) if m else None


def corpus_files(folder: Path, *, start: date | None = None, end: date | None = None) -> list[Path]:
    """The corpus files whose capture date (from the file name) is in [start, end], sorted."""
    out = []
    for path in sorted(Path(folder).glob("*.xml*")):
        d = file_date(path)
        if d is None or (start and d < start) or (end and d > end):
            continue
        out.append(path)
    return out


def _text(el) -> str:
    return (el.text or "").strip() if el is not None else ""


def read_file(path: Path) -> Iterator[RssPaper]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as fh:
        data = fh.read()
    if not data.strip():
        return
    root = etree.fromstring(data, parser=_PARSER)
    d = file_date(path) or date.min
    for item in root.iter("item"):
        link = _text(item.find("link"))
        m = _ID.search(link)
        if not m:
            continue
        desc = _text(item.find("description"))
        _, sep, abstract = desc.partition("Abstract:")
        creators = _text(item.find(f"{_DC}creator"))
        yield RssPaper(
            id=m.group(1),
            title=" ".join(_text(item.find("title")).split()),
            abstract=" ".join((abstract if sep else "").split()),
            categories=tuple(_text(c) for c in item.findall("category") if _text(c)),
            authors=tuple(a.strip() for a in creators.split(",") if a.strip()),
            announce_type=_text(item.find(f"{_ARXIV}announce_type")),
            file_date=d,
        )


def read_corpus(
    folder: Path,
    *,
    start: date | None = None,
    end: date | None = None,
    announce_types: tuple[str, ...] | None = None,
    dedupe: bool = True,
) -> Iterator[RssPaper]:
    """Papers of the corpus in file order; each arXiv id once (first seen) when ``dedupe``."""
    seen: set[str] = set()
    for path in corpus_files(folder, start=start, end=end):
        for paper in read_file(path):
            if announce_types and paper.announce_type not in announce_types:
                continue
            if dedupe:
                if paper.id in seen:
                    continue
                seen.add(paper.id)
            yield paper
