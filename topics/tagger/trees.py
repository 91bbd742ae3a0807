"""Gradient-boosted trees as flat numpy arrays: exported from a fitted scikit-learn
``HistGradientBoostingClassifier``, saved as one ``.npz`` with the names of the features its
columns are (and, as JSON, how it was made), scored without scikit-learn's estimator objects.

Two models of the tagger are such trees: the chip-order model (:mod:`.chip_order`) and the
refined stage's scorer (``scoring.ScorerParams.trees``). Scoring needs only numpy (scikit-learn's
compiled tree walker where its private interface is there, thirty times faster); fitting needs
scikit-learn.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Self

import numpy as np


@dataclass
class BoostedTrees:
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
    features: tuple[str, ...]
    info: dict = field(default_factory=dict)

    def predict(self, x: np.ndarray) -> np.ndarray:
        """P(positive) per row of ``x`` (columns in :attr:`features` order)."""
        return 1.0 / (1.0 + np.exp(-self.raw(x)))

    def raw(self, x: np.ndarray) -> np.ndarray:
        """The summed trees (a logit) per row of ``x`` (columns in :attr:`features` order)."""
        x = np.ascontiguousarray(x, dtype=np.float64)
        return self._raw_compiled(x) if self._compiled is not None else self._raw_numpy(x)

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
    def from_sklearn(cls, model, features: Sequence[str], info: dict | None = None) -> Self:
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
            features=tuple(features),
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
    def read(cls, path: str | Path, features: Sequence[str]) -> Self | None:
        """The trees saved at ``path``, reading rows in ``features`` order; None when there is no
        file or the trees use a feature not in ``features`` (one since removed). Trees saved
        before features were added read their own columns by name."""
        path = Path(path)
        if not path.is_file():
            return None
        features = tuple(features)
        with np.load(path) as data:
            own = tuple(str(data["features"]).split("\n"))
            if not set(own) <= set(features):
                return None
            column = np.array([features.index(f) for f in own], dtype=np.int64)
            feature = np.asarray(data["feature"])
            return cls(
                feature=np.where(feature >= 0, column[np.maximum(feature, 0)], -1).astype(
                    feature.dtype
                ),
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
