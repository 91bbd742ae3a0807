"""Make the weak labels the heads learn from (issue 13, item 2; rule in
``topics/tagger/training/weak.py``): papers of the recorded RSS corpus announced before the gold
window, in neither labelled set, whose title names a topic of the current taxonomy.

    .venv/bin/python -m topics.tagger.tools.weak_labels \
        --rss-dir ../shared/data/arxiv/rss/cs.LG_daily_2025H1_gz \
        --out topics/evaluation/weak/01-title-names-jan-may-2025.jsonl.gz

List the file in ``topics/evaluation/manifest.json`` (set ``weak``, kind ``weak-labels``) so that
``fit_tagger`` reads it. Never at run time.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
from collections import Counter
from datetime import date
from pathlib import Path

START, END = date(2025, 1, 1), date(2025, 5, 16)  # the gold papers were announced after END


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rss-dir", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from topics.evaluation import load_set
    from topics.evaluation.metrics import areas_of
    from topics.tagger.engine import Tagger
    from topics.tagger.taxonomy import load_taxonomy_files
    from topics.tagger.tools.rss_corpus import read_corpus
    from topics.tagger.training.pipeline import TAXONOMY_DIR
    from topics.tagger.training.weak import weak_rows

    taxonomy = load_taxonomy_files(TAXONOMY_DIR)
    tagger = Tagger(taxonomy.topics, neighbours=())
    areas = areas_of({t.slug: t.parent for t in taxonomy.topics})
    judged = {p["id"] for name in ("train", "gold") for p in load_set(name).papers}
    rows = weak_rows(tagger, read_corpus(args.rss_dir, start=START, end=END), judged, areas)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(args.out, "wt", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    per_topic = Counter(s for row in rows for s in row["topics"])
    print(
        f"{args.out}: {len(rows)} papers, {sum(per_topic.values())} labels on "
        f"{len(per_topic)} topics (taxonomy v{taxonomy.version}, {START}..{END})"
    )


if __name__ == "__main__":
    main()
