"""The shipped tagger against each gold judge (issue 13, item 6): on the gold papers a second
judge read blind (``topics/evaluation/agreement/gold-second-judge.jsonl``), micro P / R / F1 of
the tagger's non-area tags, with their implied ancestors, against the pooled gold (judge 1) and
against the second reading (judge 2), both expanded with ancestors as the metrics count gold.

    .venv/bin/python -m topics.tagger.tools.tagger_vs_judges
"""

from __future__ import annotations

from pathlib import Path

from topics.evaluation import EVAL_DIR, load_set
from topics.evaluation.metrics import areas_of, expand, micro_prf
from topics.tagger import Tagger, load_taxonomy_files
from topics.tagger.tools.label_agreement import read_labels

TAXONOMY_DIR = Path(__file__).resolve().parents[2] / "taxonomy"
SECOND_JUDGE = EVAL_DIR / "agreement" / "gold-second-judge.jsonl"


def main() -> None:
    taxonomy = load_taxonomy_files(TAXONOMY_DIR)
    parents = {t.slug: t.parent for t in taxonomy.topics}
    areas = areas_of(parents)

    def expanded(slugs) -> set[str]:
        return expand(slugs, parents) - areas

    gold = load_set("gold")
    second = read_labels(SECOND_JUDGE)
    papers = [p for p in gold.papers if p["id"] in second]
    tags = Tagger(taxonomy.topics).tag_batch(papers)
    predicted = [expanded(t.slug for t in row) for row in tags]
    judges = {
        "judge 1 (pooled gold)": [expanded(gold.labels[p["id"]].topics) for p in papers],
        "judge 2 (blind second reading)": [
            expanded(second[p["id"]].get("topics", [])) for p in papers
        ],
    }
    for name, truth in judges.items():
        m = micro_prf(truth, predicted)
        print(
            f"{name}, {len(papers)} papers: P {m['precision']:.3f} R {m['recall']:.3f} "
            f"micro-F1 {m['f1']:.3f}"
        )


if __name__ == "__main__":
    main()
