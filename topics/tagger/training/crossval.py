"""Cross-validation for the tagger's scorer: pairs, folds grouped by paper, out-of-fold
scores, Platt calibration, the decision-rule grid and the figures each variant is judged by.
The pipeline (:mod:`topics.tagger.training.pipeline`) runs these; docs/tagging.md has the why."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import numpy as np

from topics.evaluation.metrics import areas_of, expected_calibration_error, micro_prf
from topics.tagger.features import FEATURES
from topics.tagger.memory import fold_of  # noqa: F401 (the folds of every fit)
from topics.tagger.scoring import SCORER_PATH, ScorerParams, pair_arrays
from topics.tagger.trees import BoostedTrees


class TrainingDataError(ValueError):
    """The training set breaks a rule (a paper from the gold window or set)."""


MODEL_DIR = SCORER_PATH.parent
BASE_SCORER = MODEL_DIR / "scorer_hand-1.json"
GOLD_WINDOW_START = date(2025, 5, 19)
THRESHOLDS = [round(0.15 + 0.05 * i, 2) for i in range(12)]  # 0.15 .. 0.70
FLOORS = [0.05, 0.1, 0.15, 0.2, 0.25, 0.3]
ACCEPTABLE_MODES = ("negative", "exclude", "half")
L2_GRID = (0.3, 1.0, 3.0, 10.0)
TOLERANCE = 0.005  # micro-F1 differences below this are noise (its 95% CI is about +-0.04)
PREFER = 0.5
# Nearest labelled training papers (candidates + knn_* features): 20 of 10, 15, 20 and 30 by
# out-of-fold micro-F1 on the 820 training papers (fit-6; fit-2 to fit-5 used 10).
KNN_K = 20
LABELLED_FILE = "labelled_papers.jsonl.gz"  # written next to the scorer: the kNN memory
# The refined stage's scorer of boosted trees (fit_tagger --trees), chosen out of fold on
# fit-17r's held-out pairs (docs/tagging.md, "Contextual topic similarities and a scorer of
# trees"): micro-F1 0.689 -> 0.713 over
# the logistic weights; 600 trees gave the same.
TREES = {
    "max_iter": 300,
    "learning_rate": 0.05,
    "max_leaf_nodes": 31,
    "min_samples_leaf": 40,
    "l2_regularization": 1.0,
    "early_stopping": False,
    "random_state": 0,
}


def rounded(d: dict) -> dict:
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in d.items()}


def check_training_papers(papers: list[dict], gold_ids: set[str]) -> None:
    """Nothing the tagger learns from may come from the gold (test) window or set."""
    for paper in papers:
        if paper["id"] in gold_ids:
            raise TrainingDataError(f"training paper {paper['id']} is in the gold set")
        announced = paper.get("announced")
        if announced and date.fromisoformat(str(announced)[:10]) >= GOLD_WINDOW_START:
            raise TrainingDataError(
                f"training paper {paper['id']} was announced {announced}, inside the gold window "
                f"(from {GOLD_WINDOW_START})"
            )


def scored_pairs(tagger, papers) -> list[dict[str, dict[str, float]]]:
    """Per paper, the features of every topic the scorer scores for it."""
    return tagger.pair_features(papers, tagger.candidate_slugs(papers))


def label_pairs(papers, feats, gold, acceptable, mode: str) -> list[tuple]:
    """(features, label, group, weight) from :func:`scored_pairs` and the labels."""
    pairs = []
    for paper, row, g, a in zip(papers, feats, gold, acceptable, strict=True):
        for slug, f in row.items():
            if slug in g:
                pairs.append((f, 1, paper.id, 1.0))
            elif slug in a and mode == "half":
                pairs.append((f, 1, paper.id, 0.5))
            elif slug in a and mode == "exclude":
                pairs.append((f, 0, paper.id, 0.0))  # out of the weights
            else:
                pairs.append((f, 0, paper.id, 1.0))
    return pairs


def build_pairs(tagger, papers, gold, acceptable, mode: str) -> list[tuple]:
    """(features, label, group, weight) for every scored (paper, topic) pair of the papers,
    with the tagger's labelled papers (kNN) as they are (a paper is never its own neighbour)."""
    return label_pairs(papers, scored_pairs(tagger, papers), gold, acceptable, mode)


class FoldData:
    """Per cross-validation fold: the labelled-paper memory of the other folds (kNN features
    must not see the held-out papers' labels) and the features of the other folds' pairs,
    computed once and relabelled for each ``--acceptable`` mode."""

    def __init__(self, tagger, papers, labels, folds: int):
        self.tagger, self.papers, self.folds = tagger, papers, folds
        self.fold = [fold_of(p.id, folds) for p in papers]
        self.memory, self.feats, self.train_idx = {}, {}, {}
        saved = tagger.neighbour_memory()
        try:
            for k in range(folds):
                idx = [i for i, f in enumerate(self.fold) if f != k]
                tagger.set_neighbours([(papers[i], labels[i]) for i in idx])
                self.memory[k] = tagger.neighbour_memory()
                self.train_idx[k] = idx
                self.feats[k] = scored_pairs(tagger, [papers[i] for i in idx])
        finally:
            tagger.set_neighbours(saved)

    def pairs(self, k: int, gold, acceptable, mode: str) -> list[tuple]:
        idx = self.train_idx[k]
        return label_pairs(
            [self.papers[i] for i in idx],
            self.feats[k],
            [gold[i] for i in idx],
            [acceptable[i] for i in idx],
            mode,
        )


def fit_trees(pairs: list[tuple]) -> BoostedTrees:
    """Boosted trees over :data:`FEATURES` fitted on (features, label, group, weight) pairs
    (a pair of weight 0, an acceptable topic left out, is not seen)."""
    from sklearn.ensemble import HistGradientBoostingClassifier  # fitting only

    x, y, _, weight = pair_arrays(pairs)
    kept = weight > 0
    model = HistGradientBoostingClassifier(**TREES).fit(
        x[kept], y[kept].astype(int), sample_weight=weight[kept]
    )
    info = {"method": "HistGradientBoostingClassifier on (paper, topic) pairs", "boosting": TREES}
    return BoostedTrees.from_sklearn(model, FEATURES, {**info, "pairs": int(kept.sum())})


def oof_raw_scores(
    tagger, base, papers, data: FoldData, gold, acceptable, mode: str, *, l2: float,
    trees: bool = False, fold_params: dict | None = None,
) -> np.ndarray:  # fmt: skip
    """(N, T) out-of-fold raw coherent scores (-inf for non-candidates): each fold is scored
    by weights (or ``trees``) fitted on the other folds, with only the other folds as labelled
    papers. ``fold_params`` (if given) gets each fold's scorer."""
    from topics.tagger import fit_scorer

    z = np.full((len(papers), len(tagger.topics)), -np.inf, dtype=np.float64)
    saved = tagger.neighbour_memory()
    try:
        for k in range(data.folds):
            held = [i for i, f in enumerate(data.fold) if f == k]
            if not held:
                continue
            pairs = data.pairs(k, gold, acceptable, mode)
            params = fit_scorer(
                pairs, base=base, l2=l2, calibration_fraction=0.0, version=f"cv-{k}"
            )
            if trees:
                params = replace(params, trees=fit_trees(pairs))
            if fold_params is not None:
                fold_params[k] = params
            tagger.set_params(params)
            tagger.set_neighbours(data.memory[k])
            z[held] = tagger.coherent_scores([papers[i] for i in held], raw=True)
    finally:
        tagger.set_params(base)
        tagger.set_neighbours(saved)
    return z


def top_mask(z: np.ndarray, non_area: np.ndarray, top: int) -> np.ndarray:
    """Each row's ``top`` best live non-area entries (all live non-area ones when top <= 0)."""
    live = np.isfinite(z) & non_area[None, :]
    if top <= 0:
        return live
    masked = np.where(live, z, -np.inf)
    k = min(top, z.shape[1])
    idx = np.argpartition(-masked, k - 1, axis=1)[:, :k]
    mask = np.zeros_like(live)
    np.put_along_axis(mask, idx, True, axis=1)
    return mask & live


def calibrate(z, y, non_area, top: int) -> tuple[float, float]:
    from topics.tagger.scoring import fit_platt

    mask = top_mask(z, non_area, top)
    return fit_platt(z[mask], y[mask])


def to_scores(z: np.ndarray, a: float, c: float) -> np.ndarray:
    from topics.tagger.scoring import sigmoid

    finite = np.isfinite(z)
    return np.where(finite, sigmoid(a * np.where(finite, z, 0.0) + c), 0.0)


def decide(tagger, scores, settings) -> list[tuple[str, float, bool]]:
    """The decision rule on one row of coherent scores: [(slug, score, low_confidence)]."""
    from topics.tagger.selection import select

    return [
        (tagger.topics[s.topic].slug, s.score, s.low_confidence)
        for s in select(scores, tagger.hierarchy, settings)
    ]


def score_tags(tag_lists, gold, areas) -> dict:
    """Non-area micro P/R/F1, ECE of the non-area tag scores, coverage of a set of tag lists
    ``[(slug, score, low_confidence), ...]`` per paper."""
    pred = [[slug for slug, _, _ in tags if slug not in areas] for tags in tag_lists]
    g = [x - areas for x in gold]
    m = micro_prf(g, pred)
    scores, correct = [], []
    for tags, gg in zip(tag_lists, g, strict=True):
        for slug, score, _ in tags:
            if slug not in areas:
                scores.append(score)
                correct.append(slug in gg)
    confident = [sum(1 for _, _, low in tags if not low) for tags in tag_lists]
    return {
        "micro_f1": m["f1"],
        "precision": m["precision"],
        "recall": m["recall"],
        "ece": expected_calibration_error(scores, correct),
        "coverage": sum(1 for c in confident if c >= 3) / len(tag_lists) if tag_lists else 0.0,
        "tags_per_paper": sum(len(p) for p in pred) / len(pred) if pred else 0.0,
    }


def selection_grid(base_selection) -> list[dict]:
    grid = []
    for t in THRESHOLDS:
        for fl in [f for f in FLOORS if f < t] + [t]:
            grid.append({**base_selection, "threshold": t, "floor": fl})
    return grid


def choose(results: list[dict], *, tolerance: float = TOLERANCE, prefer: float = PREFER) -> dict:
    """The grid point with the best out-of-fold micro-F1; among those within ``tolerance`` of it
    (the F1 surface is flat in the threshold once the fill-up floor is set, and far flatter than
    its CI), the threshold closest to ``prefer`` (0.5: with calibrated scores a "confident" tag
    is then more likely right than wrong), then the higher F1, then the higher floor. (Until
    ``fit-22r`` the lower floor came first, so that a paper had three chips; since chips are only
    the likely topics (docs/tagging.md, "Chips a paper has") a fill-up tag below the threshold
    is rarely a chip and only adds a weak tag to a topic page.)"""
    top = max(r["micro_f1"] for r in results)
    near = [r for r in results if r["micro_f1"] >= top - tolerance]
    return min(near, key=lambda r: (abs(r["threshold"] - prefer), -r["micro_f1"], -r["floor"]))


def candidate_recall_at(scores, gold_matrix, non_area, depth, k: int = 50) -> float:
    """Share of non-area gold pairs among each paper's k best live topics (as
    ``Tagger.candidates`` ranks them: score, then deeper first)."""
    found = total = 0
    for row, g in zip(scores, gold_matrix, strict=True):
        live = np.flatnonzero(row > 0)
        order = live[np.lexsort((live, -depth[live], -row[live]))][:k]
        want = g & non_area
        found += int(want[order].sum())
        total += int(want.sum())
    return found / total if total else 0.0


def ranking_metrics(tagger, scores, tag_lists, gold, areas) -> dict:
    """P@3 on the ranking the evaluation uses (shown non-area tags in rank order, then the
    other candidates by score), its bound, and P@3 over papers with >= 3 non-area gold topics."""
    from topics.evaluation.metrics import (
        precision_at_k,
        precision_at_k_bound,
        precision_at_k_full,
    )

    depth = tagger.hierarchy.depth
    slugs = [t.slug for t in tagger.topics]
    rankings = []
    for row, tags in zip(scores, tag_lists, strict=True):
        shown = [s for s, _, _ in tags if s not in areas]
        live = np.flatnonzero(row > 0)
        order = live[np.lexsort((live, -depth[live], -row[live]))][:50]
        seen = set(shown)
        rankings.append(shown + [slugs[j] for j in order if slugs[j] not in areas | seen])
    g = [x - areas for x in gold]
    full, n_full = precision_at_k_full(g, rankings, 3)
    return {
        "p_at_3": precision_at_k(g, rankings, 3),
        "p_at_3_bound": precision_at_k_bound(g, 3),
        "p_at_3_ge3_gold": full,
        "papers_ge3_gold": n_full,
    }


def evaluate_variant(
    tagger, base, papers, data: FoldData, gold, acceptable, mode, y, *, l2, top, trees=False
) -> dict:
    """The variant's out-of-fold figures; with ``trees`` also each fold's scorer (its Platt
    and decision rule the variant's), under ``fold_params``: trees fitted on all papers score
    those papers far better than new ones, so what is fitted on the scorer's own output (the
    chip order) must see each fold scored by the other folds' trees."""
    areas = areas_of({t.slug: t.parent for t in tagger.topics})
    non_area = np.array([t.slug not in areas for t in tagger.topics])
    per_fold: dict[int, ScorerParams] = {}
    z = oof_raw_scores(
        tagger, base, papers, data, gold, acceptable, mode, l2=l2, trees=trees,
        fold_params=per_fold,
    )  # fmt: skip
    a, c = calibrate(z, y, non_area, top)
    scores = to_scores(z, a, c)
    grid = selection_grid(base.selection)
    results = []
    for sel in grid:
        tags = [decide(tagger, scores[i], sel) for i in range(len(papers))]
        results.append({**sel, **score_tags(tags, gold, areas)})
    best = choose(results)
    depth = tagger.hierarchy.depth
    best["candidate_recall_at_50"] = candidate_recall_at(scores, y, non_area, depth)
    sel = {k: best[k] for k in base.selection}
    tags = [decide(tagger, scores[i], sel) for i in range(len(papers))]
    best.update(ranking_metrics(tagger, scores, tags, gold, areas))
    out = {"platt": [a, c], "best": best, "grid": results}
    if trees:
        out["fold_params"] = {
            k: replace(params, platt=(a, c), selection={**params.selection, **sel})
            for k, params in per_fold.items()
        }
    return out


def fit_fallback(tagger, base, papers, gold, acceptable, y, *, mode, l2, folds, top, name):
    """The scorer a tagger without labelled papers uses (no kNN features or candidates): the
    same variant cross-validated and fitted with an empty kNN memory."""
    from topics.tagger import fit_scorer

    base0 = replace(base, candidates={**base.candidates, "knn_k": 0, "top_k_head": 0})
    saved, saved_heads = tagger.neighbour_memory(), tagger.heads_view()
    try:
        tagger.set_heads(None)  # the heads are learnt from the same labelled papers
        tagger.set_params(base0)
        data = FoldData(tagger, papers, [[] for _ in papers], folds)
        cv = evaluate_variant(
            tagger, base0, papers, data, gold, acceptable, mode, y, l2=l2, top=top
        )
        tagger.set_neighbours(None)
        pairs = build_pairs(tagger, papers, gold, acceptable, mode)
    finally:
        tagger.set_params(base)
        tagger.set_neighbours(saved)
        tagger.set_heads(saved_heads)
    fitted = fit_scorer(pairs, base=base0, l2=l2, calibration_fraction=0.0)
    a, c = cv["platt"]
    weights = dict(fitted.weights)
    for f in fitted.fit.get("kept_from_base", []):
        weights[f] = float(base.weights.get(f, 0.0)) * float(base.platt[0]) / a
    best = cv["best"]
    return replace(
        fitted,
        version=f"{name}-no-knn",
        weights=weights,
        platt=(a, c),
        selection={**base.selection, "threshold": best["threshold"], "floor": best["floor"]},
        fit={"method": "as the main scorer, without labelled papers (kNN)", "cv": rounded(best)},
        fallback=None,
    )
