"""What a new per-(paper, topic) score would add to the chip order, measured out of fold before
any model is refitted with it (docs/tagging.md, "A fine-tuned encoder that tells the paper's
topic from its neighbours").

    DEBUG=1 .venv/bin/python -m topics.tagger.tools.chip_order_probe FOLD.npz [FOLD.npz ...]

Each file holds, for the training papers of one cross-validation fold, scores of every topic
that nothing fitted on those papers has seen: ``ids``, ``slugs`` and one (papers, topics) array
per score (``finetune_encoder --holdout-fold F --cosines FILE`` writes the cosines to the
fine-tuned prototypes and topic texts). The shipped fast tagger scores the training papers as
``fit_chip_order`` does (kNN leaving the paper out, heads of the other folds); for each file's
fold the chip-order model is fitted on the other folds' chips and scores this fold's; then a
logistic second stage over its log-odds and each chip's gap to the paper's best is fitted with
and without the file's scores (each, and its gap to the paper's best chip), by an inner 5-fold
split of the files' papers. Printed: the share of papers with two chips or more whose first
chip is right, in the scorer's order, the chip order's, and the second stage's without and with
the scores (the difference is what the scores add; the second stage alone should match the
chip order). About 20 minutes: the heads of each fold are refitted, as in ``fit_chip_order``.
"""

from __future__ import annotations

import argparse
import os
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from topics.tagger.training.chip_order import ChipPaper, first_rates

INNER_FOLDS = 5


def chip_gaps(values: np.ndarray, papers: Sequence[ChipPaper]) -> np.ndarray:
    """Each row's value minus the best value among its paper's chips."""
    out = np.zeros_like(values, dtype=np.float64)
    for at, *_ in papers:
        out[at] = values[at] - values[at].max(axis=0)
    return out


def second_stage(
    papers: Sequence[ChipPaper],
    right: np.ndarray,
    p_order: np.ndarray,
    scores: np.ndarray,
    inner: np.ndarray,
) -> tuple[float, float]:
    """First chip right of a logistic second stage over the chip order's P(right) (log-odds and
    gap to the paper's best), without and with ``scores`` (rows x k, and their gaps), out of
    fold by ``inner`` (each row's inner fold, the same for all rows of a paper). ``papers`` as
    :func:`~topics.tagger.training.chip_order.first_rates` reads them, ``right`` per row."""
    from sklearn.linear_model import LogisticRegression  # development only

    p = np.clip(p_order, 1e-6, 1 - 1e-6)
    logit = np.log(p / (1 - p))
    base = np.column_stack([logit, chip_gaps(logit, papers)])
    full = np.column_stack([base, scores, chip_gaps(scores, papers)])
    results = []
    for x in (base, full):
        oof = np.zeros(len(right))
        for k in np.unique(inner):
            train, held = inner != k, inner == k
            model = LogisticRegression(max_iter=1000).fit(x[train], right[train])
            oof[held] = model.predict_proba(x[held])[:, 1]
        results.append(first_rates(papers, oof)["first_chip_right"])
    return results[0], results[1]


def read_scores(paths: Sequence[Path]) -> tuple[dict[str, int], dict[str, np.ndarray], list[str]]:
    """The files' papers (id -> row), their (papers, topics) arrays by name and the topics."""
    rows: dict[str, int] = {}
    arrays: dict[str, list[np.ndarray]] = {}
    slugs: list[str] | None = None
    for path in paths:
        with np.load(path) as f:
            if slugs is not None and list(f["slugs"]) != slugs:
                raise SystemExit(f"{path}: not the topics of {paths[0]}")
            slugs = [str(s) for s in f["slugs"]]
            for pid in f["ids"]:
                rows[str(pid)] = len(rows)
            for name in f.files:
                if name not in ("ids", "slugs"):
                    arrays.setdefault(name, []).append(f[name].astype(np.float32))
    return rows, {k: np.vstack(v) for k, v in arrays.items()}, slugs or []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scores", nargs="+", type=Path, help="npz files, one fold each")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from topics.tagger.chip_order import CHIP_FEATURES
    from topics.tagger.tools.fit_chip_order import scored_training_papers
    from topics.tagger.training.chip_order import chip_rows, out_of_fold_p

    row_of, arrays, score_slugs = read_scores(args.scores)
    score_col = {s: j for j, s in enumerate(score_slugs)}
    tagger, data, opts = scored_training_papers()
    tagger.chip_order = None  # rows in the scorer's order, as fit_chip_order makes them
    candidates = tagger.chip_candidates(data.papers)
    chips = chip_rows(tagger, data.papers, candidates, data.gold, data.verdicts, opts.folds)
    ids = [p.id for p, (slugs, _) in zip(data.papers, candidates, strict=True) if slugs]
    probed = [
        (paper, pid)
        for paper, pid in zip(chips.papers, ids, strict=True)
        if len(paper[0]) >= 2 and pid in row_of
    ]
    probed_folds = sorted({int(chips.fold[paper[0][0]]) for paper, _ in probed})
    p_order = out_of_fold_p(chips.x, chips.right, chips.fold, probed_folds)

    # The probed papers' rows, numbered from 0 for the second stage.
    rows = [i for (at, *_), _ in probed for i in at]
    local = {i: n for n, i in enumerate(rows)}
    papers: list[ChipPaper] = [
        ([local[i] for i in at], slugs, gold, named) for (at, slugs, gold, named), _ in probed
    ]
    names = sorted(arrays)
    scores = np.array(
        [
            [arrays[name][row_of[pid], score_col[s]] if s in score_col else 0.0 for name in names]
            for (_, slugs, *_), pid in probed
            for s in slugs
        ]
    )
    inner = np.array(
        [zlib.crc32(f"{pid}/inner".encode()) % INNER_FOLDS for (at, *_), pid in probed for _ in at]
    )
    right, order = chips.right[rows], p_order[rows]
    position = chips.x[rows, CHIP_FEATURES.index("position")]
    without, with_scores = second_stage(papers, right, order, scores, inner)

    def first(score: np.ndarray) -> float:
        return first_rates(papers, score)["first_chip_right"]

    print(f"{len(papers)} papers with two chips or more in the files' folds; first chip right:")
    print(f"  the scorer's order      {first(-position):.4f}")
    print(f"  the chip order          {first(order):.4f}")
    print(f"  second stage            {without:.4f}")
    print(f"  second stage + scores   {with_scores:.4f}  ({', '.join(names)})")
    for j, name in enumerate(names):
        print(f"  {name} alone {first(scores[:, j]):.4f}")


if __name__ == "__main__":
    main()
