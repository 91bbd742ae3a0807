"""The tagger's two memories of papers (no Django): per-topic example and rejection papers
(what feedback teaches), and the labelled papers its kNN votes come from."""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

COUNT_FOLDS = 5  # the folds of fit_tagger (FitOptions.folds)


def fold_of(paper_id: str, folds: int) -> int:
    """The cross-validation fold of a labelled paper (by its id, so stable across runs)."""
    return zlib.crc32(paper_id.encode()) % folds


def top_k_per_row(m: np.ndarray, k: int) -> np.ndarray:
    """(N, k) column indices of each row's ``k`` largest values, in no particular order.
    Partitioned from the top end: negating the matrix to partition from the bottom copied it
    and made the kNN query's partition twice as slow (72 against 39 ms for 256 papers against
    15,902 labelled ones)."""
    width = m.shape[1]
    return np.argpartition(m, width - k, axis=1)[:, width - k :]


def normalize_rows(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return np.divide(x, norms, out=np.zeros_like(x), where=norms > 0)


@dataclass
class ExampleMemory:
    """Example and feedback papers per topic (vectors + ids/titles for evidence)."""

    dim: int
    n_topics: int
    pos: list[list[tuple[np.ndarray, str, str]]] = field(default_factory=list)
    neg: list[list[tuple[np.ndarray, str, str]]] = field(default_factory=list)
    _cache: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.pos = [[] for _ in range(self.n_topics)]
        self.neg = [[] for _ in range(self.n_topics)]

    def add(self, topic: int, vec: np.ndarray, confirm: bool, paper_id: str, title: str) -> None:
        store = self.pos if confirm else self.neg
        other = self.neg if confirm else self.pos
        if paper_id:  # a new judgement replaces an older one of the same paper
            store[topic][:] = [e for e in store[topic] if e[1] != paper_id]
            other[topic][:] = [e for e in other[topic] if e[1] != paper_id]
        store[topic].append((vec, paper_id, title))
        self._cache.clear()

    def count(self, which: str) -> int:
        return sum(len(x) for x in (self.pos if which == "pos" else self.neg))

    def mean(self, topic: int, which: str) -> tuple[np.ndarray | None, int]:
        items = (self.pos if which == "pos" else self.neg)[topic]
        if not items:
            return None, 0
        return np.mean([v for v, _, _ in items], axis=0), len(items)

    def matrix(self, which: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(vectors sorted by topic, topics with examples, reduceat starts)."""
        if which not in self._cache:
            store = self.pos if which == "pos" else self.neg
            vecs, topics = [], []
            for t, items in enumerate(store):
                for v, _, _ in items:
                    vecs.append(v)
                    topics.append(t)
            if vecs:
                mat = np.asarray(vecs, dtype=np.float32)
                tarr = np.asarray(topics)
                uniq, starts = np.unique(tarr, return_index=True)
            else:
                mat = np.zeros((0, self.dim), dtype=np.float32)
                uniq = starts = np.zeros(0, dtype=np.int64)
            self._cache[which] = (mat, uniq, starts)
        return self._cache[which]

    def max_sim(self, vecs: np.ndarray, which: str) -> np.ndarray | None:
        """(N, T) max cosine of each paper to each topic's examples; NaN where a topic has none."""
        mat, uniq, starts = self.matrix(which)
        if not len(mat):
            return None
        sims = vecs @ mat.T
        out = np.full((len(vecs), self.n_topics), np.nan, dtype=np.float32)
        out[:, uniq] = np.maximum.reduceat(sims, starts, axis=1)
        return out

    def nearest(self, vec: np.ndarray, topic: int, k: int = 3) -> list[dict]:
        items = self.pos[topic]
        if not items or not np.any(vec):
            return []
        sims = np.asarray([v for v, _, _ in items]) @ vec
        order = np.argsort(-sims, kind="stable")[:k]
        return [
            {"id": items[i][1], "title": items[i][2], "similarity": round(float(sims[i]), 3)}
            for i in order
            if items[i][1] or items[i][2]
        ]


class NeighbourMemory:
    """Labelled papers (the training set: "nearest already-tagged papers", study 3.3): their
    vectors and topics (ancestors included), queried by cosine for kNN candidates and features.

    A paper never counts as its own neighbour: rows whose id equals the queried paper's id are
    skipped, so the training papers' own features stay honest (leave-one-out).

    The count features (``base_rate``, ``phrase_rate``) of a paper in the memory come from the
    papers of the *other* folds (:func:`fold_of`, the folds of ``fit_tagger``), scaled up to the
    whole memory. Leaving only the paper itself out, as they once did, gave away its labels:
    a topic's count was one lower exactly when the paper carried it, which a linear scorer
    picked up a little (a negative weight on ``base_rate``) and boosted trees learnt outright
    (out-of-fold micro-F1 0.764 that was 0.689 on the gold set, docs/tagging.md)."""

    def __init__(
        self,
        vecs: np.ndarray,
        labels: np.ndarray,
        ids: Sequence[str],
        named: np.ndarray | None = None,
    ):
        self.vecs = np.ascontiguousarray(vecs, dtype=np.float32)
        self.labels = np.ascontiguousarray(labels, dtype=np.float32)  # (M, T) 0/1
        self.ids = [str(i) for i in ids]
        self.row_of = {pid: r for r, pid in enumerate(self.ids) if pid}
        self.counts = self.labels.sum(axis=0)  # (T,) labelled papers per topic
        # (M, T) 0/1: the paper carries the topic and uses one of its phrases (None: unknown).
        self.named = None if named is None else np.asarray(named, dtype=bool) & (self.labels > 0)
        self.named_counts = None if self.named is None else self.named.sum(axis=0)
        # Per fold: the counts without that fold's papers, scaled to the whole memory.
        self.fold = np.asarray([fold_of(pid, COUNT_FOLDS) for pid in self.ids], dtype=np.int64)
        self.counts_out = self._out_of_fold(self.labels)
        self.named_out = None if self.named is None else self._out_of_fold(self.named)

    def __len__(self) -> int:
        return len(self.ids)

    def _out_of_fold(self, marks: np.ndarray) -> np.ndarray:
        """(folds, T): per fold, the column sums of ``marks`` over the other folds' papers,
        scaled by folds / (folds - 1) to the size of the whole memory."""
        whole = marks.sum(axis=0, dtype=np.float32)
        scale = COUNT_FOLDS / (COUNT_FOLDS - 1)
        return np.stack(
            [(whole - marks[self.fold == k].sum(axis=0)) * scale for k in range(COUNT_FOLDS)]
        )

    def rows(self, ids: Sequence[str]) -> list[int | None]:
        """The memory row of each id (None when the paper is not in the memory)."""
        return [self.row_of.get(str(pid)) if pid else None for pid in ids]

    def _counts(self, ids: Sequence[str], whole: np.ndarray, out_of_fold: np.ndarray) -> np.ndarray:
        """(N, T) ``whole`` per paper; for a paper of the memory, its fold's ``out_of_fold``."""
        counts = np.repeat(whole[None, :].astype(np.float32), len(ids), axis=0)
        for i, r in enumerate(self.rows(ids)):
            if r is not None:
                counts[i] = out_of_fold[self.fold[r]]
        return counts

    def base_rate(self, ids: Sequence[str]) -> np.ndarray:
        """(N, T) log(1 + number of labelled papers carrying the topic), for a paper of the
        memory counted on the other folds (see the class): how common a topic is among the
        labelled papers ("topic base rate"). 0 for a topic nobody labelled, which is also the
        value without labelled papers (neutral)."""
        return np.log1p(self._counts(ids, self.counts, self.counts_out)).astype(np.float32)

    def phrase_rate(self, ids: Sequence[str]) -> np.ndarray | None:
        """(N, T) share of the labelled papers carrying a topic that use one of its phrases
        (smoothed towards 1/2: (named + 1) / (carrying + 2)), for a paper of the memory counted
        on the other folds; None when the memory does not know which papers use the phrases."""
        if self.named_counts is None or self.named_out is None:
            return None
        named = self._counts(ids, self.named_counts, self.named_out)
        counts = self._counts(ids, self.counts, self.counts_out)
        return ((named + 1.0) / (counts + 2.0)).astype(np.float32)

    def query(
        self, vecs: np.ndarray, ids: Sequence[str], k: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(vote (N, T), nearest similarity (N, T), neighbour topics (N, T) bool) over each
        paper's ``k`` nearest labelled papers (similarity > 0, the paper itself left out)."""
        n, t = len(vecs), self.labels.shape[1]
        k = min(int(k), len(self))
        if k <= 0 or n == 0:
            zero = np.zeros((n, t), dtype=np.float32)
            return zero, zero.copy(), np.zeros((n, t), dtype=bool)
        sims = vecs @ self.vecs.T
        for i, pid in enumerate(ids):
            r = self.row_of.get(str(pid)) if pid else None
            if r is not None:
                sims[i, r] = -np.inf
        idx = top_k_per_row(sims, k)
        s = np.take_along_axis(sims, idx, axis=1)
        w = np.where(np.isfinite(s), np.maximum(s, 0.0), 0.0).astype(np.float32)  # (N, k)
        vote = np.zeros((n, t), dtype=np.float32)
        near = np.zeros((n, t), dtype=np.float32)
        for c in range(k):  # k passes over (N, T) instead of an (N, k, T) gather
            contrib = self.labels[idx[:, c]] * w[:, c : c + 1]
            vote += contrib
            np.maximum(near, contrib, out=near)
        total = w.sum(axis=1, keepdims=True)
        vote = np.divide(vote, total, out=np.zeros_like(vote), where=total > 0)
        return vote, near, near > 0
