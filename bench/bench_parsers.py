"""Parsing throughput of the arXiv clients, one core, no database.

    python bench/bench_parsers.py [--shared ../shared/data/arxiv] [--repeat 3]

Rows: OAI-PMH arXivRaw (the recorded pages repeated to about 50,000 records), the RSS corpus
(the whole half-year cs.LG feed archive under ../shared when present, else the fixtures), and
the query API's Atom next to the ``arxiv`` package (4.x) parsing the very same bytes. Files are
read and gunzipped before the clock starts; each row is the best of --repeat runs.
"""

from __future__ import annotations

import argparse
import gc
import gzip
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from papers.clients.atom import parse_atom_feed  # noqa: E402
from papers.clients.errors import ArxivPermanentError  # noqa: E402
from papers.clients.oai import parse_oai_page  # noqa: E402
from papers.clients.rss import parse_rss_feed  # noqa: E402

FIXTURES = ROOT / "papers" / "tests" / "fixtures"
TARGET_OAI_RECORDS = 50_000
TARGET_ATOM_ENTRIES = 20_000


def read(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def best_of(repeat: int, run: Callable[[], int]) -> tuple[float, int]:
    """(fastest wall time, records) over ``repeat`` runs; each run starts after a collection."""
    best, count = float("inf"), 0
    for _ in range(repeat):
        gc.collect()
        started = time.perf_counter()
        count = run()
        best = min(best, time.perf_counter() - started)
    return best, count


def repeated(documents: list[bytes], parse: Callable[[bytes], object], count, target: int):
    per_pass = sum(count(parse(d)) for d in documents)
    return documents * max(1, -(-target // per_pass))


def oai_rows(repeat: int) -> list[tuple[str, int, float, int]]:
    def records(page) -> int:
        return len(page.records)

    rows = []
    raw_files = sorted((FIXTURES / "oai").glob("*arXivRaw*"))
    raw_files = [p for p in raw_files if "derived" not in p.name]
    docs = repeated([read(p) for p in raw_files], parse_oai_page, records, TARGET_OAI_RECORDS)
    elapsed, n = best_of(repeat, lambda: sum(len(parse_oai_page(d).records) for d in docs))
    rows.append(("OAI-PMH arXivRaw, recorded pages (mostly the pretty-printed 2016 page)",
                 len(docs), elapsed, n))  # fmt: skip
    compact = FIXTURES / "oai" / "oai_2015_listrecords_arXivRaw_from_2014-10-01_truncated.xml"
    docs = repeated([read(compact)], parse_oai_page, records, TARGET_OAI_RECORDS)
    elapsed, n = best_of(repeat, lambda: sum(len(parse_oai_page(d).records) for d in docs))
    rows.append(("OAI-PMH arXivRaw, compact 2015 page (arXiv's own layout)", len(docs), elapsed, n))
    return rows


def rss_rows(shared: Path | None, repeat: int) -> list[tuple[str, int, float, int]]:
    corpus = shared / "rss" / "cs.LG_daily_2025H1_gz" if shared else None
    if corpus and corpus.is_dir():
        files, label = sorted(corpus.glob("*.xml.gz")), "RSS, whole cs.LG 2025H1 corpus (shared)"
    else:
        files, label = sorted((FIXTURES / "rss").glob("*.xml*")), "RSS, fixtures (corpus absent)"
    docs = [read(p) for p in files]
    elapsed, n = best_of(repeat, lambda: sum(len(parse_rss_feed(d).records) for d in docs))
    rows = [(label, len(docs), elapsed, n)]
    biggest = max(docs, key=len)
    elapsed, n = best_of(repeat, lambda: len(parse_rss_feed(biggest).records))
    rows.append(("RSS, the largest single daily file", 1, elapsed, n))
    try:
        import feedparser
    except ImportError:
        return rows
    sample = [read(p) for p in sorted((FIXTURES / "rss").glob("luvata_2024-06-01-*"))]
    elapsed, n = best_of(1, lambda: sum(len(feedparser.parse(d).entries) for d in sample))
    rows.append(("RSS via feedparser (reference), four 2024-06-01 fixture feeds", 4, elapsed, n))
    return rows


def atom_rows(shared: Path | None, repeat: int) -> tuple[list[tuple[str, int, float, int]], float]:
    paths = sorted((FIXTURES / "atom").glob("*.xml*"))
    if shared and (shared / "api_atom").is_dir():
        paths = sorted((shared / "api_atom").glob("*.xml"))
    docs = []
    for path in paths:
        data = read(path)
        try:
            parse_atom_feed(data)
        except ArxivPermanentError:
            continue  # the error feed is not a parsing workload
        docs.append(data)
    docs = repeated(docs, parse_atom_feed, lambda page: len(page.records), TARGET_ATOM_ENTRIES)
    ours, n = best_of(repeat, lambda: sum(len(parse_atom_feed(d).records) for d in docs))
    rows = [("Atom (query API), Paperscope", len(docs), ours, n)]
    try:
        from arxiv import _feed
    except ImportError:
        return rows, float("nan")
    theirs, m = best_of(repeat, lambda: sum(len(_feed.parse(d).results) for d in docs))
    rows.append(("Atom (query API), arxiv package's own parser", len(docs), theirs, m))
    return rows, theirs / ours


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data" / "arxiv")
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    shared = options.shared if options.shared.is_dir() else None
    rows = oai_rows(options.repeat) + rss_rows(shared, options.repeat)
    atom, ratio = atom_rows(shared, options.repeat)
    rows += atom
    width = max(len(r[0]) for r in rows)
    print(f"{'workload':<{width}}  {'docs':>5}  {'records':>8}  {'seconds':>8}  {'records/s':>10}")
    for label, docs, seconds, records in rows:
        rate = records / seconds
        print(f"{label:<{width}}  {docs:>5}  {records:>8}  {seconds:>8.3f}  {rate:>10,.0f}")
    try:
        import arxiv

        version = arxiv.__version__ if hasattr(arxiv, "__version__") else "?"
    except ImportError:
        version = "not installed"
    print(f"\nAtom: Paperscope is {ratio:.2f}x the speed of the arxiv package ({version}).")
    print(f"Python {sys.version.split()[0]}; lxml {__import__('lxml.etree').etree.__version__}")


if __name__ == "__main__":
    main()
