"""Add a labelled batch to the training set: the papers of the judged pool parts and their
labels, as one papers file and one labels file under ``topics/evaluation/train/`` with their
manifest lines. The announcement date is the feed's channel ``pubDate`` (the file name is the
capture date), read from the corpus.

    .venv/bin/python -m topics.tagger.tools.add_labelled_batch \\
        --corpus ../shared/data/arxiv/rss/cs.LG_daily_2025H1_gz --pools /work/labelling/parts \\
        --labels /work/labelling/out --name 07-first-reading-g --papers-name 02-batch-g \\
        --what "batch g: ..."
"""

from __future__ import annotations

import argparse
import gzip
import json
from email.utils import parsedate_to_datetime
from pathlib import Path

from lxml import etree

from topics.evaluation import EVAL_DIR, MANIFEST
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--pools", type=Path, required=True, help="folder of part_*.jsonl")
    parser.add_argument("--labels", type=Path, required=True, help="folder of labels_*.jsonl")
    parser.add_argument("--name", required=True, help="labels file name, without .jsonl")
    parser.add_argument("--papers-name", required=True, help="papers file name, without .jsonl")
    parser.add_argument("--what", required=True, help="the manifest's description")
    args = parser.parse_args()

    parents = {t.slug: t.parent for t in load_taxonomy_files(TAXONOMY_DIR).topics}
    labels = {}
    dropped = [0, 0]
    for path in sorted(args.labels.glob("labels_*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                row = {k: row.get(k, [] if k != "note" else "") for k in (
                    "id", "topics", "acceptable", "note")}  # fmt: skip
                labels[row["id"]], clear, acceptable = drop_implied(row, parents)
                dropped[0] += clear
                dropped[1] += acceptable
    pool = {}
    for path in sorted(args.pools.glob("part_*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            pool[row["id"]] = row
    dates = announcement_dates(args.corpus)
    ids = [i for i in pool if i in labels]
    papers_path = EVAL_DIR / "train" / "papers" / f"{args.papers_name}.jsonl"
    labels_path = EVAL_DIR / "train" / "labels" / f"{args.name}.jsonl"
    with papers_path.open("w", encoding="utf-8") as fh:
        for i in ids:
            paper = {**pool[i], "announced": dates.get(i, pool[i]["announced"])}
            fh.write(json.dumps({k: paper[k] for k in PAPER_KEYS}, ensure_ascii=False) + "\n")
    with labels_path.open("w", encoding="utf-8") as fh:
        for i in ids:
            fh.write(json.dumps(labels[i], ensure_ascii=False) + "\n")
    manifest_path = EVAL_DIR / MANIFEST
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    papers_file = papers_path.relative_to(EVAL_DIR).as_posix()
    labels_file = labels_path.relative_to(EVAL_DIR).as_posix()
    entries = [e for e in manifest["files"] if e["file"] not in {papers_file, labels_file}]
    common = {"set": "train", "papers": len(ids), "what": args.what}
    entries.append({"file": papers_file, "kind": "papers", **common})
    entries.append({"file": labels_file, "kind": "labels", "pass": "first-reading", **common})
    manifest["files"] = entries
    manifest_path.write_text(
        json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    print(
        f"{len(ids)} papers labelled of {len(pool)} pooled; wrote {papers_path} and {labels_path}; "
        f"implied ancestors dropped: {dropped[0]} clear, {dropped[1]} acceptable"
    )


if __name__ == "__main__":
    main()
