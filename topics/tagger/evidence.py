"""The evidence behind one emitted tag: similarities, matched phrases, categories, the nearest
example papers, and which child implied it."""

from __future__ import annotations

from typing import Any

from .inputs import Tag


def make_tag(tagger, rank, sel, placed, i, batch, feats, own, coherent, chip_order=None) -> Tag:
    """One emitted tag with the evidence a page shows for it (why it was given)."""
    j = sel.topic
    topic = tagger.topics[j]
    evidence: dict[str, Any] = {
        "similarity": round(float(feats.cos_desc[i, j]), 3),
        "similarity_keywords": round(float(feats.cos_kw[i, j]), 3),
        "similarity_z": round(float(feats.values["sim_desc"][i, j]), 2),
    }
    hits = batch.hits[i].get(j)
    if hits:
        evidence["phrases"] = [h.as_evidence() for h in hits[:8]]
    cats = [c for c in batch.categories[i] if c in tagger.index.topic_cats[j]]
    if cats:
        evidence["categories"] = cats
    examples = tagger.index.memory.nearest(batch.vec[i], j)
    if examples:
        evidence["examples"] = examples
    own_score = float(own[i, j])
    if own_score + 1e-6 < sel.score:
        child = max(
            (c for c in tagger.hierarchy.children[j]),
            key=lambda c: (coherent[i, c], -c),
        )
        evidence["implied_by"] = tagger.topics[child].slug
    if sel.low_confidence:
        evidence["low_confidence"] = True
    return Tag(
        topic.slug,
        topic.name,
        round(own_score, 4),
        rank,
        evidence,
        shown=placed.shown,
        implied=placed.implied,
        chip_order=chip_order,
    )
