"""Weak labels for the supervised heads (issue 13, item 2): unlabelled papers whose *title*
names a topic.

A title that holds a topic's name or one of its aliases (a phrase of specificity >= 1 that no
other topic shares, matched as a whole, not a keyword) is counted as a clear label of that topic
and its ancestors. Only the heads learn from these papers: the kNN memory and the scorer's
training pairs stay the judged papers, so the scorer weighs the heads by what they are worth on
careful labels.

Measured, and off by default (``fit_tagger --weak`` turns them on): out of fold the heads alone
rank better with them (``probe_heads``: R@5 0.664 -> 0.706 on the 4,420 judged papers of the
time), but the whole fitted scorer does not (``fit-14``, 6,368 judged papers: micro-F1 0.661
against 0.669 without; on the gold set first chip right 0.791 against 0.818). The weak labels
teach the heads what the title-phrase features already tell the scorer.

The rows are made once from the recorded RSS corpus by ``topics.tagger.tools.weak_labels`` and
ship in ``topics/evaluation/weak/`` (listed in the manifest); fitting reads them from there.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from topics.tagger.engine import PaperInput, Tagger
from topics.tagger.text import MAX_TITLE_CHARS, clean

RULE = "title names the topic (name or alias of specificity >= 1, not a keyword)"


def title_named_topics(tagger: Tagger, title: str, areas: set[str]) -> list[str]:
    """Slugs of the non-area topics the title names, in the taxonomy's order."""
    hits = tagger.matcher.match(clean(title, MAX_TITLE_CHARS), "")
    slugs = [
        tagger.topics[j].slug
        for j, found in sorted(hits.items())
        if any(h.kind != "keyword" and h.specificity >= 1 and h.quality >= 1 for h in found)
    ]
    return [s for s in slugs if s not in areas]


def weak_rows(tagger: Tagger, papers: Iterable, exclude: set[str], areas: set[str]) -> list[dict]:
    """One row per paper (an ``RssPaper``-like object) whose title names a topic, skipping
    ``exclude`` (the judged papers of both sets)."""
    rows = []
    for p in papers:
        if p.id in exclude:
            continue
        named = title_named_topics(tagger, p.title, areas)
        if named:
            rows.append(
                {
                    "id": p.id,
                    "title": p.title,
                    "abstract": p.abstract,
                    "categories": list(p.categories),
                    "announced": p.file_date.isoformat(),
                    "topics": named,
                }
            )
    return rows


def weak_training(
    rows: list[dict], topics: list, parents: Mapping[str, str | None], exclude: set[str]
) -> tuple[list[PaperInput], np.ndarray]:
    """The weak papers and their (N, T) labels with ancestors, on ``topics``' columns; rows of
    ``exclude`` (papers judged since the file was made) and slugs the taxonomy lost are left
    out, and a paper left with no topic is dropped."""
    from topics.evaluation.metrics import expand

    pos = {t.slug: j for j, t in enumerate(topics)}
    papers, cols = [], []
    for row in rows:
        if row["id"] in exclude:
            continue
        known = [s for s in row["topics"] if s in pos]
        if not known:
            continue
        papers.append(PaperInput.coerce(row))
        cols.append([pos[s] for s in expand(known, parents) if s in pos])
    y = np.zeros((len(papers), len(pos)), dtype=bool)
    for i, c in enumerate(cols):
        y[i, c] = True
    return papers, y
