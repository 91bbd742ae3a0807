"""Offline import of saved arXiv responses: OAI-PMH XML, RSS 2.0 / RSS 1.0 (RDF) feeds and
query-API Atom, plain or gzip-compressed. Each file is stored page by page like a harvest."""

from __future__ import annotations

import gzip
from collections.abc import Callable, Iterable
from pathlib import Path

from django.db import transaction
from lxml import etree

from papers.clients.atom import parse_atom_feed
from papers.clients.oai import parse_oai_page
from papers.clients.records import Page
from papers.clients.rss import parse_rss_feed
from papers.services.harvest import _queue_tagging_on_commit
from papers.services.storage import UpsertResult, page_store


class UnknownFileFormat(ValueError):
    pass


def read_bytes(path: Path) -> bytes:
    data = path.read_bytes()
    # gzip by its magic number, not its name: saved feeds are not always named for what they are.
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def sniff_root(data: bytes) -> str:
    """The local name of the document's root element, read without parsing the whole file."""
    try:
        for _, element in etree.iterparse(_BytesReader(data), events=("start",), recover=True):
            return etree.QName(element).localname
    except etree.XMLSyntaxError:
        pass
    return ""


class _BytesReader:
    def __init__(self, data: bytes) -> None:
        self._data = data
        self._offset = 0

    def read(self, size: int = -1) -> bytes:
        end = len(self._data) if size < 0 else self._offset + size
        chunk = self._data[self._offset : end]
        self._offset = end
        return chunk


PARSERS: dict[str, Callable[[bytes], Page]] = {
    "OAI-PMH": parse_oai_page,
    "rss": parse_rss_feed,
    "RDF": parse_rss_feed,
    "feed": parse_atom_feed,
}


def parse_file(path: Path) -> Page:
    data = read_bytes(path)
    root = sniff_root(data)
    parser = PARSERS.get(root)
    if parser is None:
        raise UnknownFileFormat(
            f"{path}: not an OAI-PMH, RSS or Atom file (root element {root or 'unreadable'!r})"
        )
    return parser(data)


def import_files(
    *,
    paths: Iterable[Path],
    progress: Callable[[str], None] = lambda _: None,
    queue_tagging: bool = True,
) -> UpsertResult:
    """Import saved files in order; each file is one transaction. Raises UnknownFileFormat
    before storing anything from a file that is not an arXiv response. New papers are queued
    for tagging unless the caller tags them itself (`queue_tagging=False`)."""
    total = UpsertResult()
    paths = list(paths)
    for number, path in enumerate(paths, start=1):
        page = parse_file(path)
        with transaction.atomic():
            result = page_store(page=page, source=str(path))
            if queue_tagging:
                _queue_tagging_on_commit(result.retag_ids)
        total.add(result)
        progress(f"[{number}/{len(paths)}] {path.name}: {total.summary()}")
    return total
