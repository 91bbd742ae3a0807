"""The tagger: candidates -> per-pair features -> one calibrated scorer -> coherent 3..7 tags.

Pure Python + numpy (no Django). Build it from a list of :class:`TopicSpec` (from the taxonomy
files or from DB rows) and an embedder (default: the shipped static model)::

    tagger = Tagger(load_taxonomy_files("topics/taxonomy").topics)
    tags = tagger.tag(PaperInput(id="2501.00001", title="...", abstract="...",
                                 categories=("cs.LG",)))
"""

from __future__ import annotations

import logging
import threading
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from .chip_order import (
    CHIP_FEATURES,
    CHIP_ORDER_PATH,
    LM_TOPIC_NAME,
    ChipOrder,
    chip_matrix,
    name_words,
    speaks_of_language_models,
    topic_priors,
)
from .chips import ChipTag, chips_arrange
from .contextual import (
    CONTEXT_VECTORS_PATH,
    REFINED_CHIP_ORDER_PATH,
    REFINED_HEADS_PATH,
    REFINED_SCORER_PATH,
    TOPIC_VECTORS_PATH,
    context_text,
    encode_texts,
    load_context_vectors,
)
from .embedding import default_embedder
from .evidence import make_tag
from .features import (
    FEATURES,
    EncodedBatch,
    NeighbourMemory,
    TopicIndex,
    compute_features,
    normalize_rows,
    topic_texts,
)
from .heads import HEADS_PATH, HeadView, TopicHeads
from .inputs import (  # noqa: F401 (re-exported: the engine's public names)
    NEIGHBOURS_PATH,
    PaperInput,
    Priors,
    Tag,
    UnknownTopicError,
    decode_vector,
    encode_vector,
    load_labelled_papers,
)
from .keywords import KeywordMatcher
from .neighbours import build_memory
from .scoring import ScorerParams, sigmoid
from .selection import Hierarchy, select
from .taxonomy import Taxonomy, TopicSpec, check_topic_specs
from .text import MAX_ABSTRACT_CHARS, MAX_TITLE_CHARS, clean

log = logging.getLogger(__name__)

BATCH_SIZE = 256
SHIPPED_MIN_KNOWN = 0.9  # share of the shipped labels' topics the taxonomy must know to use them
PROBE_TITLE = "Graph neural networks for molecular property prediction"
PROBE_ABSTRACT = "We train a message passing network on molecules and reinforcement learning."


class Tagger:
    """Tags papers with topics. Thread-safe for concurrent ``tag``/``apply_feedback`` calls."""

    def __init__(
        self,
        topics: Sequence[TopicSpec] | Taxonomy,
        embedder: Any = None,
        *,
        examples: Mapping[str, Sequence[Any]] | None = None,
        feedback: Iterable[tuple[Any, str, bool]] | None = None,
        priors: Priors | Mapping[str, Mapping[str, float]] | None = None,
        params: ScorerParams | str | Path | None = None,
        neighbours: Iterable[tuple[Any, Iterable[str]]] | str | Path | None = None,
        heads: TopicHeads | str | Path | None = None,
        chip_order: ChipOrder | str | Path | None = None,
        context: Any = None,
    ):
        topics = list(topics.topics if isinstance(topics, Taxonomy) else topics)
        check_topic_specs(topics)
        self.topics = topics
        self.embedder = embedder if embedder is not None else default_embedder()
        # With the contextual encoder the defaults are the refined stage's fit (model/refined/).
        refined = context is not None
        if isinstance(params, ScorerParams):
            self.params = params
        else:
            self.params = ScorerParams.load(
                REFINED_SCORER_PATH if refined and params is None else params
            )
        self._weights = self.params.weight_vector()
        self._lock = threading.RLock()
        # The refined stage: contextual vectors joined to the static ones for the kNN vote
        # (contextual.py). Only a scorer fitted with them (embedding.context_weight > 0) uses
        # them, and such a scorer cannot score without them.
        self.context_weight = float(self.params.embedding.get("context_weight", 0.0))
        if self.context_weight > 0 and context is None:
            raise ValueError(f"scorer {self.params.version} needs the contextual encoder")
        self.context = context if self.context_weight > 0 else None
        self._context_known: dict[str, np.ndarray] = {}  # labelled papers' contextual vectors
        self.index = TopicIndex(
            topics,
            self.embedder,
            self.params.rocchio,
            float(self.params.embedding["title_weight"]),
        )
        self._topic_context: dict[str, np.ndarray] = {}  # topic texts' contextual vectors
        if self.context is not None:
            self._set_topic_context()
        self.hierarchy = Hierarchy(self.index.parent, self.index.depth)
        self.matcher = KeywordMatcher(topics)
        if priors is not None:
            self.index.set_priors(priors.lift if isinstance(priors, Priors) else priors)
        shipped = neighbours is None
        if neighbours is None or isinstance(neighbours, (str, Path)):
            neighbours = load_labelled_papers(neighbours)
            mentions = [s for _, slugs in neighbours for s in slugs]
            known = sum(1 for s in mentions if s in self.index.pos)
            if known < SHIPPED_MIN_KNOWN * len(mentions):  # made for another taxonomy
                log.info("labelled papers ignored: %d of %d topics known", known, len(mentions))
                neighbours = []
        if self.context is not None and shipped:  # their contextual vectors ship beside them
            self._context_known.update(load_context_vectors(CONTEXT_VECTORS_PATH, self.context))
        kept = self.set_neighbours(neighbours)
        if heads is None and shipped and kept:  # the heads were trained on those labels
            heads = REFINED_HEADS_PATH if self.context is not None else HEADS_PATH
        self.set_heads(TopicHeads.load(heads) if isinstance(heads, (str, Path)) else heads)
        if chip_order is None and shipped and kept:  # fitted on the shipped tagger's chips
            chip_order = REFINED_CHIP_ORDER_PATH if self.context is not None else CHIP_ORDER_PATH
        self.chip_order: ChipOrder | None = (
            ChipOrder.load(chip_order) if isinstance(chip_order, (str, Path)) else chip_order
        )
        names = {t.slug: t.name for t in topics}
        self._name_words = [name_words(names[slug]) for slug in self.index.slugs]
        self._lm_topic = np.array(
            [bool(LM_TOPIC_NAME.search(names[slug])) for slug in self.index.slugs], dtype=float
        )
        for slug, papers in (examples or {}).items():
            for paper in papers:
                self.apply_feedback(paper, slug, True)
        for paper, slug, confirm in feedback or ():
            self.apply_feedback(paper, slug, confirm)

    # -- public API -------------------------------------------------------------------------
    @property
    def model_version(self) -> str:
        """Scorer and embedding, e.g. ``fit-15/static`` or ``fit-20r/static+minilm-int8-96``."""
        name = getattr(self.embedder, "name", "") or "embedder"
        if self.context is not None:
            name += "+" + (getattr(self.context, "name", "") or "context")
        return f"{self.params.version}/{name}"

    def set_params(self, params: ScorerParams | str | Path | None) -> None:
        """Swap the scorer (weights, Platt, decision settings, candidate sizes) in place, e.g. to
        compare fitted scorers or thresholds without rebuilding the topic matrices. The topic
        vectors depend on ``embedding`` and ``rocchio``, so those must stay the same."""
        new = params if isinstance(params, ScorerParams) else ScorerParams.load(params)
        if dict(new.embedding) != dict(self.params.embedding) or dict(new.rocchio) != dict(
            self.params.rocchio
        ):
            raise ValueError("set_params: embedding/rocchio settings differ; build a new Tagger")
        with self._lock:
            self.params = new
            self._weights = new.weight_vector()

    def set_neighbours(
        self, labelled: Iterable[tuple[Any, Iterable[str]]] | NeighbourMemory | None
    ) -> int:
        """Replace the labelled papers used for kNN candidates and the ``knn_*``, ``base_rate``
        and ``phrase_missing`` features (the papers' phrases are matched here): ``[(paper,
        slugs), ...]`` (slugs that clearly apply; ancestors are added, unknown slugs ignored)
        or a memory from :meth:`neighbour_memory`. A paper is never its own neighbour (same
        id). Returns how many labelled papers are kept."""
        if labelled is None or isinstance(labelled, NeighbourMemory):
            with self._lock:
                self.index.neighbours = labelled
            return len(labelled) if labelled is not None else 0
        memory = build_memory(self, labelled)
        with self._lock:
            self.index.neighbours = memory
        return len(memory) if memory is not None else 0

    def set_heads(
        self,
        heads: TopicHeads | HeadView | None,
        held_out: tuple[Sequence[str], np.ndarray, np.ndarray] | None = None,
    ) -> None:
        """Replace the supervised per-topic heads (the ``head`` features and candidates): fitted
        :class:`TopicHeads`, a view from :meth:`heads_view`, or None. ``held_out`` gives the
        out-of-fold values ``(ids, (M, T) values, (M, T) has-a-head)`` of papers the heads were
        trained on (in this tagger's topic order), used for those papers instead."""
        if heads is not None and not isinstance(heads, HeadView):
            heads = HeadView(heads, self.index.pos, len(self.topics), held_out)
        with self._lock:
            self.index.heads = heads if heads is None or len(heads) else None

    def heads_view(self) -> HeadView | None:
        """The heads in use (to swap back later with :meth:`set_heads`)."""
        return self.index.heads

    def _active(self) -> ScorerParams:
        """The scorer in use: ``params``, or its fallback while there are no labelled papers."""
        return self.params.active(self.index.neighbours is not None)

    def embedding_fingerprint(self) -> str:
        """Identifies the paper-embedding pipeline (embedder, centring, title weight) by the
        vector of a fixed probe text, so cached paper vectors are used only where they fit."""
        probe = self._vectors([PaperInput("", PROBE_TITLE, PROBE_ABSTRACT)])[0][0]
        digest = zlib.crc32(np.round(probe, 3).astype(np.float32).tobytes())
        return f"{self.embedder.__class__.__name__}:{probe.shape[0]}:{digest:08x}"

    def neighbour_memory(self) -> NeighbourMemory | None:
        """The labelled papers in use (to swap back later with :meth:`set_neighbours`)."""
        return self.index.neighbours

    def tag(self, paper: Any) -> list[Tag]:
        return self.tag_batch([paper])[0]

    def tag_batch(self, papers: Sequence[Any], *, batch_size: int = BATCH_SIZE) -> list[list[Tag]]:
        """Tags for every paper, in input order; a paper that cannot be tagged gets []."""
        out: list[list[Tag]] = []
        for start in range(0, len(papers), batch_size):
            chunk = list(papers[start : start + batch_size])
            try:
                out.extend(self._tag_chunk(chunk))
            except Exception:  # never let one odd paper fail a whole batch
                log.exception("tagging a batch failed; retrying paper by paper")
                for paper in chunk:
                    try:
                        out.extend(self._tag_chunk([paper]))
                    except Exception:
                        log.exception("tagging paper %r failed", getattr(paper, "id", paper))
                        out.append([])
        return out

    def embed(self, papers: Sequence[Any]) -> np.ndarray:
        """(N, D) paper vectors as used by the tagger (for caching or feedback)."""
        return self._vectors([PaperInput.coerce(p) for p in papers])[0]

    def joined_vectors(self, papers: Sequence[Any]) -> np.ndarray:
        """What the kNN vote and the heads read (:meth:`join_vectors`): :meth:`embed`'s
        vectors, joined to the contextual ones in the refined stage."""
        inputs = [PaperInput.coerce(p) for p in papers]
        return self.join_vectors(self._vectors(inputs)[0], inputs)

    def apply_feedback(
        self,
        paper_vector_or_input: Any,
        slug: str,
        confirm: bool,
        *,
        paper_id: str = "",
        title: str = "",
    ) -> None:
        """Confirm (positive example) or reject a topic for a paper; takes effect at once.

        Updates the topic's prototype (Rocchio) and its example/rejection memory, which drive the
        ``sim_desc``, ``ex_sim`` and ``neg_sim`` features. A later judgement of the same paper id
        replaces an earlier one. Raises :class:`UnknownTopicError` for an unknown slug.
        """
        j = self.index.pos.get(slug)
        if j is None:
            raise UnknownTopicError(slug)
        if isinstance(paper_vector_or_input, np.ndarray):
            vec = np.asarray(paper_vector_or_input, dtype=np.float32).reshape(-1)
            if vec.shape[0] != self.index.dim:
                raise ValueError(f"vector has {vec.shape[0]} dimensions, expected {self.index.dim}")
            norm = np.linalg.norm(vec)
            vec = vec / norm if norm > 0 else vec
        else:
            paper = PaperInput.coerce(paper_vector_or_input)
            paper_id = paper_id or paper.id
            title = title or paper.title
            vec = self._vectors([paper])[0][0]
        if not np.any(vec):
            return
        with self._lock:
            self.index.memory.add(j, vec, bool(confirm), paper_id, title)
            self.index.update_prototype(j)

    def apply_feedback_many(
        self, judgements: Sequence[tuple[np.ndarray, str, bool, str, str]]
    ) -> int:
        """Replay many ``(vector, slug, confirm, paper_id, title)`` judgements at once: the same
        memory updates as :meth:`apply_feedback`, but each touched prototype is recomputed once
        instead of once per judgement (1 ms each). Unknown slugs and empty or mis-sized vectors
        are skipped; returns the judgements applied."""
        touched: set[int] = set()
        applied = 0
        with self._lock:
            for vec, slug, confirm, paper_id, title in judgements:
                j = self.index.pos.get(slug)
                vec = np.asarray(vec, dtype=np.float32).reshape(-1)
                norm = float(np.linalg.norm(vec))
                if j is None or norm == 0 or vec.shape[0] != self.index.dim:
                    continue
                self.index.memory.add(j, vec / norm, bool(confirm), paper_id, title)
                touched.add(j)
                applied += 1
            for j in sorted(touched):
                self.index.update_prototype(j)
        return applied

    @property
    def dim(self) -> int:
        """Dimensions of the paper vectors :meth:`embed` returns."""
        return int(self.index.dim)

    def topic_vectors(self) -> tuple[list[str], np.ndarray]:
        """Slugs and unit prototype vectors (description + examples + feedback), as scored."""
        with self._lock:
            return list(self.index.slugs), np.array(self.index.v_proto, dtype=np.float32)

    def candidates(self, paper: Any, k: int = 50) -> list[tuple[str, float]]:
        """The k best candidate topics with their coherent scores (ancestors included, a parent
        right after its best child on ties), before thresholds: for candidate recall@k."""
        p = PaperInput.coerce(paper)
        with self._lock:
            batch = self._encode([p])
            feats = compute_features(batch, self.index, self.params.candidates)
            scores = self.hierarchy.coherent(self._score(feats))[0]
        live = np.flatnonzero(scores > 0)
        order = sorted(live.tolist(), key=lambda j: (-scores[j], -self.hierarchy.depth[j], j))
        return [(self.index.slugs[j], float(scores[j])) for j in order[:k]]

    def own_scores(self, papers: Sequence[Any]) -> list[dict[str, float]]:
        """Each paper's own calibrated score per candidate topic (slug -> score; a topic that is
        not a candidate scores 0 and is left out), before the hierarchy lifts any parent."""
        out: list[dict[str, float]] = []
        for start in range(0, len(papers), BATCH_SIZE):
            chunk = [PaperInput.coerce(p) for p in papers[start : start + BATCH_SIZE]]
            with self._lock:
                batch = self._encode(chunk)
                own = self._score(compute_features(batch, self.index, self.params.candidates))
            for i in range(len(chunk)):
                hits = np.flatnonzero(own[i] > 0) if batch.usable[i] else ()
                out.append({self.topics[j].slug: float(own[i, j]) for j in hits})
        return out

    def coherent_scores(self, papers: Sequence[Any], *, raw: bool = False) -> np.ndarray:
        """(N, T) calibrated, hierarchy-consistent scores (0 for non-candidates) in the order of
        ``self.topics``, before the decision rule: ``selection.select(row, self.hierarchy,
        settings)`` turns a row into tags, e.g. to tune thresholds without re-scoring. With
        ``raw=True``: the linear scores ``w . x + b`` before Platt scaling (coherent too; -inf for
        non-candidates), e.g. to refit the Platt parameters."""
        rows = []
        for start in range(0, len(papers), BATCH_SIZE):
            chunk = [PaperInput.coerce(p) for p in papers[start : start + BATCH_SIZE]]
            with self._lock:
                batch = self._encode(chunk)
                feats = compute_features(batch, self.index, self.params.candidates)
                scores = self.hierarchy.coherent(self._score(feats, raw=raw))
            scores[~batch.usable] = -np.inf if raw else 0.0
            rows.append(scores)
        if not rows:
            return np.zeros((0, len(self.topics)), dtype=np.float32)
        return np.concatenate(rows, axis=0)

    def candidate_slugs(self, papers: Sequence[Any]) -> list[list[str]]:
        """Per paper, the topics the scorer actually scores (keyword hits, top-k by each
        similarity, nearest examples), unranked, without the ancestors that coherence lifts:
        the (paper, topic) pairs to judge and to fit :func:`fit_scorer` on."""
        out = []
        for start in range(0, len(papers), BATCH_SIZE):
            chunk = [PaperInput.coerce(p) for p in papers[start : start + BATCH_SIZE]]
            with self._lock:
                feats = compute_features(self._encode(chunk), self.index, self.params.candidates)
            for row in feats.candidates:
                out.append([self.index.slugs[j] for j in np.flatnonzero(row)])
        return out

    def chip_candidates(self, papers: Sequence[Any]) -> list[tuple[list[str], np.ndarray]]:
        """Per paper, its chips in the scorer's order (slugs) and their
        :data:`~.chip_order.CHIP_FEATURES` rows: what the chip-order model is fitted on (no
        rows for a paper without chips)."""
        out: list[tuple[list[str], np.ndarray]] = []
        for start in range(0, len(papers), BATCH_SIZE):
            chunk = [PaperInput.coerce(p) for p in papers[start : start + BATCH_SIZE]]
            with self._lock:
                batch = self._encode(chunk)
                feats = compute_features(batch, self.index, self.params.candidates)
                own = self._score(feats)
                chosen = self._select(self.hierarchy.coherent(own), batch.usable)
                chips = [self._chip_tags(i, c, own) for i, c in enumerate(chosen)]
                rows = {i: (shown, x) for i, shown, x in self.chip_rows(chips, batch, feats, own)}
            for i in range(len(chunk)):
                shown, x = rows.get(i, ([], np.zeros((0, len(CHIP_FEATURES)))))
                out.append(([self.index.slugs[j] for j in shown], x))
        return out

    def pair_features(
        self, papers: Sequence[Any], slugs: Sequence[Sequence[str]]
    ) -> list[dict[str, dict[str, float]]]:
        """Feature values of (paper, slug) pairs, for :func:`fit_scorer` training data."""
        out = []
        for start in range(0, len(papers), BATCH_SIZE):
            chunk = [PaperInput.coerce(p) for p in papers[start : start + BATCH_SIZE]]
            with self._lock:
                feats = compute_features(self._encode(chunk), self.index, self.params.candidates)
            for i, wanted in enumerate(slugs[start : start + BATCH_SIZE]):
                row = {}
                for slug in wanted:
                    j = self.index.pos.get(slug)
                    if j is not None:
                        row[slug] = {f: float(feats.values[f][i, j]) for f in FEATURES}
                out.append(row)
        return out

    # -- internals --------------------------------------------------------------------------
    def _encode(self, papers: Sequence[PaperInput]) -> EncodedBatch:
        vec, title_vec, known, titles, abstracts = self._vectors(papers)
        hits = [self.matcher.match(t, a) for t, a in zip(titles, abstracts, strict=True)]
        usable = known | np.array([bool(h) for h in hits], dtype=bool)
        ids = [p.id for p in papers]
        batch = EncodedBatch(
            vec, title_vec, hits, [p.categories for p in papers], usable, ids,
            titles=titles, abstracts=abstracts,
        )  # fmt: skip
        if self.context is not None:
            batch.context_vec = self.context_of(papers)
            batch.joined_vec = self._join(vec, batch.context_vec)
        if self.index.heads is not None:
            joined = batch.joined_vec if batch.joined_vec is not None else vec
            batch.head, batch.head_known = self.index.heads.values(ids, titles, abstracts, joined)
        return batch

    def _vectors(self, papers: Sequence[PaperInput]):
        """(paper vectors, title vectors, known-token mask, cleaned titles, cleaned abstracts)."""
        titles = [clean(p.title, MAX_TITLE_CHARS) for p in papers]
        abstracts = [clean(p.abstract, MAX_ABSTRACT_CHARS) for p in papers]
        alpha = float(self.params.embedding["title_weight"])
        emb = self.embedder
        if hasattr(emb, "encode_sums"):
            t_sum, t_n = emb.encode_sums(titles)
            a_sum, a_n = emb.encode_sums(abstracts)
            post = getattr(emb, "postprocess", None) or (lambda x: x)
            title_vec = post(normalize_rows(t_sum))
            body_vec = post(normalize_rows(t_sum + a_sum))
            known = (t_n + a_n) > 0
        else:
            title_vec = normalize_rows(emb.encode(titles))
            joined = [f"{t}. {a}" for t, a in zip(titles, abstracts, strict=True)]
            body_vec = normalize_rows(emb.encode(joined))
            known = np.any(body_vec != 0, axis=1)
        vec = normalize_rows(alpha * title_vec + (1 - alpha) * body_vec)
        return vec, title_vec, known, titles, abstracts

    def join_vectors(self, vec: np.ndarray, papers: Sequence[PaperInput]) -> np.ndarray:
        """The vectors the kNN vote compares and the heads read: the static ones, joined in the
        refined stage to the contextual ones weighted by ``context_weight`` (both unit rows, so
        the join is one too and its cosine is the weighted mean of the two cosines)."""
        if self.context is None:
            return vec
        return self._join(vec, self.context_of(papers))

    def _join(self, vec: np.ndarray, ctx: np.ndarray) -> np.ndarray:
        w = self.context_weight
        return np.hstack([vec * np.sqrt(1.0 - w), ctx * np.sqrt(w)]).astype(np.float32)

    def _set_topic_context(self) -> None:
        """The topics' texts through the contextual encoder (the ``ctx_*`` features): the
        vectors the fit saved (:data:`TOPIC_VECTORS_PATH`, by text), the rest encoded now."""
        self._topic_context = load_context_vectors(TOPIC_VECTORS_PATH, self.context)
        texts = [topic_texts(t) for t in self.topics]
        vectors = encode_texts(
            self.context, [x for desc, kw, _ in texts for x in (desc, kw)], self._topic_context
        )
        reference = getattr(self.context, "reference", None)  # ordinary papers' vectors
        self.index.set_context(vectors[0::2], vectors[1::2], reference)

    def topic_context_vectors(self) -> tuple[list[str], np.ndarray]:
        """(text keys, vectors) of the topic texts encoded so far, for the fit to save."""
        keys = sorted(self._topic_context)
        return keys, np.stack([self._topic_context[k] for k in keys]) if keys else np.zeros((0, 1))

    def remember_context(self, ids: Sequence[str], vectors: np.ndarray) -> None:
        """Contextual vectors of papers by id (the labelled papers', cached by ``fit_tagger``),
        used instead of encoding those papers again."""
        self._context_known.update(
            (str(pid), np.asarray(v, dtype=np.float32)) for pid, v in zip(ids, vectors, strict=True)
        )

    def context_of(self, papers: Sequence[Any]) -> np.ndarray:
        """(N, context dim) contextual vectors of these papers: remembered by paper id, else
        encoded from the cleaned "title. abstract" (only those papers' texts are cleaned: the
        labelled papers' vectors are all remembered when the memory is built)."""
        if self.context is None:
            raise ValueError("this tagger has no contextual encoder")
        inputs = [PaperInput.coerce(p) for p in papers]
        known = self._context_known
        out = np.zeros((len(inputs), self.context.dim), dtype=np.float32)
        todo = []
        for i, p in enumerate(inputs):
            if p.id and p.id in known:
                out[i] = known[p.id]
            else:
                todo.append(i)
        if todo:
            texts = [context_text(inputs[i].title, inputs[i].abstract) for i in todo]
            out[todo] = self.context.encode(texts)
        return out

    def _score(self, feats, *, raw: bool = False) -> np.ndarray:
        """(N, T) calibrated scores; 0 for non-candidates (raw: linear scores or the trees'
        sums, -inf)."""
        params = self._active()
        if params.trees is not None:  # boosted trees over the candidates' features
            z = np.zeros(feats.candidates.shape, dtype=np.float32)
            rows, cols = np.nonzero(feats.candidates)
            x = np.stack([feats.values[f][rows, cols] for f in FEATURES], axis=1)
            z[rows, cols] = params.trees.raw(x)
        else:
            weights = self._weights if params is self.params else params.weight_vector()
            z = np.full(feats.candidates.shape, float(params.bias), dtype=np.float32)
            for f, w in zip(FEATURES, weights, strict=True):
                if w:
                    z += w * feats.values[f]
        if raw:
            z[~feats.candidates] = -np.inf
            return z
        a, c = params.platt
        p = sigmoid(a * z + c).astype(np.float32)
        p[~feats.candidates] = 0.0
        return p

    def _tag_chunk(self, papers: Sequence[Any]) -> list[list[Tag]]:
        inputs = []
        for p in papers:
            try:
                inputs.append(PaperInput.coerce(p))
            except Exception:
                inputs.append(PaperInput(id="", title=""))
        if not inputs or not len(self.index):
            return [[] for _ in inputs]
        with self._lock:
            batch = self._encode(inputs)
            feats = compute_features(batch, self.index, self.params.candidates)
            own = self._score(feats)
            coherent = self.hierarchy.coherent(own)
            chosen = self._select(coherent, batch.usable)
            chips = [self._chip_tags(i, c, own) for i, c in enumerate(chosen)]
            orders = self._chip_orders(chips, batch, feats, own)
            results: list[list[Tag]] = []
            for i, tags in enumerate(chips):
                order = orders.get(i, {})
                placed = chips_arrange([replace(t, order=order.get(t.key)) for t in tags])
                results.append(
                    [
                        make_tag(
                            self,
                            rank,
                            chosen[i][p.key],  # type: ignore[index]
                            p,
                            i,
                            batch,
                            feats,
                            own,
                            coherent,
                            order.get(p.key),
                        )
                        for rank, p in enumerate(placed, start=1)
                    ]
                )
        return results

    def _select(self, coherent: np.ndarray, usable: np.ndarray) -> list[dict[int, Any]]:
        """Per paper, the decision rule's tags by topic column (none for an unusable paper)."""
        settings = self._active().selection
        return [
            {s.topic: s for s in select(row, self.hierarchy, settings)} if ok else {}
            for row, ok in zip(coherent, usable, strict=True)
        ]

    def _chip_tags(self, i: int, chosen: Iterable[int], own: np.ndarray) -> list[ChipTag]:
        return [
            ChipTag(
                key=j,
                ancestors=self.hierarchy.ancestors(j),
                is_area=self.hierarchy.parent[j] < 0,
                score=float(own[i, j]),
                depth=int(self.hierarchy.depth[j]),
            )
            for j in chosen
        ]

    def chip_rows(self, chips: Sequence[Sequence[ChipTag]], batch, feats, own) -> list:
        """Per paper with chips: (paper row, chip topic columns in the scorer's order, their
        :data:`chip_order.CHIP_FEATURES` rows). A paper's only chip has a row too: its P(right)
        is the confidence a reader sees (chips.tag_confidence), and its score alone runs low."""
        out = []
        priors = topic_priors(self.chip_order, self.index.slugs)  # fitting one: none yet
        for i, tags in enumerate(chips):
            shown = [t.key for t in chips_arrange(tags) if t.shown]  # topic columns
            if shown:
                phrased = set(batch.hits[i])
                # The text is searched only when a chip is named for language models: the
                # feature is 0 for every other chip, whatever the paper says (64 us a paper).
                lm_chip = self._lm_topic[np.asarray(shown, dtype=np.intp)].any()
                lm_said = bool(lm_chip) and speaks_of_language_models(
                    batch.titles[i], batch.abstracts[i]
                )
                x = chip_matrix(
                    feats.values, i, shown, own,  # type: ignore[arg-type]
                    self.hierarchy.depth, phrased, priors, self._name_words,
                    self._lm_topic, lm_said,
                )  # fmt: skip
                out.append((i, shown, x))
        return out

    def _chip_orders(self, chips, batch, feats, own) -> dict[int, dict[Any, float]]:
        """Per paper, the chip-order model's P(right) of each chip (none without a model)."""
        if self.chip_order is None:
            return {}
        rows = self.chip_rows(chips, batch, feats, own)
        if not rows:
            return {}
        p = self.chip_order.predict(np.vstack([x for _, _, x in rows]))
        out, at = {}, 0
        for i, shown, _ in rows:
            part = p[at : at + len(shown)]
            out[i] = {j: round(float(v), 4) for j, v in zip(shown, part, strict=True)}
            at += len(shown)
        return out
