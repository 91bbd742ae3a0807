"""Build the labelled-paper memory (kNN, base rates, phrase rates) from ``[(paper, slugs)]``.

Two things are cached per paper in ``labelled_papers.jsonl.gz`` by ``fit_tagger`` so that a
tagger starts fast: the paper vector (``vec``, valid for the embedding pipeline named by
``embedding``) and the topics whose phrases the paper uses (``named``, valid for the phrase
index named by ``phrases``, the matcher's fingerprint). Anything missing or made for another
pipeline or taxonomy is recomputed here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from .inputs import PaperInput, decode_vector
from .memory import NeighbourMemory, normalize_rows
from .text import MAX_ABSTRACT_CHARS, MAX_TITLE_CHARS, clean


def phrase_topics(tagger, papers: Sequence[PaperInput]) -> list[list[int]]:
    """Per paper, the topic indices whose name, aliases or keywords it uses (any match kind)."""
    out = []
    for p in papers:
        title, abstract = clean(p.title, MAX_TITLE_CHARS), clean(p.abstract, MAX_ABSTRACT_CHARS)
        out.append(sorted(tagger.matcher.match(title, abstract)))
    return out


def build_memory(tagger, labelled: Iterable[tuple[Any, Iterable[str]]]) -> NeighbourMemory | None:
    """The memory of the labelled papers that carry a known topic (ancestors added), or None."""
    pos = tagger.index.pos
    items: list[tuple[PaperInput, list[int]]] = []
    vec_cache: list[Any] = []
    named_cache: list[list[int] | None] = []
    embedding = tagger.embedding_fingerprint()
    phrases = tagger.matcher.fingerprint
    for paper, slugs in labelled:
        p = PaperInput.coerce(paper)
        known = [pos[s] for s in slugs if s in pos]
        if not known:
            continue
        items.append((p, known))
        cached = paper if isinstance(paper, Mapping) else {}
        vec_cache.append(cached.get("vec") if cached.get("embedding") == embedding else None)
        named = cached.get("named") if cached.get("phrases") == phrases else None
        named_cache.append([pos[s] for s in named if s in pos] if named is not None else None)
    if not items:
        return None
    if all(isinstance(v, str) for v in vec_cache):  # vectors cached by fit_tagger
        vecs = normalize_rows(np.stack([decode_vector(str(v)) for v in vec_cache]))
    else:
        vecs = tagger._vectors([p for p, _ in items])[0]
    if tagger.context is not None:  # the refined stage's joined vectors (engine.join_vectors)
        vecs = tagger.join_vectors(vecs, [p for p, _ in items])
    labels = np.zeros((len(items), len(tagger.topics)), dtype=np.float32)
    for r, (_, known) in enumerate(items):
        for j in known:
            labels[r, j] = 1.0
            labels[r, list(tagger.hierarchy.ancestors(j))] = 1.0
    missing = [r for r, n in enumerate(named_cache) if n is None]
    fresh = phrase_topics(tagger, [items[r][0] for r in missing])
    for r, topics in zip(missing, fresh, strict=True):
        named_cache[r] = topics
    named = np.zeros(labels.shape, dtype=bool)
    for r, cached_topics in enumerate(named_cache):
        named[r, cached_topics or []] = True
    return NeighbourMemory(vecs.astype(np.float32), labels, [p.id for p, _ in items], named)
