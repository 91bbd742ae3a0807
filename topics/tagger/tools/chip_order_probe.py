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

INNER_FOLDS = 5


def chip_gaps(values: np.ndarray, groups: Sequence[Sequence[int]]) -> np.ndarray:
    """Each row's value minus the best value among its paper's chips (``groups``: row indices
    per paper)."""
    out = np.zeros_like(values, dtype=np.float64)
    for at in groups:
        out[at] = values[at] - values[at].max(axis=0)
    return out


def first_chip_right(groups: Sequence[Sequence[int]], right: np.ndarray, p: np.ndarray) -> float:
    """Share of papers whose best-``p`` chip is right (ties: the earlier chip, the scorer's)."""
    hits = [bool(right[at][int(np.argmax(p[at]))]) for at in groups]
    return sum(hits) / len(hits) if hits else 0.0


def second_stage(
    groups: Sequence[Sequence[int]],
    right: np.ndarray,
    p_order: np.ndarray,
    scores: np.ndarray,
    inner: np.ndarray,
) -> tuple[float, float]:
    """First chip right of a logistic second stage over the chip order's P(right) (log-odds and
    gap to the paper's best), without and with ``scores`` (rows x k, and their gaps), out of
    fold by ``inner`` (each row's inner fold, the same for all rows of a paper)."""
    from sklearn.linear_model import LogisticRegression  # development only

    p = np.clip(p_order, 1e-6, 1 - 1e-6)
    logit = np.log(p / (1 - p))
    base = np.column_stack([logit, chip_gaps(logit, groups)])
    full = np.column_stack([base, scores, chip_gaps(scores, groups)])
    results = []
    for x in (base, full):
        oof = np.zeros(len(right))
        for k in np.unique(inner):
            train, held = inner != k, inner == k
            model = LogisticRegression(max_iter=1000).fit(x[train], right[train])
            oof[held] = model.predict_proba(x[held])[:, 1]
        results.append(first_chip_right(groups, right, oof))
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
    from sklearn.ensemble import HistGradientBoostingClassifier

    from topics.tagger.chip_order import CHIP_FEATURES, JUDGED_FEATURES
    from topics.tagger.engine import Tagger
    from topics.tagger.taxonomy import load_taxonomy_files
    from topics.tagger.training.chip_order import BOOSTING, out_of_fold_priors, verdict_counts
    from topics.tagger.training.crossval import fold_of
    from topics.tagger.training.pipeline import (
        TAXONOMY_DIR,
        FitOptions,
        _training_data,
        heads_out_of_fold,
    )

    row_of, arrays, score_slugs = read_scores(args.scores)
    score_col = {s: j for j, s in enumerate(score_slugs)}
    taxonomy = load_taxonomy_files(TAXONOMY_DIR)
    opts = FitOptions()
    data = _training_data(taxonomy, opts, print)
    tagger = Tagger(taxonomy.topics)
    view = tagger.heads_view()
    if view is None:
        raise SystemExit("the shipped tagger has no heads: refit with manage.py fit_tagger")
    heads_out_of_fold(tagger, data.papers, data.y, opts.folds, heads=view.heads)
    tagger.chip_order = None  # rows in the scorer's order, as fit_chip_order makes them
    candidates = tagger.chip_candidates(data.papers)

    xs: list[np.ndarray] = []
    right: list[bool] = []
    fold: list[int] = []
    columns: list[int] = []
    groups: list[tuple[list[int], int, list[str], str]] = []
    for paper, (slugs, x), gold in zip(data.papers, candidates, data.gold, strict=True):
        if not slugs:
            continue
        at = list(range(len(right), len(right) + len(slugs)))
        xs.append(x)
        right += [s in gold for s in slugs]
        fold += [fold_of(paper.id, opts.folds)] * len(slugs)
        columns += [tagger.index.pos[s] for s in slugs]
        if len(slugs) >= 2 and paper.id in row_of:
            groups.append((at, row_of[paper.id], slugs, paper.id))
    x_all, y_all, fold_all = np.vstack(xs), np.asarray(right), np.asarray(fold)
    counts = verdict_counts(data.papers, data.verdicts, tagger.index.pos, opts.folds)
    judged = [CHIP_FEATURES.index(f) for f in JUDGED_FEATURES]
    x_all[:, judged] = out_of_fold_priors(counts, np.asarray(columns), fold_all)
    p_order = np.zeros(len(y_all))
    for k in sorted({fold_all[at[0]] for at, _, _, _ in groups}):
        train, held = fold_all != k, fold_all == k
        model = HistGradientBoostingClassifier(**BOOSTING).fit(x_all[train], y_all[train])
        p_order[held] = model.predict_proba(x_all[held])[:, 1]

    rows = [i for at, _, _, _ in groups for i in at]
    local = {i: n for n, i in enumerate(rows)}
    local_groups = [[local[i] for i in at] for at, _, _, _ in groups]
    names = sorted(arrays)
    scores = np.array(
        [
            [arrays[name][r, score_col[s]] if s in score_col else 0.0 for name in names]
            for _, r, slugs, _ in groups
            for s in slugs
        ]
    )
    inner = np.array(
        [zlib.crc32(f"{pid}/inner".encode()) % INNER_FOLDS for at, _, _, pid in groups for _ in at]
    )
    right_rows, order_rows = y_all[rows], p_order[rows]
    position = x_all[rows, CHIP_FEATURES.index("position")]
    without, with_scores = second_stage(local_groups, right_rows, order_rows, scores, inner)
    print(f"{len(groups)} papers with two chips or more in the files' folds; first chip right:")
    print(f"  the scorer's order      {first_chip_right(local_groups, right_rows, -position):.4f}")
    print(f"  the chip order          {first_chip_right(local_groups, right_rows, order_rows):.4f}")
    print(f"  second stage            {without:.4f}")
    print(f"  second stage + scores   {with_scores:.4f}  ({', '.join(names)})")
    for j, name in enumerate(names):
        alone = first_chip_right(local_groups, right_rows, scores[:, j])
        print(f"  {name} alone {alone:.4f}")


if __name__ == "__main__":
    main()
