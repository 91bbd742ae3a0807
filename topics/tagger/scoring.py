"""The shared (paper, topic) scorer: logistic regression over label-agnostic features + Platt.

``p = sigmoid(a * (w . x + b) + c)``; a scorer with ``trees`` (the refined stage's, since
``fit-18r``) replaces ``w . x + b`` by the sum of its boosted trees over the same features, which
can weigh one feature by another (a kNN vote counts for more where a head agrees). Weights, Platt
parameters and the decision settings live in topics/tagger/model/scorer.json (refitted by
``manage.py fit_tagger``; the trees next to it).
"""

from __future__ import annotations

import json
import math
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from .features import FEATURES
from .trees import BoostedTrees

SCORER_PATH = Path(__file__).resolve().parent / "model" / "scorer.json"
TREES_FILE = "scorer_trees.npz"  # next to the scorer.json that names it

DEFAULT_SELECTION = {
    "threshold": 0.5,  # calibrated score a tag needs
    "floor": 0.2,  # fill-up tags (to reach min_tags) need at least this
    "min_tags": 3,  # counted with ancestors
    "max_specific": 7,  # most specific tags (leaves of the selected tree) kept at most
    "max_tags": 12,  # all tags, ancestors included
}
DEFAULT_CANDIDATES = {"top_k": 25, "top_k_title": 10, "top_k_examples": 10}
DEFAULT_EMBEDDING = {"title_weight": 0.3}
DEFAULT_ROCCHIO = {"beta": 1.0, "gamma": 0.5, "shrink": 2.0}


@dataclass(frozen=True)
class ScorerParams:
    weights: Mapping[str, float]
    bias: float
    platt: tuple[float, float] = (1.0, 0.0)
    version: str = "hand-1"
    selection: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_SELECTION))
    candidates: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_CANDIDATES))
    embedding: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_EMBEDDING))
    rocchio: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_ROCCHIO))
    fit: Mapping[str, Any] = field(default_factory=dict)  # how/when it was fitted, metrics
    # Weights, Platt and decision settings for a tagger without labelled papers (no kNN memory:
    # a custom taxonomy, or none shipped), fitted on the same data without the kNN features.
    fallback: ScorerParams | None = None
    # Boosted trees over FEATURES that give the linear score instead of the weights (saved as
    # TREES_FILE next to the scorer); None: the logistic weights.
    trees: BoostedTrees | None = field(default=None, compare=False, repr=False)

    def active(self, has_neighbours: bool) -> ScorerParams:
        """The parameters to score with: the fallback when there are no labelled papers."""
        if not has_neighbours and self.fallback is not None:
            return self.fallback
        return self

    def weight_vector(self) -> np.ndarray:
        return np.array([float(self.weights.get(f, 0.0)) for f in FEATURES], dtype=np.float32)

    def to_dict(self) -> dict[str, Any]:
        out = {
            "version": self.version,
            "features": {f: round(float(self.weights.get(f, 0.0)), 6) for f in FEATURES},
            "bias": round(float(self.bias), 6),
            "platt": [round(float(x), 6) for x in self.platt],
            "selection": dict(self.selection),
            "candidates": dict(self.candidates),
            "embedding": dict(self.embedding),
            "rocchio": dict(self.rocchio),
            "fit": dict(self.fit),
        }
        if self.trees is not None:
            out["trees"] = TREES_FILE
        if self.fallback is not None:
            out["fallback"] = {
                k: v
                for k, v in self.fallback.to_dict().items()
                if k not in ("candidates", "embedding", "rocchio")
            }
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ScorerParams:
        unknown = set(data.get("features", {})) - set(FEATURES)
        if unknown:
            raise ValueError(f"scorer: unknown feature(s) {sorted(unknown)}")
        fallback = data.get("fallback")
        if fallback is not None:
            shared = {k: data[k] for k in ("candidates", "embedding", "rocchio") if k in data}
            fallback = cls.from_dict({**fallback, **shared})
        return cls(
            fallback=fallback,
            # Every feature, 0 for one the file predates (a scorer fitted before it existed).
            weights={f: float(data.get("features", {}).get(f, 0.0)) for f in FEATURES},
            bias=float(data.get("bias", 0.0)),
            platt=tuple(float(x) for x in data.get("platt", (1.0, 0.0))),  # type: ignore[arg-type]
            version=str(data.get("version", "unversioned")),
            selection={**DEFAULT_SELECTION, **data.get("selection", {})},
            candidates={**DEFAULT_CANDIDATES, **data.get("candidates", {})},
            embedding={**DEFAULT_EMBEDDING, **data.get("embedding", {})},
            rocchio={**DEFAULT_ROCCHIO, **data.get("rocchio", {})},
            fit=dict(data.get("fit", {})),
        )

    @classmethod
    def load(cls, path: str | Path | None = None) -> ScorerParams:
        """The scorer at ``path`` (default: the fast stage's), with the trees it names."""
        path = Path(path) if path is not None else SCORER_PATH
        data = json.loads(path.read_text(encoding="utf-8"))
        params = cls.from_dict(data)
        if data.get("trees"):
            trees = BoostedTrees.read(path.parent / str(data["trees"]), FEATURES)
            if trees is None:
                raise ValueError(f"scorer {params.version}: its trees {data['trees']} are missing")
            params = replace(params, trees=trees)
        return params

    def save(self, path: str | Path | None = None) -> None:
        """Write the scorer (and its trees next to it, or remove stale ones)."""
        path = Path(path) if path is not None else SCORER_PATH
        path.write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")
        if self.trees is not None:
            self.trees.save(path.parent / TREES_FILE)
        else:
            (path.parent / TREES_FILE).unlink(missing_ok=True)


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # overflow-free


def _newton_logistic(
    x: np.ndarray, y: np.ndarray, sample_weight: np.ndarray, l2: np.ndarray, iters: int = 50
) -> np.ndarray:
    """Weighted L2-regularised logistic regression by Newton's method; x has a bias column."""
    beta = np.zeros(x.shape[1])
    for _ in range(iters):
        p = sigmoid(x @ beta)
        grad = x.T @ (sample_weight * (p - y)) + l2 * beta
        hess = (x * (sample_weight * p * (1 - p))[:, None]).T @ x + np.diag(l2 + 1e-9)
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return beta


def fit_platt(z: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Platt scaling ``sigmoid(a*z + c)`` with Platt's smoothed targets."""
    y = np.asarray(y, dtype=np.float64)
    n_pos, n_neg = y.sum(), len(y) - y.sum()
    if n_pos == 0 or n_neg == 0:
        return 1.0, 0.0
    t = np.where(y > 0, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
    x = np.column_stack([np.asarray(z, dtype=np.float64), np.ones(len(z))])
    a, c = _newton_logistic(x, t, np.ones(len(z)), np.array([1e-6, 0.0]))
    return float(a), float(c)


def expected_calibration_error(p: np.ndarray, y: np.ndarray, bins: int = 15) -> float:
    p, y = np.asarray(p, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if not len(p):
        return 0.0
    idx = np.minimum((p * bins).astype(int), bins - 1)
    err = 0.0
    for b in range(bins):
        m = idx == b
        if m.any():
            err += m.mean() * abs(p[m].mean() - y[m].mean())
    return float(err)


def _log_loss(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def pair_arrays(
    pairs: Iterable[Sequence[Any]],
) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray]:
    """Judged pairs (see :func:`fit_scorer`) as arrays: features (rows in :data:`FEATURES`
    order), labels 1/0, groups (a pair's position where it has none) and weights (default 1)."""
    rows: list[list[float]] = []
    labels: list[float] = []
    groups: list[str] = []
    weights: list[float] = []
    for item in pairs:
        feats, label = item[0], item[1]
        group = item[2] if len(item) > 2 else len(rows)
        rows.append([float(feats.get(f, 0.0)) for f in FEATURES])
        labels.append(1.0 if label else 0.0)
        groups.append(str(group))
        weights.append(float(item[3]) if len(item) > 3 else 1.0)
    x = np.asarray(rows, dtype=np.float64).reshape(len(rows), len(FEATURES))
    return x, np.asarray(labels), groups, np.asarray(weights)


def fit_scorer(
    pairs: Iterable[Sequence[Any]],
    *,
    base: ScorerParams | None = None,
    l2: float = 1.0,
    calibration_fraction: float = 0.3,
    version: str | None = None,
) -> ScorerParams:
    """Refit the scorer from judged pairs: ``(features, label)``, ``(features, label, group)`` or
    ``(features, label, group, weight)``.

    ``features`` is a mapping feature name -> value (``Tagger.pair_features`` gives them), label is
    1 (correct) or 0 (wrong); ``group`` (e.g. the paper id) keeps a paper's pairs on one side of
    the split; ``weight`` (default 1) scales the pair in the logistic (ranking) fit only: weight 0
    leaves a pair out of the weights but keeps it, with its label, in the Platt calibration (e.g.
    a merely acceptable topic: not taught as right or wrong, counted as not correct when the
    scores are calibrated to strict correctness). The logistic weights are fitted on ~70% of the
    groups (standardised features, L2, classes balanced), Platt scaling on the other ~30%; the
    decision settings are kept from ``base``.

    A feature that is 0 in every pair (a signal the data cannot show, e.g. ``ex_sim`` when no
    example papers or feedback exist yet) is not fitted to 0: it keeps ``base``'s effect on the
    final logit (``w = w_base * a_base / a``), so feedback and priors keep working after a refit.
    """
    x, y, groups, pair_w = pair_arrays(pairs)
    if not len(x):
        raise ValueError("fit_scorer: no pairs")
    if np.any(pair_w < 0):
        raise ValueError("fit_scorer: weights must be >= 0")
    if y.min() == y.max():
        raise ValueError("fit_scorer: need both positive and negative pairs")
    in_calib = np.array(
        [(zlib.crc32(g.encode()) % 1000) / 1000 < calibration_fraction for g in groups]
    )
    calibrated_apart = in_calib.sum() >= 20 and (~in_calib).sum() >= 20
    if calibrated_apart and len(set(y[in_calib])) == 2 and len(set(y[~in_calib])) == 2:
        train, calib = ~in_calib, in_calib
    else:  # too little data to hold some out: calibrate in-sample
        train = calib = np.ones(len(y), dtype=bool)

    mean = x[train].mean(axis=0)
    std = x[train].std(axis=0)
    std[std < 1e-9] = 1.0
    xs = np.column_stack([(x - mean) / std, np.ones(len(y))])
    # Balance classes so that the intercept does not just learn the base rate of judged pairs.
    fit_w = pair_w[train]
    w_pos = float(np.sum(fit_w * y[train]))
    w_neg = float(np.sum(fit_w * (1 - y[train])))
    if w_pos <= 0 or w_neg <= 0:
        raise ValueError("fit_scorer: need both positive and negative pairs with weight > 0")
    sw = fit_w * np.where(y[train] > 0, 0.5 / w_pos, 0.5 / w_neg) * float(fit_w.sum())
    penalty = np.r_[np.full(x.shape[1], l2), 0.0]
    beta = _newton_logistic(xs[train], y[train], sw, penalty)
    w = beta[:-1] / std
    b = float(beta[-1] - np.sum(beta[:-1] * mean / std))
    z = x @ w + b
    a, c = fit_platt(z[calib], y[calib])
    p = sigmoid(a * z + c)
    base = base or ScorerParams.load()
    absent = [f for k, f in enumerate(FEATURES) if not np.any(x[:, k])]
    if absent and abs(a) > 1e-6:  # keep the base's effect of signals the data does not show
        base_w = base.weight_vector()
        for f in absent:
            k = FEATURES.index(f)
            w[k] = float(base_w[k]) * float(base.platt[0]) / a
    metrics = {
        "pairs": len(y),
        "positives": int(y.sum()),
        "groups": len(set(groups)),
        "held_out_calibration": bool(calibrated_apart and train is not calib),
        "log_loss_calibration": round(_log_loss(p[calib], y[calib]), 4),
        "ece_calibration": round(expected_calibration_error(p[calib], y[calib]), 4),
        "l2": l2,
        "kept_from_base": absent,
    }
    return replace(
        base,
        weights={f: float(v) for f, v in zip(FEATURES, w, strict=True)},
        bias=b,
        platt=(a, c),
        version=version or f"fit-{len(y)}-{zlib.crc32(np.asarray(w).tobytes()) & 0xFFFF:04x}",
        fit=metrics,
    )


def logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))
