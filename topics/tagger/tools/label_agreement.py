"""Agreement between two readings of the same papers (a labeller and a second, blind reader).

Both sides are label files in the set format (``{id, topics, acceptable}``); only papers both
labelled count. Figures, non-area, topics expanded with their ancestors (as the metrics count
gold):

- micro-F1 of reader B's clear topics against reader A's (symmetric in F1), and the same for
  the most specific topics alone (no ancestor expansion: the harder, "same leaf" agreement);
- lenient agreement: the share of B's clear topics that A judged clear or acceptable (and back);
- first topic: how often B's first (most defining) topic is among A's clear topics (expanded).

    .venv/bin/python -m topics.tagger.tools.label_agreement A.jsonl B.jsonl [--json out.json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from topics.evaluation.metrics import areas_of, expand, micro_prf
from topics.tagger import load_taxonomy_files

TAXONOMY_DIR = Path(__file__).resolve().parents[2] / "taxonomy"


def read_labels(path: Path) -> dict[str, dict]:
    rows = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            rows[row["id"]] = row
    return rows


def agreement(first: dict[str, dict], second: dict[str, dict], parents) -> dict:
    areas = areas_of(parents)
    ids = sorted(set(first) & set(second))

    def clear(row, *, expanded=True):
        slugs = [s for s in row.get("topics", []) if s in parents]
        return (expand(slugs, parents) if expanded else set(slugs)) - areas

    def lenient(row):
        return clear(row) | expand([s for s in row.get("acceptable", []) if s in parents], parents)

    a = [clear(first[i]) for i in ids]
    b = [clear(second[i]) for i in ids]
    leaf = micro_prf(
        [clear(first[i], expanded=False) for i in ids],
        [clear(second[i], expanded=False) for i in ids],
    )
    expanded = micro_prf(a, b)
    b_in_a = sum(len(bb & lenient(first[i])) for i, bb in zip(ids, b, strict=True))
    a_in_b = sum(len(aa & lenient(second[i])) for i, aa in zip(ids, a, strict=True))
    firsts = [
        (second[i].get("topics") or [None])[0] for i in ids if second[i].get("topics")
    ]  # fmt: skip
    first_ok = sum(
        1
        for i in ids
        if second[i].get("topics") and second[i]["topics"][0] in clear(first[i]) | areas
    )
    n = max(1, len(ids))
    return {
        "papers": len(ids),
        "micro_f1_expanded": round(expanded["f1"], 3),
        "micro_f1_most_specific": round(leaf["f1"], 3),
        "lenient_b_in_a": round(b_in_a / max(1, sum(map(len, b))), 3),
        "lenient_a_in_b": round(a_in_b / max(1, sum(map(len, a))), 3),
        "first_topic_agrees": round(first_ok / max(1, len(firsts)), 3),
        "clear_per_paper_a": round(sum(len(first[i].get("topics", [])) for i in ids) / n, 2),
        "clear_per_paper_b": round(sum(len(second[i].get("topics", [])) for i in ids) / n, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("first", type=Path, help="reader A's labels (e.g. the first reading)")
    parser.add_argument("second", type=Path, help="reader B's labels (the second reading)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    taxonomy = load_taxonomy_files(TAXONOMY_DIR)
    parents = {t.slug: t.parent for t in taxonomy.topics}
    result = agreement(read_labels(args.first), read_labels(args.second), parents)
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
