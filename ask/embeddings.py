"""Passage and question vectors from the tagger's own static model (topics/tagger/model/static),
the one the process-wide tagger uses: loaded once per process, never downloaded."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from topics.tagger.features import normalize_rows

TITLE_WEIGHT = 0.35  # how much of a sentence's vector comes from its paper's title (context)
DTYPE = np.float16  # stored vectors: half the bytes, cosine ranks unchanged to 3 decimals


def embedder():
    from topics.runtime import tagger_peek
    from topics.tagger.embedding import default_embedder

    tagger = tagger_peek()  # the process's tagger, if one is loaded: the same model
    return tagger.embedder if tagger is not None else default_embedder()


def encode(texts: Sequence[str]) -> np.ndarray:
    """(n, dim) float32, rows L2-normalised (all zero for a text with no known word)."""
    if not texts:
        return np.zeros((0, 1), dtype=np.float32)
    return normalize_rows(np.asarray(embedder().encode(list(texts)), dtype=np.float32))


def encode_in_context(texts: Sequence[str], titles: Sequence[str]) -> np.ndarray:
    """Vectors of passages read in the context of their paper's title: a sentence such as "We
    propose a new estimator" says little alone."""
    own = encode(texts)
    context = encode(titles)
    return normalize_rows(own * (1 - TITLE_WEIGHT) + context * TITLE_WEIGHT)


def to_bytes(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=DTYPE).tobytes()


def matrix_from_bytes(blobs: Sequence[bytes]) -> np.ndarray | None:
    """Stored vectors as the rows of one (n, dim) array, still in the stored dtype."""
    if not blobs:
        return None
    return np.frombuffer(b"".join(bytes(b) for b in blobs), dtype=DTYPE).reshape(len(blobs), -1)
