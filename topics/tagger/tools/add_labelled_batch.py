"""Add a labelled batch to a labelled set (``--set``, the training set unless ``gold``): the
papers of the judged pool parts and their labels, as one papers file and one labels file under
``topics/evaluation/<set>/`` with their manifest lines. The announcement date is the feed's
channel ``pubDate`` (the file name is the capture date), read from the corpus.

    .venv/bin/python -m topics.tagger.tools.add_labelled_batch \\
        --corpus ../shared/data/arxiv/rss/cs.LG_daily_2025H1_gz --pools /work/labelling/parts \\
        --labels /work/labelling/out --name 07-first-reading-g --papers-name 02-batch-g \\
        --what "batch g: ..."

A pooled pass over papers the set already holds (``--pooled``): the judges' ``verdicts_*.jsonl``
(clear, acceptable and rejected topics) as one labels file, no papers file:

    .venv/bin/python -m topics.tagger.tools.add_labelled_batch --set gold --pooled \\
        --labels /work/labelling/pooled --name 08-pooled-fit-27r-fit-27 --what "..."
"""

from __future__ import annotations

import argparse
import gzip
import json
from email.utils import parsedate_to_datetime
from pathlib import Path

from lxml import etree

from topics.evaluation import EVAL_DIR, MANIFEST, load_set
from topics.evaluation.metrics import ancestors
from topics.tagger import load_taxonomy_files
from topics.tagger.tools.rss_corpus import corpus_files, read_file

PAPER_KEYS = ("id", "title", "abstract", "categories", "authors", "announced")
TAXONOMY_DIR = Path(__file__).resolve().parents[2] / "taxonomy"


def announcement_dates(folder: Path) -> dict[str, str]:
    """arXiv id -> the pubDate of the first feed that announced it."""
    dates: dict[str, str] = {}
    for path in corpus_files(folder):
        with gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb") as fh:
            data = fh.read()
        if not data.strip():
            continue
        pub = etree.fromstring(data).findtext("channel/pubDate")
        if not pub:
            continue
        day = parsedate_to_datetime(pub).date().isoformat()
        for paper in read_file(path):
            dates.setdefault(paper.id, day)
    return dates


def drop_implied(row: dict, parents: dict[str, str | None]) -> tuple[dict, int, int]:
    """The label without the ancestors of its clear topics (they are implied; the labelling
    brief asks judges not to list them): a clear topic that is an ancestor of another clear one,
    an acceptable one that is clear or an ancestor of a clear one. Returns the label and how many
    clear and acceptable slugs were dropped."""
    implied = {a for s in row["topics"] for a in ancestors(s, parents)}
    topics = [s for s in dict.fromkeys(row["topics"]) if s not in implied]
    acceptable = [
        s for s in dict.fromkeys(row["acceptable"]) if s not in implied and s not in topics
    ]
    dropped = (len(row["topics"]) - len(topics), len(row["acceptable"]) - len(acceptable))
    return {**row, "topics": topics, "acceptable": acceptable}, *dropped


def add_to_manifest(entries: list[dict]) -> None:
    """The manifest with ``entries`` at its end (replacing any earlier lines of their files)."""
    manifest_path = EVAL_DIR / MANIFEST
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    files = {e["file"] for e in entries}
    manifest["files"] = [e for e in manifest["files"] if e["file"] not in files] + entries
    manifest_path.write_text(
        json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )


def read_labels(folder: Path, pattern: str, keys: tuple[str, ...], parents) -> tuple[dict, list]:
    """id -> label row (``keys`` only, implied ancestors dropped) from the judges' files, and
    how many clear and acceptable slugs were dropped."""
    labels, dropped = {}, [0, 0]
    for path in sorted(folder.glob(pattern)):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                row = {k: row.get(k, "" if k == "note" else []) for k in keys}
                labels[row["id"]], clear, acceptable = drop_implied(row, parents)
                dropped[0] += clear
                dropped[1] += acceptable
    return labels, dropped


def add_pooled(args, parents) -> None:
    """A pooled pass's verdicts as one labels file of the set: only papers the set holds."""
    keys = ("id", "topics", "acceptable", "rejected", "note")
    labels, _ = read_labels(args.labels, "verdicts_*.jsonl", keys, parents)
    held = {p["id"] for p in load_set(args.set).papers}
    strangers = sorted(set(labels) - held)
    if strangers:
        raise SystemExit(f"not in the {args.set} set: {', '.join(strangers[:5])}")
    labels_path = EVAL_DIR / args.set / "labels" / f"{args.name}.jsonl"
    with labels_path.open("w", encoding="utf-8") as fh:
        for row in labels.values():
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    file = labels_path.relative_to(EVAL_DIR).as_posix()
    add_to_manifest(
        [
            {
                "file": file,
                "kind": "labels",
                "pass": "pooled",
                "set": args.set,
                "papers": len(labels),
                "what": args.what,
            }
        ]
    )
    print(f"{len(labels)} papers' verdicts; wrote {labels_path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=("train", "gold"), default="train")
    parser.add_argument("--pooled", action="store_true", help="a pooled pass's verdicts")
    parser.add_argument("--corpus", type=Path, help="the RSS corpus (not for --pooled)")
    parser.add_argument("--pools", type=Path, help="folder of part_*.jsonl (not for --pooled)")
    parser.add_argument(
        "--labels", type=Path, required=True, help="folder of labels_*.jsonl (verdicts_*.jsonl)"
    )
    parser.add_argument("--name", required=True, help="labels file name, without .jsonl")
    parser.add_argument("--papers-name", help="papers file name, without .jsonl")
    parser.add_argument("--what", required=True, help="the manifest's description")
    args = parser.parse_args()

    parents = {t.slug: t.parent for t in load_taxonomy_files(TAXONOMY_DIR).topics}
    if args.pooled:
        add_pooled(args, parents)
        return
    if not (args.corpus and args.pools and args.papers_name):
        parser.error("a first reading needs --corpus, --pools and --papers-name")
    keys = ("id", "topics", "acceptable", "note")
    labels, dropped = read_labels(args.labels, "labels_*.jsonl", keys, parents)
    pool = {}
    for path in sorted(args.pools.glob("part_*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            pool[row["id"]] = row
    dates = announcement_dates(args.corpus)
    ids = [i for i in pool if i in labels]
    papers_path = EVAL_DIR / args.set / "papers" / f"{args.papers_name}.jsonl"
    labels_path = EVAL_DIR / args.set / "labels" / f"{args.name}.jsonl"
    with papers_path.open("w", encoding="utf-8") as fh:
        for i in ids:
            paper = {**pool[i], "announced": dates.get(i, pool[i]["announced"])}
            fh.write(json.dumps({k: paper[k] for k in PAPER_KEYS}, ensure_ascii=False) + "\n")
    with labels_path.open("w", encoding="utf-8") as fh:
        for i in ids:
            fh.write(json.dumps(labels[i], ensure_ascii=False) + "\n")
    common = {"set": args.set, "papers": len(ids), "what": args.what}
    add_to_manifest(
        [
            {"file": papers_path.relative_to(EVAL_DIR).as_posix(), "kind": "papers", **common},
            {
                "file": labels_path.relative_to(EVAL_DIR).as_posix(),
                "kind": "labels",
                "pass": "first-reading",
                **common,
            },
        ]
    )
    print(
        f"{len(ids)} papers labelled of {len(pool)} pooled; wrote {papers_path} and {labels_path}; "
        f"implied ancestors dropped: {dropped[0]} clear, {dropped[1]} acceptable"
    )


if __name__ == "__main__":
    main()
