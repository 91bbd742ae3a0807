"""manage.py fit_tagger: fit the tagger's scorer, calibration and decision threshold on the
TRAINING set only, and write the labelled papers the tagger's kNN uses.

    manage.py fit_tagger [--name fit-7] [--out topics/tagger/model/scorer.json]
                         [--base topics/tagger/model/scorer_hand-1.json] [--folds 5]
                         [--acceptable exclude|negative|half] [--l2 3.0] [--calibrate-top 5]
                         [--knn-k 20] [--search] [--report cv.json] [--dry-run]

1. Pairs: for every labelled training paper (topics/evaluation/train_*.jsonl, announced
   2024-12-31..2025-05-16; the command refuses papers from the gold window or in the gold set),
   every topic the scorer scores for it (``Tagger.candidate_slugs``: keyword hits, top-k by each
   similarity, the topics of the ``--knn-k`` nearest other labelled training papers) gives one
   pair with ``Tagger.pair_features``. Label 1 = the topic or one of its descendants is labelled
   "clearly applies" (gold expanded with ancestors), 0 = any other candidate. An "acceptable"
   topic (defensible, not clearly right) is, with ``--acceptable``: ``negative`` a 0 like any
   other wrong topic; ``exclude`` left out of the logistic fit; ``half`` a positive of weight
   0.5. Calibration is always to strict correctness (acceptable = not correct), as ECE is
   measured.
2. ``--folds``-fold cross-validation grouped by paper: on each fold's complement the logistic
   weights are fitted (``fit_scorer``, all features standardised, L2, classes balanced); the
   held-out papers get out-of-fold raw scores, made hierarchy-consistent as the tagger does.
   The kNN memory of each fold holds the other folds' papers only, so no held-out label is
   seen (a training paper is never its own neighbour either).
3. Calibration: one Platt scaling fitted on the out-of-fold raw scores of each paper's
   ``--calibrate-top`` best non-area topics (the region where tags are chosen; 0 = all
   candidates), so that the scores of the tags the tagger shows are calibrated, not only the
   mass of obvious negatives.
4. Decision rule: the threshold and fill-up floor with the best out-of-fold non-area micro-F1;
   among grid points within 0.005 of the best (the surface is flat in the threshold once the
   floor is set), the threshold closest to 0.5, so that a "confident" tag is more likely right
   than wrong. ``--search`` also cross-validates ``--acceptable`` x ``--l2`` and keeps the best
   micro-F1 (within 0.005, the lowest ECE).
5. The final weights are fitted on all training papers (kNN over all of them, each left out of
   its own neighbours), with the cross-validated Platt parameters and decision rule, and
   written with their version, the data they came from and the out-of-fold figures in ``fit``;
   the labelled papers go to ``labelled_papers.jsonl.gz`` next to the scorer.

The base (hand-set) scorer supplies the candidate sizes, the rest of the decision rule and the
weights of signals the training data cannot show (example papers, rejections, priors; their
effect on the final logit is kept). Deterministic: the same files give the same scorer.json and
labelled_papers.jsonl.gz.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import time
import zlib
from dataclasses import replace
from datetime import date
from pathlib import Path

import numpy as np
from django.core.management.base import BaseCommand, CommandError

from topics.evaluation import load_set
from topics.evaluation.metrics import areas_of, expected_calibration_error, micro_prf
from topics.tagger.scoring import SCORER_PATH

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


def fold_of(paper_id: str, folds: int) -> int:
    return zlib.crc32(paper_id.encode()) % folds


def check_training_papers(papers: list[dict], gold_ids: set[str]) -> None:
    """Nothing the tagger learns from may come from the gold (test) window or set."""
    for paper in papers:
        if paper["id"] in gold_ids:
            raise CommandError(f"training paper {paper['id']} is in the gold set")
        announced = paper.get("announced")
        if announced and date.fromisoformat(str(announced)[:10]) >= GOLD_WINDOW_START:
            raise CommandError(
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


def oof_raw_scores(
    tagger, base, papers, data: FoldData, gold, acceptable, mode: str, *, l2: float
) -> np.ndarray:
    """(N, T) out-of-fold raw coherent scores (-inf for non-candidates): each fold is scored
    by weights fitted on the other folds, with only the other folds as labelled papers."""
    from topics.tagger import fit_scorer

    z = np.full((len(papers), len(tagger.topics)), -np.inf, dtype=np.float64)
    saved = tagger.neighbour_memory()
    try:
        for k in range(data.folds):
            held = [i for i, f in enumerate(data.fold) if f == k]
            if not held:
                continue
            params = fit_scorer(
                data.pairs(k, gold, acceptable, mode),
                base=base,
                l2=l2,
                calibration_fraction=0.0,
                version=f"cv-{k}",
            )
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
    is then more likely right than wrong), then the higher F1."""
    top = max(r["micro_f1"] for r in results)
    near = [r for r in results if r["micro_f1"] >= top - tolerance]
    return min(near, key=lambda r: (abs(r["threshold"] - prefer), -r["micro_f1"], r["floor"]))


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
    tagger, base, papers, data: FoldData, gold, acceptable, mode, y, *, l2, top
) -> dict:
    areas = areas_of({t.slug: t.parent for t in tagger.topics})
    non_area = np.array([t.slug not in areas for t in tagger.topics])
    z = oof_raw_scores(tagger, base, papers, data, gold, acceptable, mode, l2=l2)
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
    return {"platt": [a, c], "best": best, "grid": results}


def fit_fallback(tagger, base, papers, gold, acceptable, y, *, mode, l2, folds, top, name):
    """The scorer a tagger without labelled papers uses (no kNN features or candidates): the
    same variant cross-validated and fitted with an empty kNN memory."""
    from topics.tagger import fit_scorer

    base0 = replace(base, candidates={**base.candidates, "knn_k": 0})
    saved = tagger.neighbour_memory()
    try:
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
        fit={"method": "as the main scorer, without labelled papers (kNN)", "cv": _r(best)},
        fallback=None,
    )


def label_digest(names: list[str]) -> str:
    """sha256 (first 16 hex digits) of the label files' bytes: which labels a scorer saw."""
    from topics.evaluation import EVAL_DIR

    digest = hashlib.sha256()
    for name in names:
        digest.update((EVAL_DIR / name).read_bytes())
    return digest.hexdigest()[:16]


def labelled_rows(labelled, tagger=None) -> list[dict]:
    """JSON rows of the labelled papers; with ``tagger``, each with its cached vector (float16,
    base64) and the fingerprint of the embedding pipeline it is valid for."""
    rows = [
        {
            "id": p.id,
            "title": p.title,
            "abstract": p.abstract,
            "categories": list(p.categories),
            "topics": list(topics),
        }
        for p, topics in labelled
    ]
    if tagger is not None and rows:
        from topics.tagger.engine import encode_vector

        fingerprint = tagger.embedding_fingerprint()
        vecs = tagger.embed([p for p, _ in labelled])
        for row, vec in zip(rows, vecs, strict=True):
            row["embedding"] = fingerprint
            row["vec"] = encode_vector(vec)
    return rows


def labelled_digest(labelled) -> str:
    text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in labelled_rows(labelled))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def write_labelled(path: Path, labelled, tagger=None) -> None:
    """The labelled papers the tagger's kNN reads (``engine.load_labelled_papers``): JSON lines
    (with cached vectors when ``tagger`` is given: no re-embedding at start-up), gzip without a
    timestamp, so the same labels give the same bytes."""
    text = "".join(json.dumps(r) + "\n" for r in labelled_rows(labelled, tagger))
    with path.open("wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
        gz.write(text.encode("utf-8"))


def _r(d: dict) -> dict:
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in d.items()}


class Command(BaseCommand):
    help = (
        "Fit the tagger's scorer (logistic regression), its calibration (Platt) and decision "
        "threshold on the labelled training set (cross-validated) and write "
        "topics/tagger/model/scorer.json."
    )

    def add_arguments(self, parser):
        parser.add_argument("--name", default="fit-7", help="version string of the new scorer")
        parser.add_argument("--out", type=Path, default=SCORER_PATH)
        parser.add_argument("--base", type=Path, default=BASE_SCORER, help="base scorer.json")
        parser.add_argument("--folds", type=int, default=5)
        parser.add_argument("--acceptable", choices=ACCEPTABLE_MODES, default="negative")
        parser.add_argument("--l2", type=float, default=3.0)
        parser.add_argument(
            "--calibrate-top", type=int, default=5, help="Platt on each paper's N best topics"
        )
        parser.add_argument(
            "--top-k", type=int, default=0, help="candidates per similarity (default: base's)"
        )
        parser.add_argument(
            "--knn-k",
            type=int,
            default=KNN_K,
            help="nearest labelled training papers for kNN candidates/features (0: none)",
        )
        parser.add_argument(
            "--search", action="store_true", help="also cross-validate --acceptable and --l2"
        )
        parser.add_argument("--limit", type=int, default=0, help="first N papers (for tests)")
        parser.add_argument("--dry-run", action="store_true", help="do not write the scorer")
        parser.add_argument("--report", type=Path, help="write the CV results as JSON here")

    def handle(self, *args, **options):
        from topics.services.taxonomy import TAXONOMY_DIR
        from topics.tagger import ScorerParams, Tagger, fit_scorer, load_taxonomy_files
        from topics.tagger.engine import PaperInput

        started = time.perf_counter()
        out = self.stdout.write
        folds, top = options["folds"], options["calibrate_top"]
        if folds < 2:
            raise CommandError("--folds must be at least 2")
        base = ScorerParams.load(options["base"])
        cands = {**base.candidates, "knn_k": max(0, options["knn_k"])}
        if options["top_k"]:
            cands["top_k"] = options["top_k"]
        base = replace(base, candidates=cands)
        taxonomy = load_taxonomy_files(TAXONOMY_DIR)
        train = load_set("train")
        gold_ids = {p["id"] for p in load_set("gold").papers}
        check_training_papers(train.papers, gold_ids)
        if options["limit"]:
            train.papers = train.papers[: options["limit"]]
        tagger = Tagger(taxonomy.topics, params=base, neighbours=())
        parents = {t.slug: t.parent for t in taxonomy.topics}
        gold, acceptable, unknown = train.gold(parents)
        papers = [PaperInput.coerce(p) for p in train.papers]
        announced = sorted(str(p.get("announced", ""))[:10] for p in train.papers)
        out(
            f"training set: {len(papers)} labelled papers announced {announced[0]}..{announced[-1]}"
            f" ({', '.join(train.label_files)}); taxonomy v{taxonomy.version}, "
            f"{len(taxonomy.topics)} topics; base scorer {base.version}"
        )
        if unknown:
            out(f"WARNING: label slugs not in the taxonomy, ignored: {sorted(set(unknown))}")
        pos = {s: j for j, s in enumerate(t.slug for t in taxonomy.topics)}
        y = np.zeros((len(papers), len(pos)), dtype=bool)
        for i, g in enumerate(gold):
            y[i, [pos[s] for s in g]] = True

        variants = [(options["acceptable"], options["l2"])]
        if options["search"]:
            variants = [(m, l2) for m in ACCEPTABLE_MODES for l2 in L2_GRID]
        labels = [train.labels[p.id].topics for p in papers]
        knn = base.candidates["knn_k"] > 0
        data = FoldData(tagger, papers, labels if knn else [[]] * len(papers), folds)
        cv_results = []
        for mode, l2 in variants:
            cv = evaluate_variant(
                tagger, base, papers, data, gold, acceptable, mode, y, l2=l2, top=top
            )
            b = cv["best"]
            cv_results.append({"acceptable": mode, "l2": l2, **cv})
            out(
                f"  CV acceptable={mode:<8} l2={l2:<5} threshold {b['threshold']:.2f} "
                f"floor {b['floor']:.2f}: micro-F1 {b['micro_f1']:.3f} (P {b['precision']:.3f} "
                f"R {b['recall']:.3f}), ECE {b['ece']:.3f}, coverage {b['coverage']:.3f}, "
                f"candidate recall@50 {b['candidate_recall_at_50']:.3f}, P@3 {b['p_at_3']:.3f} "
                f"(bound {b['p_at_3_bound']:.3f}; {b['p_at_3_ge3_gold']:.3f} on papers with "
                f">= 3 gold topics)"
            )
        best_f1 = max(r["best"]["micro_f1"] for r in cv_results)
        chosen = min(  # best micro-F1; within the noise tolerance, the better calibrated
            (r for r in cv_results if r["best"]["micro_f1"] >= best_f1 - TOLERANCE),
            key=lambda r: (r["best"]["ece"], -r["best"]["micro_f1"]),
        )
        mode, l2, best = chosen["acceptable"], chosen["l2"], chosen["best"]
        a, c = chosen["platt"]
        labelled = [(p, lab) for p, lab in zip(papers, labels, strict=True) if knn and lab]
        tagger.set_neighbours(labelled)  # every training paper, each left out of its own kNN
        pairs = build_pairs(tagger, papers, gold, acceptable, mode)
        fitted = fit_scorer(
            pairs, base=base, l2=l2, calibration_fraction=0.0, version=options["name"]
        )
        weights = dict(fitted.weights)
        for f in fitted.fit.get("kept_from_base", []):  # same effect on the final logit as base
            weights[f] = float(base.weights.get(f, 0.0)) * float(base.platt[0]) / a
        n_pos = sum(1 for p in pairs if p[1] and p[3] >= 1)
        fit_info = {
            "method": (
                "logistic regression (numpy Newton, L2, balanced classes) on all training pairs; "
                f"Platt on out-of-fold scores of each paper's {top or 'all'} best non-area "
                "topics; threshold/floor by out-of-fold micro-F1"
            ),
            "command": f"manage.py fit_tagger --name {options['name']}"
            + (" --search" if options["search"] else f" --acceptable {mode} --l2 {l2}")
            + f" --folds {folds} --calibrate-top {top}"
            + (f" --top-k {options['top_k']}" if options["top_k"] else "")
            + f" --knn-k {base.candidates['knn_k']}",
            "data": {
                "set": "train",
                "label_files": train.label_files,
                "labels_sha256": label_digest(train.label_files),
                "papers": len(papers),
                "announced": [announced[0], announced[-1]],
                "taxonomy_version": taxonomy.version,
                "topics": len(taxonomy.topics),
            },
            "labelled_papers": {
                "file": LABELLED_FILE,
                "papers": len(labelled),
                "sha256": labelled_digest(labelled),
                "knn_k": base.candidates["knn_k"],
            },
            "pairs": len(pairs),
            "pairs_positive": n_pos,
            "acceptable": mode,
            "l2": l2,
            "kept_from_base": fitted.fit.get("kept_from_base", []),
            "cv_folds": folds,
            "cv": _r(best),
        }
        selection = {**base.selection, "threshold": best["threshold"], "floor": best["floor"]}
        fallback = None
        if knn:  # the same variant without labelled papers: for a tagger that has none
            fallback = fit_fallback(
                tagger,
                base,
                papers,
                gold,
                acceptable,
                y,
                mode=mode,
                l2=l2,
                folds=folds,
                top=top,
                name=options["name"],
            )
            fit_info["fallback_cv"] = fallback.fit["cv"]
            c0 = fallback.fit["cv"]
            out(
                f"fallback without labelled papers (CV): micro-F1 {c0['micro_f1']:.3f}, ECE "
                f"{c0['ece']:.3f}, candidate recall@50 {c0['candidate_recall_at_50']:.3f}, "
                f"threshold {c0['threshold']:.2f}, floor {c0['floor']:.2f}"
            )
        fitted = replace(
            fitted,
            weights=weights,
            platt=(a, c),
            selection=selection,
            fit=fit_info,
            fallback=fallback,
        )
        out(
            f"final: {len(pairs)} pairs ({n_pos} positive) from {len(papers)} papers, "
            f"acceptable={mode}, l2={l2}; Platt a={a:.3f} c={c:.3f}; threshold "
            f"{best['threshold']:.2f}, floor {best['floor']:.2f}"
        )
        out("weights: " + ", ".join(f"{f} {w:+.3f}" for f, w in fitted.weights.items()))
        out(f"bias {fitted.bias:.3f}")
        if options["report"]:
            options["report"].write_text(
                json.dumps(
                    {"chosen": {"acceptable": mode, "l2": l2}, "cv": cv_results},
                    indent=1,
                    default=float,
                )
                + "\n",
                encoding="utf-8",
            )
        if options["dry_run"]:
            out("dry run: scorer not written")
        else:
            fitted.save(options["out"])
            target = Path(options["out"]).parent / LABELLED_FILE
            write_labelled(target, labelled, tagger)
            out(f"wrote {options['out']} (version {fitted.version}) and {target.name}")
        out(f"done in {time.perf_counter() - started:.1f} s")
