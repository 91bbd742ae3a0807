"""Which chip comes first (issue 13, item 1): a small gradient-boosted model that orders a paper's
chips by how likely each is right, given the chips beside it.

The scorer decides *which* topics a paper gets, pair by pair over every candidate; the chips are
then its most specific selected topics. Ordered by the scorer's own score, the first chip was
right for 75% of the training papers, while one of their chips was right for 89%: the scorer is
fitted on all candidates, most of them easy negatives, and weighs its features the same for every
topic. This model sees only the chips of each paper (the hard cases), with the scorer's features,
its score, the chip's place and gap to the best chip, its depth, the number of chips and whether
a phrase of the topic occurs, and can use interactions between them. It only reorders: the set
of chips, their scores and everything else stay the scorer's.

Fitted by ``topics.tagger.training.chip_order`` on the labelled training papers (each paper's
kNN vote leaves it out and its heads are those of the other folds, as in the scorer's fit);
shipped as ``model/chip_order.npz``: the trees as flat arrays and, as JSON, how it was made and
its out-of-fold figures. Scoring needs only numpy; fitting needs scikit-learn.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from .features import FEATURES

CHIP_ORDER_FILE = "chip_order.npz"
CHIP_ORDER_PATH = Path(__file__).resolve().parent / "model" / CHIP_ORDER_FILE
# The scorer's features of the (paper, topic) pair, then what only a chip list knows.
CHIP_FEATURES = (*FEATURES, "score", "position", "score_gap", "depth", "chips", "phrase")


def chip_matrix(
    values: Mapping[str, np.ndarray],
    i: int,
    chips: Sequence[int],
    own: np.ndarray,
    depth: np.ndarray,
    phrased: set[int],
) -> np.ndarray:
    """(len(chips), len(CHIP_FEATURES)) rows for paper ``i``'s chips (topic columns, in score
    order): ``values`` the batch's feature arrays, ``own`` its (N, T) scores, ``phrased`` the
    topics with a phrase hit in the paper."""
    cols = np.asarray(chips, dtype=np.intp)
    scores = own[i, cols].astype(np.float64)
    out = np.empty((len(cols), len(CHIP_FEATURES)), dtype=np.float64)
    for k, f in enumerate(FEATURES):
        out[:, k] = values[f][i, cols]
    n = len(FEATURES)
    out[:, n] = scores
    out[:, n + 1] = np.arange(len(cols))
    out[:, n + 2] = scores - scores.max()
    out[:, n + 3] = depth[cols]
    out[:, n + 4] = len(cols)
    out[:, n + 5] = [float(j in phrased) for j in chips]
    return out


@dataclass
class ChipOrder:
    """Boosted trees as flat arrays: ``tree_start[t]`` is the root of tree ``t`` in the node
    arrays; a node splits on ``feature`` at ``threshold`` (``x <= threshold`` goes ``left``, a
    missing value goes where ``missing_left`` says), a leaf (``feature`` -1) adds ``value``."""

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    missing_left: np.ndarray
    value: np.ndarray
    tree_start: np.ndarray
    baseline: float
    features: tuple[str, ...] = CHIP_FEATURES
    info: dict = field(default_factory=dict)

    def predict(self, x: np.ndarray) -> np.ndarray:
        """P(right) per row of ``x`` (rows in :data:`CHIP_FEATURES` order)."""
        x = np.ascontiguousarray(x, dtype=np.float64)
        raw = self._raw_compiled(x) if self._compiled is not None else self._raw_numpy(x)
        return 1.0 / (1.0 + np.exp(-raw))

    @cached_property
    def _compiled(self):
        """The trees as scikit-learn's compiled tree walker reads them (a thirtieth of the
        numpy walk's time), or None where that private interface is not there: then
        :meth:`_raw_numpy` walks them, to the same values."""
        try:
            from sklearn.ensemble._hist_gradient_boosting._predictor import (
                _predict_from_raw_data,
            )
            from sklearn.ensemble._hist_gradient_boosting.common import (
                PREDICTOR_RECORD_DTYPE,
                X_BITSET_INNER_DTYPE,
            )
        except ImportError:
            return None
        trees = []
        ends = [*self.tree_start[1:].tolist(), len(self.feature)]
        for start, end in zip(self.tree_start.tolist(), ends, strict=True):
            part = slice(start, end)
            leaf = self.feature[part] < 0
            nodes = np.zeros(end - start, dtype=PREDICTOR_RECORD_DTYPE)
            nodes["is_leaf"] = leaf
            nodes["value"] = self.value[part]
            nodes["feature_idx"] = np.where(leaf, 0, self.feature[part])
            nodes["num_threshold"] = self.threshold[part]
            nodes["missing_go_to_left"] = self.missing_left[part]
            nodes["left"] = np.where(leaf, 0, self.left[part] - start)
            nodes["right"] = np.where(leaf, 0, self.right[part] - start)
            trees.append(nodes)
        bitsets = np.zeros((0, 8), dtype=X_BITSET_INNER_DTYPE)
        f_idx_map = np.zeros(len(self.features), dtype=np.uint32)
        return _predict_from_raw_data, trees, bitsets, f_idx_map

    def _raw_compiled(self, x: np.ndarray) -> np.ndarray:
        walk, trees, bitsets, f_idx_map = self._compiled
        raw = np.full(len(x), self.baseline)
        out = np.empty(len(x), dtype=np.float64)
        for nodes in trees:
            walk(nodes, x, bitsets, bitsets, f_idx_map, 1, out)
            raw += out
        return raw

    def _raw_numpy(self, x: np.ndarray) -> np.ndarray:
        raw = np.full(len(x), self.baseline)
        if not len(x):
            return raw
        rows = np.arange(len(x))
        for root in self.tree_start:  # each tree walked by all rows at once, level by level
            node = np.full(len(x), root, dtype=np.intp)
            while True:
                f = self.feature[node]
                inner = f >= 0
                if not inner.any():
                    break
                v = x[rows, np.where(inner, f, 0)]
                go_left = np.where(np.isnan(v), self.missing_left[node], v <= self.threshold[node])
                node = np.where(inner, np.where(go_left, self.left[node], self.right[node]), node)
            raw += self.value[node]
        return raw

    @classmethod
    def from_sklearn(cls, model, info: dict | None = None) -> ChipOrder:
        """From a fitted ``HistGradientBoostingClassifier`` (binary, numeric features)."""
        parts, starts, offset = [], [], 0
        for (predictor,) in model._predictors:  # one tree per boosting round (binary)
            nodes = predictor.nodes
            starts.append(offset)
            parts.append(nodes)
            offset += len(nodes)
        nodes = np.concatenate(parts)
        shift = np.repeat(np.asarray(starts), [len(p) for p in parts])
        leaf = nodes["is_leaf"].astype(bool)
        return cls(
            feature=np.where(leaf, -1, nodes["feature_idx"]).astype(np.int32),
            threshold=nodes["num_threshold"].astype(np.float64),
            left=(nodes["left"] + shift).astype(np.int32),
            right=(nodes["right"] + shift).astype(np.int32),
            missing_left=nodes["missing_go_to_left"].astype(bool),
            value=np.where(leaf, nodes["value"], 0.0).astype(np.float64),
            tree_start=np.asarray(starts, dtype=np.int32),
            baseline=float(np.ravel(model._baseline_prediction)[0]),
            info=dict(info or {}),
        )

    def save(self, path: Path) -> None:
        with open(path, "wb") as handle:  # np.savez adds no timestamp: same model, same bytes
            np.savez_compressed(
                handle,
                feature=self.feature,
                threshold=self.threshold,
                left=self.left,
                right=self.right,
                missing_left=self.missing_left,
                value=self.value,
                tree_start=self.tree_start,
                baseline=np.float64(self.baseline),
                features=np.array("\n".join(self.features)),
                info=np.array(json.dumps(self.info, sort_keys=True)),
            )

    @classmethod
    def load(cls, path: str | Path | None = None) -> ChipOrder | None:
        """The model at ``path`` (default: the shipped one); None when there is none or it was
        made for other features (then chips keep the scorer's order)."""
        path = Path(path) if path is not None else CHIP_ORDER_PATH
        if not path.is_file():
            return None
        with np.load(path) as data:
            features = tuple(str(data["features"]).split("\n"))
            if features != CHIP_FEATURES:
                return None
            return cls(
                feature=data["feature"],
                threshold=data["threshold"],
                left=data["left"],
                right=data["right"],
                missing_left=data["missing_left"],
                value=data["value"],
                tree_start=data["tree_start"],
                baseline=float(data["baseline"]),
                features=features,
                info=json.loads(str(data["info"])),
            )
