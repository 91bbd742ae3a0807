"""Supervised topic heads (issue 13, item 3b): one linear classifier per topic, learnt from the
labelled papers, over the paper's words and its vector.

The scorer's other features are label-agnostic (they mean the same for every topic), so a topic
learns nothing from its own labelled papers except through the kNN vote. A head does: it weighs
the words that mark *this* topic ("shapley" for data valuation, "egocentric" for video world
models). Each head is a linear SVM (liblinear, class-balanced) over

* the tf-idf of the paper's stemmed words and word pairs (title counted twice, stop words out,
  sublinear term frequency, rows of unit length), and
* the paper's unit vector (the tagger's static embedding),

kept for topics with at least :data:`MIN_POSITIVES` labelled papers (ancestors of a labelled
topic count). Each head keeps its :data:`TERMS_PER_TOPIC` heaviest words, so the shipped file is
small and scoring a batch is one sparse product. The head's decision value becomes the scorer's
``head`` feature and its best topics candidates; the logistic scorer weighs it against the rest.

Training needs scikit-learn (liblinear); scoring needs only numpy and scipy.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from scipy import sparse

from .text import stem, strip_tex, tokens

HEADS_FILE = "heads.npz"
HEADS_PATH = Path(__file__).resolve().parent / "model" / HEADS_FILE
MIN_POSITIVES = 3
TERMS_PER_TOPIC = 400
SVM_C = 0.1
MIN_DF = 2
MAX_TERMS = 50_000
DECISION_CLIP = 3.0

# Function words and the boilerplate of every abstract ("we propose", "paper", "results").
_STOP_TEXT = """
    a about above across after again against all also although among an and any are as at be
    because been before being between both but by can could did do does doing during each
    either et few for from further had has have having he her here hers him his how however
    i if in into is it its itself just may me might more most much must my no nor not of off
    often on once only or other our ours out over own per rather same she should since so
    some such than that the their them then there these they this those through thus to too
    under until up upon us very via was we were what when where whether which while who whom
    why will with within without would yet you your al e g i e paper propose proposed show
    shows result results approach method methods new novel use used using based work study
"""
STOP_WORDS = frozenset(_STOP_TEXT.split())


@lru_cache(maxsize=100_000)
def _term(token: str) -> str:
    """A token's term: lower-case and plural-stemmed; "" for stop words, digits, one letter."""
    w = stem(token.lower())
    return "" if len(w) < 2 or w.isdigit() or w in STOP_WORDS else w


def paper_terms(title: str, abstract: str) -> list[str]:
    """Stemmed lower-case words and adjacent word pairs (after stop words are dropped); the
    title's terms twice, as a reader weighs the title."""

    def words(text: str) -> list[str]:
        return list(filter(None, map(_term, tokens(strip_tex(text or "")))))

    def grams(ws: list[str]) -> list[str]:
        return ws + list(map(" ".join, zip(ws, ws[1:], strict=False)))

    t = grams(words(title))
    return t + t + grams(words(abstract))


@dataclass
class Lexicon:
    """The head's vocabulary and inverse document frequencies."""

    terms: list[str]
    idf: np.ndarray

    def __post_init__(self) -> None:
        self.col = {t: i for i, t in enumerate(self.terms)}

    @classmethod
    def fit(cls, docs: Sequence[Sequence[str]]) -> Lexicon:
        """Terms in at least :data:`MIN_DF` papers, the :data:`MAX_TERMS` most frequent (ties by
        the term, so the same papers give the same vocabulary)."""
        df: Counter[str] = Counter()
        for doc in docs:
            df.update(set(doc))
        kept = sorted((t for t, n in df.items() if n >= MIN_DF), key=lambda t: (-df[t], t))
        kept = sorted(kept[:MAX_TERMS])
        n = len(docs)
        idf = np.array([math.log((1 + n) / (1 + df[t])) + 1.0 for t in kept], dtype=np.float32)
        return cls(kept, idf)

    def matrix(self, docs: Sequence[Sequence[str]]) -> sparse.csr_matrix:
        """(N, V) sublinear tf-idf rows of unit length."""
        indptr, indices, data = [0], [], []
        for doc in docs:
            counts = Counter(map(self.col.get, doc))  # counted in C; None: not a term
            counts.pop(None, None)
            cols = np.fromiter(counts.keys(), dtype=np.int32, count=len(counts))
            vals = (1.0 + np.log(np.fromiter(counts.values(), np.float32, len(counts)))) * (
                self.idf[cols]
            )
            norm = float(np.linalg.norm(vals))
            order = np.argsort(cols)
            indices.append(cols[order])
            data.append(vals[order] / norm if norm > 0 else vals[order])
            indptr.append(indptr[-1] + len(cols))
        return sparse.csr_matrix(
            (
                np.concatenate(data) if data else np.zeros(0, np.float32),
                np.concatenate(indices) if indices else np.zeros(0, np.int32),
                np.asarray(indptr),
            ),
            shape=(len(docs), len(self.terms)),
            dtype=np.float32,
        )


@dataclass
class TopicHeads:
    """Fitted heads: ``weights`` (V + D, H) over [tf-idf | vector], one column per slug."""

    slugs: list[str]
    lexicon: Lexicon
    weights: sparse.csc_matrix
    bias: np.ndarray  # (H,)
    dim: int

    def __post_init__(self) -> None:
        # Scored as two products: the words' rows stay sparse (a term touches a few heads), the
        # vector's block is dense (every head weighs every dimension).
        n_terms = len(self.lexicon.terms)
        w = self.weights.tocsr()
        self._w_words = w[:n_terms]
        self._w_vec = np.asarray(w[n_terms:].todense(), dtype=np.float32)

    def decision(self, docs: Sequence[Sequence[str]], vecs: np.ndarray) -> np.ndarray:
        """(N, H) decision values, clipped to +-:data:`DECISION_CLIP`."""
        out = (self.lexicon.matrix(docs) @ self._w_words).toarray()
        out += np.asarray(vecs, dtype=np.float32) @ self._w_vec + self.bias
        return np.clip(out, -DECISION_CLIP, DECISION_CLIP).astype(np.float32)

    def save(self, path: Path) -> None:
        w = self.weights.tocsc()
        with open(path, "wb") as handle:  # np.savez adds no timestamp: same heads, same bytes
            np.savez_compressed(
                handle,
                slugs=np.array("\n".join(self.slugs)),
                terms=np.array("\n".join(self.lexicon.terms)),
                idf=self.lexicon.idf.astype(np.float32),
                data=w.data.astype(np.float16),
                indices=w.indices.astype(np.int32),
                indptr=w.indptr.astype(np.int64),
                shape=np.array(w.shape, dtype=np.int64),
                bias=self.bias.astype(np.float32),
                dim=np.array(self.dim, dtype=np.int64),
            )

    @classmethod
    def load(cls, path: Path | str | None = None) -> TopicHeads | None:
        """The heads in ``path`` (default: the shipped file); None when there is no file."""
        path = Path(path) if path is not None else HEADS_PATH
        if not path.is_file():
            return None
        with np.load(path, allow_pickle=False) as z:
            lexicon = Lexicon(str(z["terms"]).split("\n"), z["idf"].astype(np.float32))
            shape = tuple(int(x) for x in z["shape"])
            weights = sparse.csc_matrix(
                (z["data"].astype(np.float32), z["indices"], z["indptr"]), shape=shape
            )
            slugs = str(z["slugs"]).split("\n") if shape[1] else []
            return cls(slugs, lexicon, weights, z["bias"].astype(np.float32), int(z["dim"]))


def features_matrix(
    lexicon: Lexicon, docs: Sequence[Sequence[str]], vecs: np.ndarray
) -> sparse.csr_matrix:
    return sparse.hstack(
        [lexicon.matrix(docs), sparse.csr_matrix(np.asarray(vecs, dtype=np.float32))],
        format="csr",
    )


def fit_heads(
    docs: Sequence[Sequence[str]],
    vecs: np.ndarray,
    labels: np.ndarray,
    slugs: Sequence[str],
    *,
    min_positives: int = MIN_POSITIVES,
    c: float = SVM_C,
    terms_per_topic: int = TERMS_PER_TOPIC,
) -> TopicHeads:
    """One head per column of ``labels`` (N, T) 0/1 with enough positives and negatives."""
    from sklearn.svm import LinearSVC  # training only

    lexicon = Lexicon.fit(docs)
    x = features_matrix(lexicon, docs, vecs)
    n_terms, dim = len(lexicon.terms), int(vecs.shape[1])
    kept, cols, bias = [], [], []
    positives = labels.sum(axis=0)
    for j in np.flatnonzero((positives >= min_positives) & (positives < len(labels))):
        svm = LinearSVC(C=c, class_weight="balanced", random_state=0, max_iter=2000)
        svm.fit(x, labels[:, j].astype(np.int8))
        w = svm.coef_[0].astype(np.float32)
        lex = w[:n_terms]
        if terms_per_topic and np.count_nonzero(lex) > terms_per_topic:
            cut = np.argpartition(-np.abs(lex), terms_per_topic - 1)[:terms_per_topic]
            pruned = np.zeros_like(lex)
            pruned[cut] = lex[cut]
            w = np.concatenate([pruned, w[n_terms:]])
        kept.append(slugs[int(j)])
        cols.append(sparse.csc_matrix(w[:, None]))
        bias.append(float(svm.intercept_[0]))
    weights = (
        sparse.hstack(cols, format="csc")
        if cols
        else sparse.csc_matrix((n_terms + dim, 0), dtype=np.float32)
    )
    return TopicHeads(kept, lexicon, weights, np.asarray(bias, dtype=np.float32), dim)


class HeadView:
    """Heads as a tagger uses them: columns placed on its topics (slugs it does not know are
    dropped), and, for papers the heads were trained on, their out-of-fold values instead (a
    training paper never sees its own label, as with the kNN vote)."""

    def __init__(
        self,
        heads: TopicHeads,
        pos: dict[str, int],
        n_topics: int,
        held_out: tuple[Sequence[str], np.ndarray, np.ndarray] | None = None,
    ):
        self.heads = heads
        self.n_topics = n_topics
        keep = [h for h, s in enumerate(heads.slugs) if s in pos]
        self.keep = np.asarray(keep, dtype=np.int64)
        self.cols = np.asarray([pos[heads.slugs[h]] for h in keep], dtype=np.int64)
        self.held_row: dict[str, int] = {}
        self.held_values = self.held_known = None
        if held_out is not None:
            ids, values, known = held_out
            self.held_row = {str(pid): r for r, pid in enumerate(ids) if pid}
            self.held_values, self.held_known = values, known

    def __len__(self) -> int:
        return len(self.cols)

    def values(
        self, ids: Sequence[str], titles: Sequence[str], abstracts: Sequence[str], vecs
    ) -> tuple[np.ndarray, np.ndarray]:
        """(N, T) decision values (0 where a topic has no head) and (N, T) has-a-head mask."""
        n = len(ids)
        value = np.zeros((n, self.n_topics), dtype=np.float32)
        known = np.zeros((n, self.n_topics), dtype=bool)
        rows = [self.held_row.get(str(pid)) if pid else None for pid in ids]
        fresh = np.asarray([i for i, r in enumerate(rows) if r is None], dtype=np.int64)
        if len(fresh) and len(self.cols):
            docs = [paper_terms(titles[int(i)], abstracts[int(i)]) for i in fresh]
            dec = self.heads.decision(docs, np.asarray(vecs)[fresh])[:, self.keep]
            value[np.ix_(fresh, self.cols)] = dec
            known[np.ix_(fresh, self.cols)] = True
        for i, r in enumerate(rows):
            if r is not None:
                value[i] = self.held_values[r]  # type: ignore[index]
                known[i] = self.held_known[r]  # type: ignore[index]
        return value, known


def cross_fit_heads(
    docs: Sequence[Sequence[str]],
    vecs: np.ndarray,
    labels: np.ndarray,
    slugs: Sequence[str],
    fold: np.ndarray,
    extra: tuple[Sequence[Sequence[str]], np.ndarray, np.ndarray] | None = None,
    **fit_options,
) -> tuple[np.ndarray, np.ndarray]:
    """Out-of-fold (N, T) decision values and has-a-head mask: each paper scored by heads
    fitted on the other folds (the values its features take while the scorer is fitted).
    ``extra`` (docs, vecs, labels), the weak labels, joins every fold's training papers."""
    n, t = labels.shape
    value = np.zeros((n, t), dtype=np.float32)
    known = np.zeros((n, t), dtype=bool)
    pos = {s: j for j, s in enumerate(slugs)}
    extra_docs, extra_vecs, extra_labels = extra or ([], vecs[:0], labels[:0])
    for k in np.unique(fold):
        train, held = np.flatnonzero(fold != k), np.flatnonzero(fold == k)
        train_docs = [docs[int(i)] for i in train] + list(extra_docs)
        heads = fit_heads(
            train_docs,
            np.vstack([vecs[train], extra_vecs]),
            np.vstack([labels[train], extra_labels]),
            slugs,
            **fit_options,
        )
        cols = np.asarray([pos[s] for s in heads.slugs], dtype=np.int64)
        value[np.ix_(held, cols)] = heads.decision([docs[int(i)] for i in held], vecs[held])
        known[np.ix_(held, cols)] = True
    return value, known
