"""Topic-side vectors and per-(paper, topic) features, computed densely for a batch of papers.

Every feature is label-agnostic (it means the same for any topic), so one scorer serves all
topics, including brand-new ones. Similarities are z-scored per topic against the topic's
similarity to ordinary reference papers (shipped with the model), so "4" means "closer than
99.99% of papers" for every topic, whatever the size of the taxonomy; broad topics that are
near everything (hubs) do not win by default.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from .heads import HeadView
from .keywords import Hit
from .memory import (  # noqa: F401 (ExampleMemory, NeighbourMemory, normalize_rows: re-export)
    ExampleMemory,
    NeighbourMemory,
    normalize_rows,
    top_k_per_row,
)
from .phrase_features import combined_features, phrase_features
from .taxonomy import TopicSpec

FEATURES: tuple[str, ...] = (
    "sim_desc",  # z-score of cos(paper, topic prototype = "name: description" + Rocchio)
    "sim_kw",  # z-score of cos(paper, "name; aliases; keywords")
    "sim_title",  # z-score of cos(title, "name; aliases")
    # (z-scores against the topic's similarity to 2,000 ordinary arXiv papers)
    "sim_gap",  # combined similarity minus the paper's best (<= 0)
    "sib_gap",  # combined similarity minus the best sibling's (<= 0; 0 = best of its siblings)
    "parent_sim",  # combined similarity of the parent (of itself for an area): context support
    # (kw_*: exact occurrences of names/aliases/keywords, an acronym the paper defines included)
    "kw_title",  # a name/alias/keyword occurs in the title (its quality: < 1 for common words)
    "kw_abstract",  # log(1 + occurrences in the abstract, weighted by quality x specificity)
    "kw_name",  # the topic's name or an alias (not only a keyword) occurs (its quality)
    "kw_spec",  # best quality x specificity (1 / topics sharing the phrase) of a matched phrase
    "kw_any",  # best quality of any matched phrase (0 = the topic is suggested by similarity only)
    "cat_match",  # overlap of the paper's arXiv categories with the topic's typical ones
    "cat_miss",  # 1 if both have categories and none is shared
    "ex_sim",  # max cos to the topic's example/confirmed papers above 0.3 (0 if none or below)
    "neg_sim",  # max cos to the topic's rejected papers above 0.3 (0 if none or below)
    "prior",  # log-lift of P(topic | primary category) from tagged data (0 if unknown)
    "is_area",  # 1 for an area (root)
    "knn_vote",  # similarity-weighted share of the nearest labelled papers that carry the topic
    "knn_sim",  # cos to the nearest labelled paper carrying the topic, above 0.3 (0 if none)
    "base_rate",  # log(1 + labelled papers carrying the topic); 0 if none or no labelled papers
    "head",  # the topic's supervised head: SVM decision value (heads.py); 0 if it has none
    "head_known",  # 1 if the topic has a head (enough labelled papers), else 0
    # (phrase_features.py: looser phrase matches, and evidence that should not decide alone)
    "kw_gapped",  # a phrase with one extra word inside (quality x specificity; abstract: half)
    "kw_reordered",  # a short phrase's content words in another order, close together (same)
    "kw_area_gap",  # phrase evidence x how far the topic's area is behind the best area (<= 0)
    "knn_no_phrase",  # knn_vote when the paper uses none of the topic's phrases, even loosely
    "phrase_missing",  # no phrase of the topic here, though most of its labelled papers use one
    # (the refined stage only, 0 on the fast path: the same texts through the contextual encoder)
    "ctx_desc",  # z-score of cos(paper, "name: description"), contextual vectors
    "ctx_kw",  # z-score of cos(paper, "name; aliases; keywords"), contextual vectors
    "ctx_gap",  # mean of the two minus the paper's best topic's (<= 0)
)
FEATURE_INDEX = {f: i for i, f in enumerate(FEATURES)}
CONTEXT_FEATURES = ("ctx_desc", "ctx_kw", "ctx_gap")
Z_STD_FLOOR = 0.02
EX_BASELINE = 0.3  # paper-paper cosine reached by only 1% of random pairs (centred vectors)
TOPIC_CAT_WEIGHTS = (1.0, 0.85, 0.7)  # the topic's first, second, later categories
PAPER_CAT_WEIGHTS = (1.0, 0.7)  # the paper's primary, other categories


def zscore_rows(m: np.ndarray) -> np.ndarray:
    mean = m.mean(axis=1, keepdims=True)
    std = np.maximum(m.std(axis=1, keepdims=True), Z_STD_FLOOR)
    return (m - mean) / std


def topic_texts(topic: TopicSpec) -> tuple[str, str, str]:
    """Texts embedded for a topic: "name: description", "name; aliases; keywords" and
    "name; aliases"."""
    desc = f"{topic.name}: {topic.description}" if topic.description else topic.name
    kw = "; ".join([topic.name, *topic.aliases, *topic.keywords])
    name = "; ".join([topic.name, *topic.aliases])
    return desc, kw, name


class TopicIndex:
    """Vectors and lookup tables of the topics, in the order of the given list."""

    def __init__(
        self,
        topics: Sequence[TopicSpec],
        embedder,
        rocchio: Mapping[str, float],
        title_weight: float = 0.3,
    ):
        self.topics = list(topics)
        self.slugs = [t.slug for t in self.topics]
        self.pos = {s: i for i, s in enumerate(self.slugs)}
        n = len(self.topics)
        self.parent = np.array(
            [self.pos[t.parent] if t.parent is not None else -1 for t in self.topics],
            dtype=np.int64,
        )
        # Depth from the parent links (parents come first), not from TopicSpec.depth, so that
        # specs built by hand or from DB rows cannot break the hierarchy maths.
        self.depth = np.zeros(n, dtype=np.int64)
        for j, p in enumerate(self.parent):
            if p >= 0:
                self.depth[j] = self.depth[p] + 1
        self.is_area = (self.parent < 0).astype(np.float32)
        self.parent_or_self = np.where(self.parent >= 0, self.parent, np.arange(n))
        self.areas = np.flatnonzero(self.parent < 0)
        self.area_of = np.arange(n)  # each topic's area (root), parents coming first
        for j, p in enumerate(self.parent):
            if p >= 0:
                self.area_of[j] = self.area_of[p]
        self.rocchio = dict(rocchio)

        texts = [topic_texts(t) for t in self.topics]
        enc = embedder.encode([x for trio in texts for x in trio]) if n else np.zeros((0, 1))
        enc = np.asarray(enc, dtype=np.float32)
        self.dim = int(enc.shape[1]) if n else int(getattr(embedder, "dim", 1))
        self.v_desc = normalize_rows(enc[0::3])
        self.v_kw = normalize_rows(enc[1::3])
        self.v_name = normalize_rows(enc[2::3])
        self.v_proto = self.v_desc.copy()
        self.memory = ExampleMemory(self.dim, n)
        self.neighbours: NeighbourMemory | None = None  # labelled papers for kNN (engine sets it)
        self.heads: HeadView | None = None  # supervised per-topic heads (engine sets them)
        # The refined stage's contextual topic vectors and their column statistics (set_context).
        self.c_desc: np.ndarray | None = None
        self.c_kw: np.ndarray | None = None
        self.col_c_desc: tuple[np.ndarray, np.ndarray] | None = None
        self.col_c_kw: tuple[np.ndarray, np.ndarray] | None = None

        # Column statistics: each topic's similarity to ordinary (reference) papers, so that a
        # similarity is scored against what is usual for that topic, whatever the taxonomy size.
        ref = getattr(embedder, "reference", None)
        self.ref_vec = self.ref_title = None
        if ref is not None and n and ref["body"].shape[1] == self.dim:
            self.ref_title = np.asarray(ref["title"], dtype=np.float32)
            body = np.asarray(ref["body"], dtype=np.float32)
            self.ref_vec = normalize_rows(title_weight * self.ref_title + (1 - title_weight) * body)
        self.col_desc = self._column_stats(self.ref_vec, self.v_proto)
        self.col_kw = self._column_stats(self.ref_vec, self.v_kw)
        self.col_name = self._column_stats(self.ref_title, self.v_name)

        # Sibling groups (areas are siblings of each other).
        order = np.argsort(self.parent, kind="stable")
        self.sib_order = order
        _, self.sib_starts, sib_inverse = np.unique(
            self.parent[order], return_index=True, return_inverse=True
        )
        self.sib_group = np.empty(n, dtype=np.int64)
        self.sib_group[order] = sib_inverse

        # Category weights; a topic without categories inherits its parent's.
        cats: list[tuple[str, ...]] = []
        for i, t in enumerate(self.topics):
            p = self.parent[i]
            cats.append(t.categories or (cats[p] if p >= 0 else ()))
        self.topic_cats = cats
        self.has_cats = np.array([bool(c) for c in cats], dtype=bool)
        self.cat_row: dict[str, int] = {}
        rows: list[np.ndarray] = []
        for i, cs in enumerate(cats):
            for k, c in enumerate(cs):
                if c not in self.cat_row:
                    self.cat_row[c] = len(rows)
                    rows.append(np.zeros(n, dtype=np.float32))
                r = rows[self.cat_row[c]]
                r[i] = max(r[i], TOPIC_CAT_WEIGHTS[min(k, len(TOPIC_CAT_WEIGHTS) - 1)])
        self.cat_w = np.asarray(rows, dtype=np.float32).reshape(len(rows), n)
        self.prior_row: dict[str, int] = {}
        self.prior_lift = np.zeros((0, n), dtype=np.float32)

    def __len__(self) -> int:
        return len(self.topics)

    @staticmethod
    def _column_stats(
        ref: np.ndarray | None, vecs: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray] | None:
        if ref is None:
            return None
        sims = ref @ vecs.T
        return sims.mean(axis=0), np.maximum(sims.std(axis=0), Z_STD_FLOOR)

    def set_context(self, desc: np.ndarray, kw: np.ndarray, reference: np.ndarray | None) -> None:
        """The topics' texts (:func:`topic_texts`) through the refined stage's contextual
        encoder, scored against ``reference``: the same encoder's vectors of ordinary papers."""
        self.c_desc, self.c_kw = normalize_rows(desc), normalize_rows(kw)
        self.col_c_desc = self._column_stats(reference, self.c_desc)
        self.col_c_kw = self._column_stats(reference, self.c_kw)

    def zscore(self, sims: np.ndarray, which: str) -> np.ndarray:
        """Similarities as z-scores against the topic's reference distribution (columns), or
        across topics per paper (rows) when no reference papers are available."""
        stats = {
            "desc": self.col_desc,
            "kw": self.col_kw,
            "name": self.col_name,
            "c_desc": self.col_c_desc,
            "c_kw": self.col_c_kw,
        }[which]
        if stats is None:
            return zscore_rows(sims)
        mean, std = stats
        return (sims - mean) / std

    def set_priors(self, lift_by_category: Mapping[str, Mapping[str, float]]) -> None:
        rows: list[np.ndarray] = []
        self.prior_row = {}
        for cat, per_topic in lift_by_category.items():
            row = np.zeros(len(self.topics), dtype=np.float32)
            for slug, v in per_topic.items():
                if slug in self.pos:
                    row[self.pos[slug]] = float(v)
            self.prior_row[cat] = len(rows)
            rows.append(row)
        self.prior_lift = np.asarray(rows, dtype=np.float32).reshape(len(rows), len(self.topics))

    def update_prototype(self, topic: int) -> None:
        """Rocchio: v = desc + beta*s(n+)*mean(pos) - gamma*s(n-)*mean(neg), s(n) = n/(n+shrink)."""
        beta, gamma, shrink = (self.rocchio[k] for k in ("beta", "gamma", "shrink"))
        v = self.v_desc[topic].astype(np.float32).copy()
        mean_pos, n_pos = self.memory.mean(topic, "pos")
        if mean_pos is not None:
            v += beta * n_pos / (n_pos + shrink) * mean_pos
        mean_neg, n_neg = self.memory.mean(topic, "neg")
        if mean_neg is not None:
            v -= gamma * n_neg / (n_neg + shrink) * mean_neg
        norm = np.linalg.norm(v)
        self.v_proto[topic] = v / norm if norm > 0 else self.v_desc[topic]
        if self.col_desc is not None and self.ref_vec is not None:
            sims = self.ref_vec @ self.v_proto[topic]
            self.col_desc[0][topic] = sims.mean()
            self.col_desc[1][topic] = max(float(sims.std()), Z_STD_FLOOR)


@dataclass
class EncodedBatch:
    vec: np.ndarray  # (N, D) paper vectors (title-weighted)
    title_vec: np.ndarray  # (N, D)
    hits: list[dict[int, list[Hit]]]
    categories: list[tuple[str, ...]]
    usable: np.ndarray  # (N,) bool: some known token or a keyword hit
    ids: list[str] = field(default_factory=list)  # paper ids (to leave a paper out of its kNN)
    head: np.ndarray | None = None  # (N, T) head decision values, None without heads
    head_known: np.ndarray | None = None  # (N, T) bool: the topic has a head
    joined_vec: np.ndarray | None = None  # (N, D') refined stage: kNN and heads read these
    context_vec: np.ndarray | None = None  # (N, 384) refined stage: the contextual vectors
    # The cleaned texts, for what is read of only a few papers (chip_order's lm_unsaid).
    titles: list[str] = field(default_factory=list)
    abstracts: list[str] = field(default_factory=list)


@dataclass
class BatchFeatures:
    values: dict[str, np.ndarray]  # feature -> (N, T)
    cos_desc: np.ndarray  # raw cosines, for evidence
    cos_kw: np.ndarray
    candidates: np.ndarray  # (N, T) bool


def context_features(batch: EncodedBatch, index: TopicIndex) -> dict[str, np.ndarray]:
    """The ``ctx_*`` features of the refined stage; {} (0 everywhere) without contextual vectors."""
    if batch.context_vec is None or index.c_desc is None or index.c_kw is None or not len(index):
        return {}
    z_desc = index.zscore(batch.context_vec @ index.c_desc.T, "c_desc")
    z_kw = index.zscore(batch.context_vec @ index.c_kw.T, "c_kw")
    comb = 0.5 * (z_desc + z_kw)
    return {"ctx_desc": z_desc, "ctx_kw": z_kw, "ctx_gap": comb - comb.max(axis=1, keepdims=True)}


def compute_features(
    batch: EncodedBatch,
    index: TopicIndex,
    candidates_cfg: Mapping[str, int],
) -> BatchFeatures:
    n, t = len(batch.vec), len(index)
    vec, tvec = batch.vec, batch.title_vec
    cos_desc = vec @ index.v_proto.T
    cos_kw = vec @ index.v_kw.T
    z_desc = index.zscore(cos_desc, "desc")
    z_kw = index.zscore(cos_kw, "kw")
    z_title = index.zscore(tvec @ index.v_name.T, "name")
    comb = 0.5 * (z_desc + z_kw)
    sim_gap = comb - comb.max(axis=1, keepdims=True) if t else comb
    sib_max = np.maximum.reduceat(comb[:, index.sib_order], index.sib_starts, axis=1) if t else comb
    sib_gap = comb - sib_max[:, index.sib_group]
    parent_sim = comb[:, index.parent_or_self]

    kw = phrase_features(batch.hits, t)
    ctx = context_features(batch, index)

    cat_match = np.zeros((n, t), dtype=np.float32)
    cat_miss = np.zeros((n, t), dtype=np.float32)
    prior = np.zeros((n, t), dtype=np.float32)
    for i, cats in enumerate(batch.categories):
        if not cats:
            continue
        rows = [
            (index.cat_row[c], PAPER_CAT_WEIGHTS[min(k, 1)])
            for k, c in enumerate(cats)
            if c in index.cat_row
        ]
        if rows:
            r_idx = [r for r, _ in rows]
            r_w = np.array([w for _, w in rows], dtype=np.float32)
            cat_match[i] = (index.cat_w[r_idx] * r_w[:, None]).max(axis=0)
        cat_miss[i] = (cat_match[i] == 0) & index.has_cats
        pr = index.prior_row.get(cats[0])
        if pr is not None:
            prior[i] = index.prior_lift[pr]

    ex = index.memory.max_sim(vec, "pos")
    neg = index.memory.max_sim(vec, "neg")
    zeros: np.ndarray = np.zeros((n, t), dtype=np.float32)
    ex_sim = np.clip(np.nan_to_num(ex - EX_BASELINE, nan=0.0), 0, None) if ex is not None else zeros
    neg_sim = (
        np.clip(np.nan_to_num(neg - EX_BASELINE, nan=0.0), 0, None) if neg is not None else zeros
    )

    knn_k = int(candidates_cfg.get("knn_k", 0))
    nb = index.neighbours
    if nb is not None and len(nb) and knn_k > 0:
        ids = batch.ids if len(batch.ids) == n else [""] * n
        joined = batch.joined_vec if batch.joined_vec is not None else vec
        knn_vote, knn_near, knn_cand = nb.query(joined, ids, knn_k)
        knn_sim = np.clip(knn_near - EX_BASELINE, 0, None)
        knn_cand &= knn_vote >= float(candidates_cfg.get("knn_min_vote", 0.0))
        base_rate = nb.base_rate(ids)
        phrase_rate: np.ndarray | None = nb.phrase_rate(ids)
    else:
        knn_vote = knn_sim = base_rate = zeros
        knn_cand = None
        phrase_rate = None

    head_candidates = None
    if batch.head is not None and batch.head_known is not None:
        head, head_known = batch.head, batch.head_known.astype(np.float32)
        head_candidates = np.where(batch.head_known, head, np.nan)
    else:
        head = head_known = zeros

    values = {
        "sim_desc": z_desc,
        "sim_kw": z_kw,
        "sim_title": z_title,
        "sim_gap": sim_gap,
        "sib_gap": sib_gap,
        "parent_sim": parent_sim,
        **kw,
        "cat_match": cat_match,
        "cat_miss": cat_miss,
        "ex_sim": ex_sim.astype(np.float32),
        "neg_sim": neg_sim.astype(np.float32),
        "prior": prior,
        "is_area": np.broadcast_to(index.is_area, (n, t)),
        "knn_vote": knn_vote,
        "knn_sim": knn_sim,
        "base_rate": base_rate,
        "head": head,
        "head_known": head_known,
        **{f: ctx.get(f, zeros) for f in CONTEXT_FEATURES},
    }
    values.update(combined_features(values, comb, index.area_of, index.areas, phrase_rate))

    # Candidate generation: top-k by each similarity, every keyword hit, nearest examples.
    cand = (kw["kw_any"] > 0) | (kw["kw_gapped"] > 0) | (kw["kw_reordered"] > 0)
    has_vec = np.any(vec, axis=1)
    has_title = np.any(tvec, axis=1)
    for mat, k, rows_ok in (
        (z_desc, candidates_cfg["top_k"], has_vec),
        (z_kw, candidates_cfg["top_k"], has_vec),
        (z_title, candidates_cfg["top_k_title"], has_title),
        (ex, candidates_cfg["top_k_examples"], has_vec),
        (head_candidates, int(candidates_cfg.get("top_k_head", 0)), has_vec),
        (ctx["ctx_desc"] if ctx else None, int(candidates_cfg.get("top_k_context", 0)), has_vec),
        (ctx["ctx_kw"] if ctx else None, int(candidates_cfg.get("top_k_context", 0)), has_vec),
    ):
        if mat is None or k <= 0 or t == 0:
            continue
        k = min(k, t)
        m = np.where(np.isnan(mat), -np.inf, mat)
        top = top_k_per_row(m, k).ravel()
        at = np.repeat(np.arange(n), k)
        ok = np.isfinite(m[at, top]) & rows_ok[at]
        cand[at[ok], top[ok]] = True
    if knn_cand is not None:
        cand |= knn_cand
    cand &= batch.usable[:, None]
    return BatchFeatures(values, cos_desc, cos_kw, cand)
