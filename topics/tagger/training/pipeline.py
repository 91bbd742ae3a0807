"""Fitting the tagger's scorer on the training set: the steps ``manage.py fit_tagger`` and the
scheduled retrain run. The method and its reasons are in this package's ``__init__`` docstring.

    result = fit(FitOptions(name="fit-8"), log=print)
    save(result, FitOptions().out)
"""

from __future__ import annotations

import gzip
import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from topics.evaluation import EVAL_DIR, load_set, load_weak
from topics.tagger.chip_order import CHIP_ORDER_FILE, ChipOrder
from topics.tagger.contextual import (
    CONTEXT_VECTORS_PATH,
    TOPIC_VECTORS_PATH,
    ContextualEmbedder,
    save_context_vectors,
)
from topics.tagger.engine import PaperInput, Tagger, encode_vector
from topics.tagger.heads import (
    HEADS_FILE,
    MIN_POSITIVES,
    TopicHeads,
    cross_fit_heads,
    fit_heads,
    paper_terms,
)
from topics.tagger.neighbours import phrase_topics
from topics.tagger.scoring import SCORER_PATH, TREES_FILE, ScorerParams, fit_scorer
from topics.tagger.taxonomy import load_taxonomy_files
from topics.tagger.text import MAX_ABSTRACT_CHARS, MAX_TITLE_CHARS, clean
from topics.tagger.training.chip_order import fit_chip_order
from topics.tagger.training.crossval import (
    ACCEPTABLE_MODES,
    BASE_SCORER,
    KNN_K,
    L2_GRID,
    LABELLED_FILE,
    TOLERANCE,
    FoldData,
    build_pairs,
    check_training_papers,
    evaluate_variant,
    fit_fallback,
    fit_trees,
    fold_of,
    rounded,
)
from topics.tagger.training.weak import weak_training

TAXONOMY_DIR = Path(__file__).resolve().parents[2] / "taxonomy"  # topics/taxonomy


@dataclass
class FitOptions:
    name: str = "fit-7"
    out: Path = SCORER_PATH
    base: Path = BASE_SCORER
    folds: int = 5
    acceptable: str = "negative"
    l2: float = 3.0
    calibrate_top: int = 5  # Platt on each paper's N best topics (0: all candidates)
    top_k: int = 0  # candidates per similarity (0: the base scorer's)
    knn_k: int = KNN_K
    search: bool = False  # also cross-validate the acceptable mode x l2
    heads: bool = True  # supervised per-topic heads (topics/tagger/heads.py) as features
    weak: bool = False  # the heads also learn from the weak labels (training/weak.py)
    top_k_head: int = 10  # candidates per paper from the heads' best topics
    limit: int = 0  # first N training papers (tests)
    # > 0: the refined stage's scorer, its kNN vote over static vectors joined to contextual
    # ones with this weight (topics/tagger/contextual.py); written to model/refined/
    context_weight: float = 0.0
    top_k_context: int = 10  # refined stage: candidates per contextual similarity (ctx_*)
    trees: bool = False  # score pairs by boosted trees (crossval.TREES), not logistic weights
    taxonomy_dir: Path = TAXONOMY_DIR


@dataclass
class FitResult:
    scorer: ScorerParams
    tagger: Tagger  # with every labelled training paper as its kNN memory
    labelled: list[tuple[PaperInput, list[str]]]
    cv_results: list[dict] = field(default_factory=list)
    chosen: dict = field(default_factory=dict)
    heads: TopicHeads | None = None  # fitted on every labelled training paper
    chip_order: ChipOrder | None = None  # orders each paper's chips (topics/tagger/chip_order.py)


@dataclass
class _Training:
    papers: list[PaperInput]
    labels: list[list[str]]
    verdicts: list[
        tuple[list[str], list[str], list[str]]
    ]  # the judges' clear, acceptable, rejected
    gold: list[set]
    acceptable: list[set]
    y: np.ndarray  # (papers, topics) strict gold with ancestors
    label_files: list[str]
    announced: tuple[str, str]
    weak: tuple[list[PaperInput], np.ndarray] | None = None  # papers, (N, T) labels
    weak_files: list[str] = field(default_factory=list)


def fit(opts: FitOptions, *, log: Callable[[str], None] = lambda _: None) -> FitResult:
    """Cross-validate the variants, pick one, fit it on every training paper. Raises
    ``ValueError`` for bad options and :class:`TrainingDataError` for a bad training set."""
    started = time.perf_counter()
    if opts.folds < 2:
        raise ValueError("--folds must be at least 2")
    base = _base_scorer(opts)
    taxonomy = load_taxonomy_files(opts.taxonomy_dir)
    data = _training_data(taxonomy, opts, log)
    log(
        f"training set: {len(data.papers)} labelled papers announced "
        f"{data.announced[0]}..{data.announced[1]} ({', '.join(data.label_files)}); taxonomy "
        f"v{taxonomy.version}, {len(taxonomy.topics)} topics; base scorer {base.version}"
    )
    context = ContextualEmbedder() if opts.context_weight > 0 else None  # refined stage
    tagger = Tagger(taxonomy.topics, params=base, neighbours=(), context=context)
    if tagger.context is not None:  # encoded once: every fold's memory and query reuses them
        started_ctx = time.perf_counter()
        tagger.remember_context([p.id for p in data.papers], tagger.context_of(data.papers))
        log(
            f"contextual vectors ({tagger.context.name}) of {len(data.papers)} papers in "
            f"{time.perf_counter() - started_ctx:.0f} s"
        )
    knn = base.candidates["knn_k"] > 0
    heads = _fit_heads(tagger, data, opts, log) if knn and opts.heads else None
    cv_results = _cross_validate(tagger, base, data, opts, knn=knn, log=log)
    chosen = _choose(cv_results)
    fold_params = chosen.get("fold_params")  # with --trees: each fold's scorer
    for result in cv_results:
        result.pop("fold_params", None)
    mode, l2, best = chosen["acceptable"], chosen["l2"], chosen["best"]
    a, c = chosen["platt"]
    labelled = [(p, lab) for p, lab in zip(data.papers, data.labels, strict=True) if knn and lab]
    tagger.set_neighbours(labelled)  # every training paper, each left out of its own kNN
    pairs = build_pairs(tagger, data.papers, data.gold, data.acceptable, mode)
    fitted = fit_scorer(pairs, base=base, l2=l2, calibration_fraction=0.0, version=opts.name)
    weights = dict(fitted.weights)
    for f in fitted.fit.get("kept_from_base", []):  # same effect on the final logit as base
        weights[f] = float(base.weights.get(f, 0.0)) * float(base.platt[0]) / a
    n_pos = sum(1 for p in pairs if p[1] and p[3] >= 1)
    fit_info = _fit_info(opts, base, taxonomy, data, labelled, chosen, len(pairs), n_pos, fitted)
    fallback = None
    if knn:  # the same variant without labelled papers: for a tagger that has none
        fallback = fit_fallback(
            tagger, base, data.papers, data.gold, data.acceptable, data.y,
            mode=mode, l2=l2, folds=opts.folds, top=opts.calibrate_top, name=opts.name,
        )  # fmt: skip
        fit_info["fallback_cv"] = c0 = fallback.fit["cv"]
        log(
            f"fallback without labelled papers (CV): micro-F1 {c0['micro_f1']:.3f}, ECE "
            f"{c0['ece']:.3f}, candidate recall@50 {c0['candidate_recall_at_50']:.3f}, "
            f"threshold {c0['threshold']:.2f}, floor {c0['floor']:.2f}"
        )
    selection = {**base.selection, "threshold": best["threshold"], "floor": best["floor"]}
    trees = None
    if opts.trees:  # the trees score; Platt and the decision rule are theirs out of fold
        trees = fit_trees(pairs)
        fit_info["trees"] = {"file": TREES_FILE, **trees.info}
        log(f"trees: {len(trees.tree_start)} trees on {trees.info['pairs']} pairs")
    fitted = replace(
        fitted, weights=weights, platt=(a, c), selection=selection, fit=fit_info,
        fallback=fallback, trees=trees,
    )  # fmt: skip
    log(
        f"final: {len(pairs)} pairs ({n_pos} positive) from {len(data.papers)} papers, "
        f"acceptable={mode}, l2={l2}; Platt a={a:.3f} c={c:.3f}; threshold "
        f"{best['threshold']:.2f}, floor {best['floor']:.2f}"
    )
    log("weights: " + ", ".join(f"{f} {w:+.3f}" for f, w in fitted.weights.items()))
    chip_order = None
    if heads is not None:  # on the fitted tagger's chips (kNN and heads still left out)
        tagger.set_params(fitted)
        chip_order = fit_chip_order(
            tagger, data.papers, data.gold, verdicts=data.verdicts,
            folds=opts.folds, log=log, fold_params=fold_params,
        )  # fmt: skip
        if chip_order is not None:
            fitted = replace(fitted, fit={**fitted.fit, "chip_order": chip_order.info["cv"]})
    log(f"bias {fitted.bias:.3f}; fitted in {time.perf_counter() - started:.1f} s")
    return FitResult(
        fitted, tagger, labelled, cv_results, chosen, heads=heads, chip_order=chip_order
    )


def save(result: FitResult, out: Path) -> Path:
    """Write the scorer and, next to it, the labelled papers its kNN reads, the heads fitted
    on them and the chip-order model (an old heads or chip-order file is removed when the fit
    made none: it belongs to other labels). A refined-stage fit writes the contextual vectors
    of the labelled papers instead of the papers, which it shares with the fast stage's fit on
    the same labels."""
    result.scorer.save(out)
    tagger = result.tagger
    if tagger.context is not None:
        target = Path(out).parent / CONTEXT_VECTORS_PATH.name
        ids = [p.id for p, _ in result.labelled]
        save_context_vectors(target, ids, tagger.context_of([p for p, _ in result.labelled]),
                             tagger.context.name)  # fmt: skip
        keys, vectors = tagger.topic_context_vectors()  # the topics' texts, encoded at start
        save_context_vectors(Path(out).parent / TOPIC_VECTORS_PATH.name, keys, vectors,
                             tagger.context.name)  # fmt: skip
    else:
        target = Path(out).parent / LABELLED_FILE
        write_labelled(target, result.labelled, tagger)
    for model, name in ((result.heads, HEADS_FILE), (result.chip_order, CHIP_ORDER_FILE)):
        path = Path(out).parent / name
        if model is not None:
            model.save(path)
        else:
            path.unlink(missing_ok=True)
    return target


def _fit_heads(tagger: Tagger, data: _Training, opts: FitOptions, log) -> TopicHeads:
    """Heads on every training paper, each paper's own features from heads of the other folds."""
    started = time.perf_counter()
    heads = heads_out_of_fold(tagger, data.papers, data.y, opts.folds, weak=data.weak)
    weak = f" and {len(data.weak[0])} weakly labelled" if data.weak else ""
    log(
        f"heads: {len(heads.slugs)} topics with >= {MIN_POSITIVES} labelled papers{weak}, "
        f"{len(heads.lexicon.terms)} terms; fitted out of fold and on all in "
        f"{time.perf_counter() - started:.0f} s"
    )
    return heads


def _docs(papers: list[PaperInput]) -> list[list[str]]:
    return [
        paper_terms(clean(p.title, MAX_TITLE_CHARS), clean(p.abstract, MAX_ABSTRACT_CHARS))
        for p in papers
    ]


def heads_out_of_fold(
    tagger: Tagger,
    papers: list[PaperInput],
    y: np.ndarray,
    folds: int,
    heads=None,
    weak: tuple[list[PaperInput], np.ndarray] | None = None,
) -> TopicHeads:
    """Give ``tagger`` heads for scoring the training papers honestly: ``heads`` (default: fitted
    on all of ``papers``, labels ``y`` (N, T) with ancestors, plus the ``weak`` papers and
    labels) for any other paper, and for each training paper the values of heads fitted on the
    other folds (by :func:`fold_of`, the folds of the cross-validation; the weak papers join
    every fold), as the kNN vote leaves a paper out. Returns the heads."""
    docs, vecs = _docs(papers), tagger.joined_vectors(papers)
    slugs = [t.slug for t in tagger.topics]
    fold = np.array([fold_of(p.id, folds) for p in papers])
    extra = None
    if weak and weak[0]:
        extra = (_docs(weak[0]), tagger.joined_vectors(weak[0]), weak[1])
    held_values, held_known = cross_fit_heads(docs, vecs, y, slugs, fold, extra=extra)
    if heads is None:
        all_docs, all_vecs, all_y = docs, vecs, y
        if extra is not None:
            all_docs = docs + extra[0]
            all_vecs, all_y = np.vstack([vecs, extra[1]]), np.vstack([y, extra[2]])
        heads = fit_heads(all_docs, all_vecs, all_y, slugs)
    tagger.set_heads(heads, held_out=([p.id for p in papers], held_values, held_known))
    return heads


def _base_scorer(opts: FitOptions) -> ScorerParams:
    base = ScorerParams.load(opts.base)
    cands = {**base.candidates, "knn_k": max(0, opts.knn_k)}
    cands["top_k_head"] = opts.top_k_head if opts.heads and opts.knn_k > 0 else 0
    if opts.top_k:
        cands["top_k"] = opts.top_k
    if not 0.0 <= opts.context_weight < 1.0:
        raise ValueError("--context-weight must be at least 0 and below 1")
    embedding = dict(base.embedding)
    if opts.context_weight > 0:
        embedding["context_weight"] = opts.context_weight
        cands["top_k_context"] = max(0, opts.top_k_context)
    return replace(base, candidates=cands, embedding=embedding)


def _training_data(taxonomy, opts: FitOptions, log) -> _Training:
    train = load_set("train")
    gold_ids = {p["id"] for p in load_set("gold").papers}
    check_training_papers(train.papers, gold_ids)
    if opts.limit:
        train.papers = train.papers[: opts.limit]
    gold, acceptable, unknown = train.gold({t.slug: t.parent for t in taxonomy.topics})
    if unknown:
        log(f"WARNING: label slugs not in the taxonomy, ignored: {sorted(set(unknown))}")
    papers = [PaperInput.coerce(p) for p in train.papers]
    pos = {t.slug: j for j, t in enumerate(taxonomy.topics)}
    y = np.zeros((len(papers), len(pos)), dtype=bool)
    for i, g in enumerate(gold):
        y[i, [pos[s] for s in g]] = True
    announced = sorted(str(p.get("announced", ""))[:10] for p in train.papers)
    weak: tuple[list[PaperInput], np.ndarray] | None = None
    weak_files: list[str] = []
    if opts.heads and opts.weak:
        weak, weak_files = weak_set(taxonomy.topics, {p.id for p in papers} | gold_ids)
        if opts.limit:
            weak = (weak[0][: opts.limit], weak[1][: opts.limit])
    return _Training(
        papers=papers,
        labels=[train.labels[p.id].topics for p in papers],
        verdicts=[
            (label.topics, label.acceptable, label.rejected)
            for label in (train.labels[p.id] for p in papers)
        ],
        gold=gold,
        acceptable=acceptable,
        y=y,
        label_files=train.label_files,
        announced=(announced[0], announced[-1]),
        weak=weak,
        weak_files=weak_files,
    )


def weak_set(topics: list, judged: set[str]) -> tuple[tuple[list[PaperInput], np.ndarray], list]:
    """The shipped weak labels on ``topics``' columns, without the ``judged`` papers (training
    and gold), and the files they came from."""
    rows, files = load_weak()
    parents = {t.slug: t.parent for t in topics}
    return weak_training(rows, topics, parents, judged), files


def _cross_validate(tagger, base, data: _Training, opts: FitOptions, *, knn: bool, log) -> list:
    variants = [(opts.acceptable, opts.l2)]
    if opts.search:
        variants = [(m, l2) for m in ACCEPTABLE_MODES for l2 in L2_GRID]
    labels = data.labels if knn else [[]] * len(data.papers)
    folds = FoldData(tagger, data.papers, labels, opts.folds)
    results = []
    for mode, l2 in variants:
        cv = evaluate_variant(
            tagger, base, data.papers, folds, data.gold, data.acceptable, mode, data.y,
            l2=l2, top=opts.calibrate_top, trees=opts.trees,
        )  # fmt: skip
        b = cv["best"]
        results.append({"acceptable": mode, "l2": l2, **cv})
        log(
            f"  CV acceptable={mode:<8} l2={l2:<5} threshold {b['threshold']:.2f} "
            f"floor {b['floor']:.2f}: micro-F1 {b['micro_f1']:.3f} (P {b['precision']:.3f} "
            f"R {b['recall']:.3f}), ECE {b['ece']:.3f}, coverage {b['coverage']:.3f}, "
            f"candidate recall@50 {b['candidate_recall_at_50']:.3f}, P@3 {b['p_at_3']:.3f} "
            f"(bound {b['p_at_3_bound']:.3f}; {b['p_at_3_ge3_gold']:.3f} on papers with "
            f">= 3 gold topics)"
        )
    return results


def _choose(cv_results: list[dict]) -> dict:
    """Best micro-F1; within the noise tolerance, the better calibrated."""
    best_f1 = max(r["best"]["micro_f1"] for r in cv_results)
    return min(
        (r for r in cv_results if r["best"]["micro_f1"] >= best_f1 - TOLERANCE),
        key=lambda r: (r["best"]["ece"], -r["best"]["micro_f1"]),
    )


def _fit_info(opts, base, taxonomy, data, labelled, chosen, n_pairs, n_pos, fitted) -> dict:
    """What the scorer file records about how it was made (provenance and out-of-fold figures)."""
    mode, l2, top = chosen["acceptable"], chosen["l2"], opts.calibrate_top
    return {
        "method": (
            (
                "boosted trees (crossval.TREES; the logistic weights are kept for reference) "
                if opts.trees
                else ""
            )
            + "logistic regression (numpy Newton, L2, balanced classes) on all training pairs; "
            f"Platt on out-of-fold scores of each paper's {top or 'all'} best non-area "
            "topics; threshold/floor by out-of-fold micro-F1"
        ),
        "command": f"manage.py fit_tagger --name {opts.name}"
        + (" --search" if opts.search else f" --acceptable {mode} --l2 {l2}")
        + f" --folds {opts.folds} --calibrate-top {top}"
        + (f" --top-k {opts.top_k}" if opts.top_k else "")
        + f" --knn-k {base.candidates['knn_k']}"
        + (" --weak" if data.weak else "")
        + (f" --context-weight {opts.context_weight}" if opts.context_weight > 0 else "")
        + (f" --top-k-context {opts.top_k_context}" if opts.context_weight > 0 else "")
        + (" --trees" if opts.trees else ""),
        "data": {
            "set": "train",
            "label_files": data.label_files,
            "labels_sha256": label_digest(data.label_files),
            "papers": len(data.papers),
            "announced": list(data.announced),
            "taxonomy_version": taxonomy.version,
            "topics": len(taxonomy.topics),
        },
        "weak": {  # the heads' extra papers (training/weak.py, --weak)
            "files": data.weak_files,
            "sha256": label_digest(data.weak_files) if data.weak_files else "",
            "papers": len(data.weak[0]) if data.weak else 0,
        },
        "labelled_papers": {
            "file": LABELLED_FILE,
            "papers": len(labelled),
            "sha256": labelled_digest(labelled),
            "knn_k": base.candidates["knn_k"],
        },
        "pairs": n_pairs,
        "pairs_positive": n_pos,
        "acceptable": mode,
        "l2": l2,
        "kept_from_base": fitted.fit.get("kept_from_base", []),
        "cv_folds": opts.folds,
        "cv": rounded(chosen["best"]),
    }


# --- the labelled papers (the kNN memory) and their digests --------------------------------------
def label_digest(names: list[str]) -> str:
    """sha256 (first 16 hex digits) of the label files' bytes: which labels a scorer saw."""
    digest = hashlib.sha256()
    for name in names:
        digest.update((EVAL_DIR / name).read_bytes())
    return digest.hexdigest()[:16]


def labelled_rows(labelled, tagger=None) -> list[dict]:
    """JSON rows of the labelled papers; with ``tagger``, each with its cached vector (float16,
    base64) and the fingerprint of the embedding pipeline it is valid for, and the topics whose
    phrases it uses (``named``) with the fingerprint of the phrase index (``phrases``)."""
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
        fingerprint = tagger.embedding_fingerprint()
        vecs = tagger.embed([p for p, _ in labelled])
        named = phrase_topics(tagger, [p for p, _ in labelled])
        for row, vec, topics in zip(rows, vecs, named, strict=True):
            row["embedding"] = fingerprint
            row["vec"] = encode_vector(vec)
            row["phrases"] = tagger.matcher.fingerprint
            row["named"] = [tagger.topics[j].slug for j in topics]
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
