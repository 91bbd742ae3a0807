"""Passage and question vectors from the tagger's own static model (topics/tagger/model/static),
the one the process-wide tagger uses: loaded once per process, never downloaded."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

TITLE_WEIGHT = 0.35  # how much of a sentence's vector comes from its paper's title (context)
DTYPE = np.float16  # stored vectors: half the bytes, cosine ranks unchanged to 3 decimals


def embedder():
    from topics.selectors import tagger_peek
    from topics.tagger.embedding import default_embedder

    tagger = tagger_peek()  # the process's tagger, if one is loaded: the same model
    return tagger.embedder if tagger is not None else default_embedder()


def _normalize(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    np.divide(x, norms, out=x, where=norms > 0)
    return x


def encode(texts: Sequence[str]) -> np.ndarray:
    """(n, dim) float32, rows L2-normalised (all zero for a text with no known word)."""
    if not texts:
        return np.zeros((0, 1), dtype=np.float32)
    return _normalize(np.asarray(embedder().encode(list(texts)), dtype=np.float32))


def encode_in_context(texts: Sequence[str], titles: Sequence[str]) -> np.ndarray:
    """Vectors of passages read in the context of their paper's title: a sentence such as "We
    propose a new estimator" says little alone."""
    own = encode(texts)
    context = encode(titles)
    return _normalize(own * (1 - TITLE_WEIGHT) + context * TITLE_WEIGHT)


def to_bytes(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=DTYPE).tobytes()


def matrix_from_bytes(blobs: Sequence[bytes]) -> np.ndarray:
    if not blobs:
        return np.zeros((0, 1), dtype=np.float32)
    return (
        np.frombuffer(b"".join(bytes(b) for b in blobs), dtype=DTYPE)
        .reshape(len(blobs), -1)
        .astype(np.float32)
    )
