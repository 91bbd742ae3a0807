"""Hierarchy coherence and the decision rule (threshold, fill-up floor, 3..7 most specific).

Coherence: ``score(parent) = max(score(parent), max score(children))`` bottom-up, so a tagged
topic always implies its ancestors (0 violations by construction). Coherent scores decide what is
selected; each tag then carries its own score (engine.py). Selection (study 3.5): every topic at
or above ``threshold``; if fewer than ``min_tags`` chips (most specific non-area tags) pass, fill
up from the best remaining topics whose score is at least ``floor`` (marked low confidence); keep
at most ``max_specific`` most specific tags (the leaves of the selected tree) and at most
``max_tags`` tags in all.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np


class Hierarchy:
    def __init__(self, parent: np.ndarray, depth: np.ndarray):
        self.parent = np.asarray(parent, dtype=np.int64)
        self.depth = np.asarray(depth, dtype=np.int64)
        n = len(self.parent)
        self.children: list[list[int]] = [[] for _ in range(n)]
        for j, p in enumerate(self.parent):
            if p >= 0:
                self.children[p].append(j)
        # Per depth level, deepest first: children sorted by parent, their parents, reduceat starts.
        self.levels = []
        for d in range(int(self.depth.max()) if n else 0, 0, -1):
            kids = np.flatnonzero(self.depth == d)
            kids = kids[np.argsort(self.parent[kids], kind="stable")]
            parents, starts = np.unique(self.parent[kids], return_index=True)
            self.levels.append((kids, parents, starts))
        self._ancestors: list[tuple[int, ...]] = []
        for j in range(n):
            chain = []
            p = self.parent[j]
            while p >= 0:
                chain.append(int(p))
                p = self.parent[p]
            self._ancestors.append(tuple(chain))

    def ancestors(self, j: int) -> tuple[int, ...]:
        """Parent first, area last."""
        return self._ancestors[j]

    def coherent(self, scores: np.ndarray) -> np.ndarray:
        """(N, T) scores with every parent raised to its best child's score."""
        out = scores.copy()
        for kids, parents, starts in self.levels:
            best_child = np.maximum.reduceat(out[:, kids], starts, axis=1)
            out[:, parents] = np.maximum(out[:, parents], best_child)
        return out

    def ancestor_closure(self, mask: np.ndarray) -> np.ndarray:
        """(N, T) bool mask extended with the ancestors of every set topic."""
        out = mask.copy()
        for kids, parents, starts in self.levels:
            any_child = np.logical_or.reduceat(out[:, kids], starts, axis=1)
            out[:, parents] |= any_child
        return out


@dataclass(frozen=True)
class Selected:
    topic: int
    score: float  # coherent (hierarchy-consistent) score
    low_confidence: bool


def select(
    coherent: np.ndarray, hierarchy: Hierarchy, settings: Mapping[str, float]
) -> list[Selected]:
    """Tags of one paper from its coherent scores, best first (ties: deeper topic first)."""
    threshold = float(settings["threshold"])
    floor = float(settings["floor"])
    min_tags = int(settings["min_tags"])
    max_specific = int(settings["max_specific"])
    max_tags = int(settings["max_tags"])

    pool = np.flatnonzero(coherent >= min(floor, threshold))
    if not len(pool):
        return []
    # Best first; on equal scores the deeper topic first (a child before the parent it lifts).
    order = sorted(pool.tolist(), key=lambda j: (-coherent[j], -hierarchy.depth[j], j))
    chosen: dict[int, bool] = {}  # topic -> low confidence
    for j in order:
        if coherent[j] >= threshold:
            chosen[j] = False

    def chips(sel: dict[int, bool]) -> int:
        """Most specific non-area tags: the chips a reader will see (tagger/chips.py)."""
        return sum(
            1
            for j in sel
            if hierarchy.parent[j] >= 0 and not any(c in sel for c in hierarchy.children[j])
        )

    # Fill up to min_tags chips from the floor band: ancestors and areas are not chips, so they
    # do not count (counting them left three papers in four with one or two chips).
    for j in order:
        if chips(chosen) >= min_tags:
            break
        if j in chosen:
            continue
        chosen[j] = True
        for a in hierarchy.ancestors(j):
            chosen.setdefault(a, True)

    def leaves(sel: dict[int, bool]) -> list[int]:
        return [j for j in sel if not any(c in sel for c in hierarchy.children[j])]

    leaf_list = sorted(leaves(chosen), key=lambda j: (-coherent[j], -hierarchy.depth[j], j))
    kept: list[int] = []
    for leaf in leaf_list:
        if len(kept) >= max_specific:
            break
        closure = {leaf, *hierarchy.ancestors(leaf)}
        for k in kept:
            closure.update((k, *hierarchy.ancestors(k)))
        if kept and len(closure) > max_tags:
            continue
        kept.append(leaf)
    final: set[int] = set()
    for leaf in kept:
        final.add(leaf)
        final.update(hierarchy.ancestors(leaf))
    ranked = sorted(final, key=lambda j: (-coherent[j], -hierarchy.depth[j], j))
    return [Selected(j, float(coherent[j]), chosen.get(j, False)) for j in ranked]
