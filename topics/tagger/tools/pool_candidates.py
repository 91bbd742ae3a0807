"""Write the judging pools for a pooled labelling pass over a labelled set.

For each paper: the top candidates of the shipped tagger (with its kNN memory; a paper is never
its own neighbour), of its fallback scorer (no labelled papers) and of any earlier scorer given
with ``--variant``, non-area, minus the topics already judged (clearly applies, acceptable or
rejected by an earlier pooled pass) and the ancestors of the clear ones. A judge then reads each
paper and marks every pooled topic "clear", "acceptable" or "no" without seeing any score; the
verdicts go into a new ``<set>_labels_<x>.jsonl`` that ``load_set`` merges, the "no"s as
``rejected`` so that no later pass asks again. Pooling the gold set over every variant tried is
what makes its recall measurable (issue 4); it changes no scorer.

    .venv/bin/python -m topics.tagger.tools.pool_candidates --set train \
        --top 12 --parts 7 --out /tmp/pool
    .venv/bin/python -m topics.tagger.tools.pool_candidates --set train --top 10 --parts 8 \
        --papers topics/evaluation/train/papers/03-batch-h.jsonl --out /tmp/pool-h
    .venv/bin/python -m topics.tagger.tools.pool_candidates --set gold \
        --variant old/scorer.json,old/labelled_papers.jsonl.gz --top 12 --parts 7 --out /tmp/gold

``--refined`` pools the refined stage's candidates too (the contextual encoder; the tags most
pages show), before the fast path's.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from topics.evaluation import ids_in, load_set
from topics.tagger import Tagger, load_taxonomy_files
from topics.tagger.contextual import ContextualEmbedder
from topics.tagger.tools.parts import write_parts

TAXONOMY_DIR = Path(__file__).resolve().parents[2] / "taxonomy"  # topics/taxonomy


def first_sentences(text: str, n: int = 2) -> str:
    parts = text.replace("\n", " ").split(". ")
    return ". ".join(parts[:n]).strip().rstrip(".") + "."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=12, help="candidates per scorer and paper")
    parser.add_argument("--parts", type=int, default=5, help="files to split the papers into")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--set", choices=("train", "gold"), default="train")
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        help="another scorer to pool: SCORER_JSON[,LABELLED_PAPERS_JSONL_GZ]",
    )
    parser.add_argument(
        "--only",
        default="",
        help="comma-separated slugs: pool only these topics (e.g. the ones a taxonomy version "
        "added), wherever they are among a variant's top candidates",
    )
    parser.add_argument(
        "--papers",
        type=Path,
        action="append",
        default=[],
        help="pool only the papers of these JSONL files (e.g. a new batch's papers file)",
    )
    parser.add_argument(
        "--refined", action="store_true", help="also the refined stage's candidates (first)"
    )
    args = parser.parse_args()

    taxonomy = load_taxonomy_files(TAXONOMY_DIR)
    specs = {t.slug: t for t in taxonomy.topics}
    taggers = [Tagger(taxonomy.topics), Tagger(taxonomy.topics, neighbours=[])]
    if args.refined:
        taggers.insert(0, Tagger(taxonomy.topics, context=ContextualEmbedder()))
    for variant in args.variant:
        scorer, _, labelled = variant.partition(",")
        taggers.append(Tagger(taxonomy.topics, params=scorer, neighbours=labelled or None))
    labelled_set = load_set(args.set)
    only = {slug for slug in args.only.split(",") if slug}
    unknown = only - specs.keys()
    if unknown:
        parser.error(f"--only: not in the taxonomy: {', '.join(sorted(unknown))}")

    def ancestors(slug: str) -> set[str]:
        out, parent = set(), specs[slug].parent if slug in specs else None
        while parent:
            out.add(parent)
            parent = specs[parent].parent
        return out

    wanted = ids_in(args.papers)

    pools = []
    for paper in labelled_set.papers:
        if wanted and str(paper["id"]) not in wanted:
            continue
        label = labelled_set.labels[str(paper["id"])]
        judged = set(label.topics) | set(label.acceptable) | set(label.rejected)
        for slug in label.topics:
            judged |= ancestors(slug)
        pooled: list[str] = []
        for tagger in taggers:
            ranked = [s for s, _ in tagger.candidates(paper, 80) if not specs[s].is_area]
            if only:
                ranked = [s for s in ranked if s in only]
            for slug in ranked[: args.top]:
                if slug not in judged and slug not in pooled:
                    pooled.append(slug)
        pools.append(
            {
                "id": paper["id"],
                "title": paper["title"],
                "abstract": paper.get("abstract", ""),
                "categories": paper.get("categories", []),
                "labelled_clear": label.topics,
                "labelled_acceptable": label.acceptable,
                "to_judge": [
                    {
                        "slug": s,
                        "name": specs[s].name,
                        "parent": specs[str(specs[s].parent)].name,
                        "about": first_sentences(specs[s].description),
                    }
                    for s in pooled
                ],
            }
        )
    write_parts(pools, args.out, args.parts, "pool_{n}.jsonl")
    to_judge = sum(len(p["to_judge"]) for p in pools)
    print(f"{len(pools)} papers, {to_judge} topics to judge ({to_judge / len(pools):.1f} a paper)")


if __name__ == "__main__":
    main()
