"""Average-linkage clustering of unit vectors by cosine (no Django): the clusters a proposal
starts from."""

from __future__ import annotations

import numpy as np


def average_linkage(vectors: np.ndarray, cut: float) -> list[np.ndarray]:
    """Average-linkage agglomerative clustering of unit vectors by cosine similarity: merge the
    two clusters with the highest mean pairwise similarity while it is >= ``cut``. O(n^2)
    memory, about 0.5 s for 2,500 papers. Returns member index arrays (singletons included)."""
    n = len(vectors)
    if n == 0:
        return []
    sim = np.asarray(vectors @ vectors.T, dtype=np.float32)
    np.fill_diagonal(sim, -np.inf)
    size = np.ones(n, dtype=np.float32)
    active = np.ones(n, dtype=bool)
    members: list[list[int]] = [[i] for i in range(n)]
    row_arg = np.argmax(sim, axis=1)
    row_best = sim[np.arange(n), row_arg]
    while True:
        i = int(np.argmax(np.where(active, row_best, -np.inf)))
        if not active[i] or row_best[i] < cut:
            break
        j = int(row_arg[i])
        merged = (size[i] * sim[i] + size[j] * sim[j]) / (size[i] + size[j])
        merged[i] = merged[j] = -np.inf
        sim[i, :] = merged
        sim[:, i] = merged
        sim[j, :] = -np.inf
        sim[:, j] = -np.inf
        active[j] = False
        row_best[j] = -np.inf
        size[i] += size[j]
        members[i].extend(members[j])
        members[j] = []
        stale = active & ((row_arg == i) | (row_arg == j))
        stale[i] = True
        for r in np.flatnonzero(stale):
            row_arg[r] = int(np.argmax(sim[r]))
            row_best[r] = sim[r, row_arg[r]]
        better = active & (merged > row_best)
        better[i] = False
        row_best[better] = merged[better]
        row_arg[better] = i
    return [np.asarray(m) for m, a in zip(members, active, strict=True) if a and m]
