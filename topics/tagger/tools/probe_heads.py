"""Out-of-fold probes of the supervised heads on the labelled training set (issue 13, items 2
and 3): how well one signal ranks a paper's topics, before any scorer is fitted.

For each of 5 folds (the folds of ``fit_tagger``), heads are fitted on the other folds' labelled
papers, optionally plus the shipped **weak labels** (``topics/evaluation/weak/``: unjudged papers
announced 2025-01-01..2025-05-16 whose *title* names a topic; ``training/weak.py``), and the
held-out papers' topics are ranked by the head's decision value (-3 for topics without a head)
and by the kNN vote plus 0.2 times it. Printed: recall of the non-area gold topics among a
paper's best 5 and 10, and P@1. Never reads the gold set's labels.

    .venv/bin/python -m topics.tagger.tools.probe_heads [--no-weak]

About 10 minutes without weak labels and 40 with them on the shared 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-weak", action="store_true", help="only the labelled papers")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from topics.evaluation.metrics import areas_of
    from topics.tagger.engine import Tagger
    from topics.tagger.heads import fit_heads, paper_terms
    from topics.tagger.memory import NeighbourMemory
    from topics.tagger.taxonomy import load_taxonomy_files
    from topics.tagger.text import MAX_ABSTRACT_CHARS, MAX_TITLE_CHARS, clean
    from topics.tagger.training.crossval import KNN_K, fold_of
    from topics.tagger.training.pipeline import TAXONOMY_DIR, FitOptions, _training_data

    taxonomy = load_taxonomy_files(TAXONOMY_DIR)
    data = _training_data(taxonomy, FitOptions(weak=not args.no_weak), lambda _: None)
    tagger = Tagger(taxonomy.topics, neighbours=())
    slugs = [t.slug for t in taxonomy.topics]
    areas = areas_of({t.slug: t.parent for t in taxonomy.topics})
    non_area = np.array([s not in areas for s in slugs])

    def terms(papers):
        return [
            paper_terms(clean(p.title, MAX_TITLE_CHARS), clean(p.abstract, MAX_ABSTRACT_CHARS))
            for p in papers
        ]

    weak_papers, weak_y = data.weak or ([], np.zeros((0, len(slugs)), dtype=bool))
    print(f"weak labels: {len(weak_papers)} papers")  # as fit_tagger reads them

    docs, vecs, y = terms(data.papers), tagger.embed(data.papers), data.y
    weak_docs = terms(weak_papers)
    weak_vecs = tagger.embed(weak_papers) if weak_papers else np.zeros((0, vecs.shape[1]))
    fold = np.array([fold_of(p.id, 5) for p in data.papers])
    ids = [p.id for p in data.papers]
    heads_score = np.full(y.shape, -3.0, dtype=np.float32)
    knn_vote = np.zeros(y.shape, dtype=np.float32)
    started = time.perf_counter()
    for k in range(5):
        train, held = np.flatnonzero(fold != k), np.flatnonzero(fold == k)
        heads = fit_heads(
            [docs[i] for i in train] + weak_docs,
            np.vstack([vecs[train], weak_vecs]),
            np.vstack([y[train], weak_y]),
            slugs,
        )
        cols = np.asarray([slugs.index(s) for s in heads.slugs], dtype=np.int64)
        heads_score[np.ix_(held, cols)] = heads.decision([docs[i] for i in held], vecs[held])
        memory = NeighbourMemory(vecs[train], y[train].astype(np.float32), [ids[i] for i in train])
        knn_vote[held] = memory.query(vecs[held], [ids[i] for i in held], KNN_K)[0]
    print(f"fitted in {time.perf_counter() - started:.0f} s")
    gold = y & non_area[None, :]
    for name, score in (
        ("heads", heads_score),
        ("kNN vote + 0.2 heads", knn_vote + 0.2 * heads_score),
    ):
        top = np.argsort(-np.where(non_area[None, :], score, -np.inf), axis=1)[:, :10]
        hit = np.take_along_axis(gold, top, axis=1)
        print(
            f"{name:<22} R@5 {hit[:, :5].sum() / gold.sum():.3f}  R@10 "
            f"{hit.sum() / gold.sum():.3f}  P@1 {hit[:, 0].mean():.3f}"
        )


if __name__ == "__main__":
    main()
