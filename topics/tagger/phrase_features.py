"""Phrase evidence as (paper, topic) features, and how it combines with the other evidence.

Exact hits (an acronym the paper defines counts as its expansion) give the five ``kw_*``
features the scorer has always had; looser hits (:mod:`.loose_match`) give their own features,
so the scorer weighs them by what they are worth instead of as exact phrases. A loose hit in
the abstract counts half as much as one in the title: on the training papers a title hit was
right about twice as often (gapped 0.42 vs 0.24, reordered 0.39 vs 0.20 clear).

Two interaction features keep one kind of evidence from deciding alone, since a logistic model
adds evidence up and cannot express "a keyword, but far from the paper's field" by itself:

- ``kw_area_gap``: the phrase evidence times how far the topic's area is from the paper's best
  area (0 in the best area, -1 four z-units or more behind). "foundation model", a keyword of the
  LLM area, in a vision or forecasting paper scores negative, so a fitted (positive) weight
  discounts a keyword that is unrelated to what the paper is about;
- ``knn_no_phrase``: the nearest labelled papers' vote for a topic none of whose phrases the
  paper uses, even loosely. Static embeddings are lexical: a dropout paper that speaks of graphs
  of subnetworks lies near graph-neural-network papers, so kNN alone voted "Graph Neural
  Networks" at 0.93; this feature lets the scorer learn how much such a vote is worth;
- ``phrase_missing``: the paper uses none of the topic's phrases, weighted by the share of the
  topic's labelled papers that do use one (leave-one-out, smoothed). Absence says much for a
  topic whose papers nearly always name it (federated learning 0.97 of 141 training papers,
  diffusion models 0.94) and little for one they rarely name (0.23 at the first decile).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .keywords import Hit

LOOSE_ABSTRACT_FACTOR = 0.5  # a loose hit in the abstract, relative to one in the title
AREA_GAP_SCALE = 4.0  # z-units behind the best area at which kw_area_gap reaches -1


def phrase_features(hits: Sequence[dict[int, list[Hit]]], t: int) -> dict[str, np.ndarray]:
    """``kw_title``, ``kw_abstract``, ``kw_name``, ``kw_spec``, ``kw_any`` from exact hits and
    ``kw_gapped``, ``kw_reordered`` from loose ones, each (N, T)."""
    n = len(hits)
    names = ("kw_title", "kw_abstract", "kw_name", "kw_spec", "kw_any", "kw_gapped", "kw_reordered")
    out = {f: np.zeros((n, t), dtype=np.float32) for f in names}
    # Collected in lists and written with one fancy-indexed assignment per feature: a numpy
    # element write per (paper, topic) cost more than the loop around it.
    at: list[tuple[int, int]] = []
    title_v, name_v, abs_v, spec_v, any_v = [], [], [], [], []
    loose: dict[str, dict[tuple[int, int], float]] = {"gapped": {}, "reordered": {}}
    for i, per_topic in enumerate(hits):
        for j, hs in per_topic.items():
            n_abs = 0.0
            title = name = spec = best = 0.0
            for h in hs:
                q = h.quality
                if not h.exact:
                    value = q * h.specificity
                    if h.where != "title":
                        value *= LOOSE_ABSTRACT_FACTOR
                    m = loose[h.match]
                    m[i, j] = max(m.get((i, j), 0.0), value)
                    continue
                if h.where == "title":
                    title = max(title, q)
                else:
                    n_abs += q * h.specificity * h.count
                best = max(best, q)
                if h.kind != "keyword":
                    name = max(name, q)
                spec = max(spec, h.specificity * q)
            at.append((i, j))
            title_v.append(title)
            name_v.append(name)
            abs_v.append(min(n_abs, 20.0))
            spec_v.append(spec)
            any_v.append(best)
    if at:
        rows, cols = np.asarray(at, dtype=np.intp).T
        out["kw_title"][rows, cols] = title_v
        out["kw_name"][rows, cols] = name_v
        out["kw_abstract"][rows, cols] = np.log1p(np.asarray(abs_v, dtype=np.float64))
        out["kw_spec"][rows, cols] = spec_v
        out["kw_any"][rows, cols] = any_v
    for match, values in loose.items():
        if values:
            rows, cols = np.asarray(list(values), dtype=np.intp).T
            out[f"kw_{match}"][rows, cols] = list(values.values())
    return out


def combined_features(
    values: dict[str, np.ndarray],
    comb: np.ndarray,
    area_of: np.ndarray,
    areas: np.ndarray,
    phrase_rate: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """``kw_area_gap``, ``knn_no_phrase`` and ``phrase_missing`` (see the module docstring)
    from the phrase features, the combined similarity z-scores ``comb`` (N, T), each topic's
    area index ``area_of`` (T,), the area indices ``areas`` and the share of each topic's
    labelled papers that use its phrases (N, T; None without labelled papers)."""
    evidence = np.maximum.reduce([values["kw_any"], values["kw_gapped"], values["kw_reordered"]])
    if len(areas) and comb.shape[0]:
        best_area = comb[:, areas].max(axis=1, keepdims=True)
        gap = np.clip((comb[:, area_of] - best_area) / AREA_GAP_SCALE, -1.0, 0.0)
    else:
        gap = np.zeros_like(comb)
    missing = np.zeros_like(evidence) if phrase_rate is None else phrase_rate
    return {
        "kw_area_gap": (evidence * gap).astype(np.float32),
        "knn_no_phrase": np.where(evidence > 0, 0.0, values["knn_vote"]).astype(np.float32),
        "phrase_missing": np.where(evidence > 0, 0.0, missing).astype(np.float32),
    }
