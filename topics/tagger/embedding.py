"""Text embedders; the default is the static (model2vec) model in topics/tagger/model/static.

An embedder is any object with ``dim`` and ``encode(texts) -> float32 array (n, dim)`` whose rows
are L2-normalised (all-zero rows for texts with no known token). Nothing is ever downloaded: the
model is loaded from a local folder and a missing folder is an error.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from itertools import chain
from pathlib import Path
from typing import Protocol

import numpy as np

MODEL_DIR = Path(__file__).resolve().parent / "model"
STATIC_MODEL_DIR = MODEL_DIR / "static"
CENTERING_FILE = "centering.npz"
REFERENCE_FILE = "reference.npz"
CHUNK_CACHE = 300_000  # space-separated chunks whose token ids are remembered (~60 MB)


class Embedder(Protocol):
    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


def _normalize_rows(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    np.divide(x, norms, out=x, where=norms > 0)
    return x


class StaticEmbedder:
    """Mean of static token vectors (model2vec format), computed in float32 with numpy.

    model2vec's own ``encode`` averages in float16; this does the same maths in float32 and also
    exposes per-text sums so that a title and an abstract tokenized apart can be combined.
    ``max_tokens`` bounds the work for very long inputs.
    """

    def __init__(
        self,
        vectors: np.ndarray,
        tokenizer,
        *,
        max_tokens: int = 512,
        name: str = "",
        center: np.ndarray | None = None,
        components: np.ndarray | None = None,
        reference: dict[str, np.ndarray] | None = None,
    ):
        self.vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        # Common-component removal (fitted on arXiv abstracts by tools/fit_centering.py): subtract
        # the corpus mean and project out its top principal directions, which every abstract
        # shares; without it a few broad topics are "nearest" to most papers (hubness).
        self.center = None if center is None else np.asarray(center, dtype=np.float32)
        self.components = None if components is None else np.asarray(components, dtype=np.float32)
        # Title and title+abstract vectors of ordinary papers (tools/fit_corpus_stats.py), used to
        # express a paper-topic similarity relative to the topic's usual similarity.
        self.reference = reference
        self.dim = int(self.vectors.shape[1])
        self.tokenizer = tokenizer
        self.max_tokens = max_tokens
        self.name = name
        self._unk = tokenizer.token_to_id("[UNK]")
        self._lock = threading.Lock()  # tokenizers' truncation settings are shared state
        self._chunk_ids: dict[str, list[int]] = {}  # see token_ids

    @classmethod
    def load(cls, path: str | Path | None = None, *, max_tokens: int = 512) -> StaticEmbedder:
        path = Path(path) if path is not None else STATIC_MODEL_DIR
        if not (path / "model.safetensors").is_file() or not (path / "tokenizer.json").is_file():
            raise FileNotFoundError(f"no static embedding model in {path} (nothing is downloaded)")
        from model2vec import StaticModel

        model = StaticModel.from_pretrained(path, force_download=False)
        vectors = np.asarray(model.embedding, dtype=np.float32)
        if getattr(model, "token_mapping", None) is not None:
            vectors = vectors[np.asarray(model.token_mapping)]
        if getattr(model, "weights", None) is not None:
            vectors = vectors * np.asarray(model.weights, dtype=np.float32)[:, None]
        tokenizer = model.tokenizer
        tokenizer.no_padding()
        center = components = reference = None
        centering = path / CENTERING_FILE
        if centering.is_file():
            with np.load(centering) as data:
                center, components = data["center"], data["components"]
        ref_file = path / REFERENCE_FILE
        if ref_file.is_file():
            with np.load(ref_file) as data:
                reference = {k: np.asarray(data[k], dtype=np.float32) for k in ("title", "body")}
        return cls(
            vectors,
            tokenizer,
            max_tokens=max_tokens,
            name=path.name,
            center=center,
            components=components,
            reference=reference,
        )

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Each text's first ``max_tokens`` token ids, unknown tokens left out.

        The tokenizer (BERT normaliser and pre-tokeniser, WordPiece) treats a space as a word
        boundary and every character by itself or with the marks that follow it, so a text's ids
        are its space-separated chunks' ids one after the other. Chunks recur from paper to
        paper ("the", "learning", "(LLMs)"), so each chunk is tokenized once and remembered
        (up to :data:`CHUNK_CACHE` of them): the tokenizer then sees only the new chunks of a
        batch, which took a fifth of the tagging time when it saw every text whole."""
        cache = self._chunk_ids
        chunked = [text.split(" ") for text in texts]
        needed = set().union(*chunked)
        new = list(needed.difference(cache))
        if new:
            if len(cache) + len(new) > CHUNK_CACHE:  # start afresh rather than track age
                cache.clear()
                new = list(needed)
            with self._lock:
                self.tokenizer.no_truncation()
                encodings = self.tokenizer.encode_batch_fast(new, add_special_tokens=False)
            cache.update(zip(new, (e.ids for e in encodings), strict=True))
        unk, limit = self._unk, self.max_tokens
        out = []
        for chunks in chunked:
            ids = list(chain.from_iterable(map(cache.__getitem__, chunks)))[:limit]
            out.append([i for i in ids if i != unk] if unk is not None and unk in ids else ids)
        return out

    def encode_sums(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Sum of token vectors and token count per text (to combine title and abstract)."""
        sums = np.zeros((len(texts), self.dim), dtype=np.float32)
        counts = np.zeros(len(texts), dtype=np.float32)
        if not len(texts):
            return sums, counts
        vectors = self.vectors
        for r, ids in enumerate(self.token_ids(texts)):
            if ids:
                sums[r] = vectors[ids].sum(axis=0)
                counts[r] = len(ids)
        return sums, counts

    def postprocess(self, unit: np.ndarray) -> np.ndarray:
        """Centred, de-common-componented, re-normalised rows; all-zero rows stay zero."""
        if self.center is None:
            return unit
        empty = ~np.any(unit, axis=1)
        out = unit - self.center
        if self.components is not None and len(self.components):
            out -= (out @ self.components.T) @ self.components
        out = _normalize_rows(out)
        out[empty] = 0.0
        return out

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        sums, _ = self.encode_sums(texts)
        return self.postprocess(_normalize_rows(sums))


class HashingEmbedder:
    """Tiny deterministic bag-of-words embedder (feature hashing); for tests and fallbacks only."""

    def __init__(self, dim: int = 256):
        self.dim = dim

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        import zlib

        from .text import stem, tokens

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for r, text in enumerate(texts):
            for tok in tokens(text):
                h = zlib.crc32(stem(tok.lower()).encode())
                out[r, h % self.dim] += 1.0 if (h >> 16) & 1 else -1.0
        return _normalize_rows(out)


_default: StaticEmbedder | None = None
_default_lock = threading.Lock()


def default_embedder() -> StaticEmbedder:
    """The shipped static model, loaded once per process."""
    global _default
    with _default_lock:
        if _default is None:
            _default = StaticEmbedder.load()
        return _default
