"""Fit the chip-order model (``topics/tagger/chip_order.py``) on the labelled training papers.

The tagger must score the training papers as honestly as it does in the scorer's fit: each
paper left out of its own kNN vote and its heads' values from heads fitted on the other folds
(``pipeline.heads_out_of_fold``). Every chip of a paper becomes one row, labelled right when it
is one of the paper's gold topics (with ancestors); a paper's only chip too, since ``fit-24``:
its P(right) is the confidence a reader sees, where the score alone runs low (docs/tagging.md,
"A chip's confidence"). A row's verdict features (``chip_order.JUDGED_FEATURES``) count only
the judges' verdicts on papers of the other folds, scaled to all folds: counted with its own
paper's, a topic's share of "clear" would be higher exactly where the paper carries it. Out of
fold (the folds of ``fit_tagger``, by paper) the model is judged on what a reader sees first:
the share of papers whose first chip is right, and whose first chip is a topic the judge wrote
down, next to the same figures in the scorer's order (on papers with two chips or more, where
the order matters); and on how much better than the score its P(right) is calibrated on a
paper's only chip.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from topics.evaluation.metrics import expected_calibration_error
from topics.tagger.chip_order import CHIP_FEATURES, JUDGED_FEATURES, ChipOrder, judged_priors
from topics.tagger.chips import MIN_CHIP_ORDER
from topics.tagger.training.crossval import fold_of, rounded

# Chosen out of fold on the 6,368 training papers of fit-13 (docs/tagging.md, "Which chip comes
# first"): more trees kept helping (800 trees of 31 leaves: first chip right 0.830), 400 of 15
# leaves (0.824) scores a batch in a fortieth of a paper's tagging time. With the verdict and
# name features (fit-19r's chips) a learning rate of 0.05 did better than 0.1 (0.818, 0.815).
BOOSTING = {
    "max_iter": 400,
    "learning_rate": 0.05,
    "max_leaf_nodes": 15,
    "min_samples_leaf": 40,
    "early_stopping": False,
    "random_state": 0,
}


MIN_PAPERS = 30
# A paper's chips as first_rates reads them: (row indices, slugs, gold topics, judged clear).
ChipPaper = tuple[list[int], list[str], set[str], set[str]]


def first_rates(papers, score: np.ndarray, *, min_order: float | None = None) -> dict[str, float]:
    """What a reader sees of the chips in ``score``'s order: the first chip right, a labelled
    topic, and the first three right with the chips shown (all of them; with ``min_order`` the
    first and those scoring at least that, as :func:`chips.chips_arrange` shows them)."""
    right = labelled = three = shown = 0.0
    for at, slugs, gold, named in papers:
        order = sorted(range(len(at)), key=lambda k: (-score[at[k]], k))  # ties: scorer's order
        if min_order is not None:
            order = order[:1] + [k for k in order[1:] if score[at[k]] >= min_order]
        right += slugs[order[0]] in gold
        labelled += slugs[order[0]] in named
        first = order[:3]
        three += sum(slugs[k] in gold for k in first) / len(first)
        shown += len(order)
    n = len(papers) or 1
    return {
        "first_chip_right": right / n,
        "first_chip_labelled": labelled / n,
        "first_three_right": three / n,
        "chips": shown / n,
    }


def fit_chip_order(
    tagger,
    papers: Sequence,
    gold: Sequence[set[str]],
    *,
    verdicts: Sequence[tuple[Sequence[str], Sequence[str], Sequence[str]]],
    folds: int,
    log: Callable[[str], None] = lambda _: None,
    fold_params: Mapping[int, Any] | None = None,
    without: Sequence[str] = (),
) -> ChipOrder | None:
    """The model fitted on every training paper's chips, with its out-of-fold figures in
    ``info``; None when fewer than :data:`MIN_PAPERS` papers have chips.
    ``verdicts``: per paper, the judges' (clear, acceptable, rejected) topics (the clear ones
    are the topics the judge wrote down, for "first chip a labelled topic"). ``fold_params``:
    the scorer of each fold (fitted on the others) to score its papers with, for a scorer that
    would know its own training papers (boosted trees). ``without``: features held at 0, to
    measure what one adds (the rows keep every column, so the model loads as any other)."""
    from sklearn.ensemble import HistGradientBoostingClassifier  # fitting only

    saved, tagger.chip_order = tagger.chip_order, None  # rows in the scorer's order
    saved_params = tagger.params
    try:
        if fold_params:
            candidates: list = [None] * len(papers)
            for k, params in fold_params.items():
                idx = [i for i, p in enumerate(papers) if fold_of(p.id, folds) == k]
                tagger.set_params(params)
                scored = tagger.chip_candidates([papers[i] for i in idx])
                for i, row in zip(idx, scored, strict=True):
                    candidates[i] = row
        else:
            candidates = tagger.chip_candidates(papers)
    finally:
        tagger.chip_order = saved
        tagger.set_params(saved_params)
    with_chips = sum(1 for slugs, _ in candidates if slugs)
    if with_chips < MIN_PAPERS:
        log(f"chip order: {with_chips} papers with chips, too few to fit")
        return None
    x_all, y_all, fold_all, rows, counts = chip_rows(
        tagger, papers, candidates, gold, verdicts, folds
    )
    x_all[:, [CHIP_FEATURES.index(f) for f in without]] = 0.0
    oof = out_of_fold_p(x_all, y_all, fold_all, np.unique(fold_all))
    position = x_all[:, CHIP_FEATURES.index("position")]
    several = [r for r in rows if len(r[0]) >= 2]
    before, after = first_rates(several, -position), first_rates(several, oof)
    shown = first_rates(several, oof, min_order=MIN_CHIP_ORDER)
    single = np.array([r[0][0] for r in rows if len(r[0]) == 1], dtype=np.int64)
    score = x_all[:, CHIP_FEATURES.index("score")]
    alone = rounded(
        {
            "chips": len(single),
            "right_share": float(y_all[single].mean()) if len(single) else 0.0,
            "ece_score": expected_calibration_error(list(score[single]), list(y_all[single])),
            "ece_model": expected_calibration_error(list(oof[single]), list(y_all[single])),
        }
    )
    info = {
        "method": "HistGradientBoostingClassifier on the chips of training papers",
        "boosting": BOOSTING,
        "scorer": tagger.params.version,
        **({"without": list(without)} if without else {}),
        "papers": len(rows),
        "papers_several_chips": len(several),
        "chips": len(y_all),
        "right_share": round(float(y_all.mean()), 4),
        "cv_folds": folds,
        "cv": {
            "scorer_order": rounded(before),
            "model_order": rounded(after),
            "model_order_shown": rounded(shown),  # chips below MIN_CHIP_ORDER not shown
            "only_chip": alone,  # a paper's only chip: calibration of its score and P(right)
        },
        "judged": {
            slug: [int(v) for v in row]
            for slug, row in zip(tagger.index.slugs, counts.sum(axis=0), strict=True)
            if row.any()
        },
    }
    log(
        f"chip order: {len(rows)} papers, {len(y_all)} chips; {len(single)} papers with one chip: "
        f"out of fold ECE {alone['ece_score']:.3f} by score, {alone['ece_model']:.3f} by the "
        f"model ({alone['right_share']:.3f} right)"
    )
    log(
        f"chip order: {len(several)} papers with two chips or more; out of fold first chip right "
        f"{before['first_chip_right']:.3f} -> {after['first_chip_right']:.3f}, a labelled "
        f"topic {before['first_chip_labelled']:.3f} -> {after['first_chip_labelled']:.3f}; first "
        f"three right {before['first_three_right']:.3f} ({before['chips']:.2f} chips) -> "
        f"{shown['first_three_right']:.3f} ({shown['chips']:.2f} chips) with chips below "
        f"{MIN_CHIP_ORDER} not shown"
    )
    model = HistGradientBoostingClassifier(**BOOSTING).fit(x_all, y_all)
    return ChipOrder.from_sklearn(model, CHIP_FEATURES, info)


class ChipRows(NamedTuple):
    x: np.ndarray  # (chips, CHIP_FEATURES)
    right: np.ndarray  # (chips,) one of the paper's gold topics
    fold: np.ndarray  # (chips,) the paper's cross-validation fold
    papers: list[ChipPaper]  # papers with chips
    counts: np.ndarray  # (folds, T, 3) verdict_counts


def chip_rows(tagger, papers, candidates, gold, verdicts, folds: int) -> ChipRows:
    """The training papers' chips as the chip order is fitted on them: one row of
    :data:`CHIP_FEATURES` per chip (``candidates``: per paper, ``tagger.chip_candidates``'s
    slugs and rows), its verdict features from the other folds' verdicts only
    (:func:`out_of_fold_priors`), whether it is right, its paper's fold, and per paper with
    chips ``(row indices, slugs, gold, the judges' clear topics)``."""
    xs: list[np.ndarray] = []
    y: list[bool] = []
    fold: list[int] = []
    rows: list[ChipPaper] = []
    for paper, (slugs, x), g, (named, _, _) in zip(papers, candidates, gold, verdicts, strict=True):
        if not slugs:
            continue
        at = list(range(len(y), len(y) + len(slugs)))
        rows.append((at, slugs, g, set(named)))
        xs.append(x)
        y += [s in g for s in slugs]
        fold += [fold_of(paper.id, folds)] * len(slugs)
    x_all, y_all, fold_all = np.vstack(xs), np.asarray(y), np.asarray(fold)
    counts = verdict_counts(papers, verdicts, tagger.index.pos, folds)
    columns = np.array([tagger.index.pos[s] for _, slugs, _, _ in rows for s in slugs])
    judged = [CHIP_FEATURES.index(f) for f in JUDGED_FEATURES]
    x_all[:, judged] = out_of_fold_priors(counts, columns, fold_all)
    return ChipRows(x_all, y_all, fold_all, rows, counts)


def out_of_fold_p(
    x: np.ndarray, right: np.ndarray, fold: np.ndarray, scored: Iterable[int]
) -> np.ndarray:
    """P(right) of the rows of each fold in ``scored`` by the chip-order trees fitted on the
    other folds' rows (0 for the rows of folds not scored)."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    p = np.zeros(len(right))
    for k in scored:
        train, held = fold != k, fold == k
        model = HistGradientBoostingClassifier(**BOOSTING).fit(x[train], right[train])
        p[held] = model.predict_proba(x[held])[:, 1]
    return p


def verdict_counts(papers, verdicts, pos: Mapping[str, int], folds: int) -> np.ndarray:
    """(folds, T, 3) counts of the judges' (clear, acceptable, rejected) verdicts on each topic,
    by the fold of the paper (slugs not in ``pos`` are left out)."""
    counts = np.zeros((folds, len(pos), 3), dtype=np.int64)
    for paper, triple in zip(papers, verdicts, strict=True):
        k = fold_of(paper.id, folds)
        for kind, slugs in enumerate(triple):
            for slug in set(slugs):
                if slug in pos:
                    counts[k, pos[slug], kind] += 1
    return counts


def out_of_fold_priors(counts: np.ndarray, columns: np.ndarray, fold: np.ndarray) -> np.ndarray:
    """(n, 3) :func:`judged_priors` of each row's topic (``columns``) from the verdicts of the
    folds other than the row's (``fold``), scaled to all folds as the tagger counts them."""
    folds = len(counts)
    out = np.zeros((len(columns), 3))
    for k in range(folds):
        at = fold == k
        others = (counts.sum(axis=0) - counts[k]) * folds / max(folds - 1, 1)
        out[at] = judged_priors(others)[columns[at]]
    return out
