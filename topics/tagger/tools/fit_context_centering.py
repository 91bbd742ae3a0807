"""Write the contextual encoder's corpus statistics in model/contextual/:

- centering.npz: the mean raw MiniLM vector of the labelled training papers, which the encoder
  subtracts before use (every abstract's vector shares a large common part; without it all
  cosines crowd near 0.5 and the nearest neighbours are the papers most like every other paper);
- reference.npz (with ``--rss-dir``): the centred contextual vectors of the same 2,000 ordinary
  papers as static/reference.npz (fit_corpus_stats.py: seed 0, capture dates <= 2025-04-30), so
  that the refined stage scores a topic's contextual similarity against ordinary papers.

    DEBUG=1 .venv/bin/python -m topics.tagger.tools.fit_context_centering \\
        [--rss-dir ../shared/data/arxiv/rss/cs.LG_daily_2025H1_gz]

About three minutes on two cores (6,368 papers), half a minute more for the reference. Run it
before ``fit_tagger --context-weight``: the refined stage's fit and its cached vectors depend on
it.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import date
from pathlib import Path

import numpy as np

from topics.evaluation import load_set
from topics.tagger.contextual import (
    CENTERING_FILE,
    CONTEXT_DIR,
    REFERENCE_FILE,
    ContextualEmbedder,
    context_text,
)
from topics.tagger.tools.fit_corpus_stats import GOLD_WINDOW_START
from topics.tagger.tools.rss_corpus import read_corpus

REFERENCE_UNTIL = date(2025, 4, 30)  # fit_corpus_stats.py's default: the static reference's
REFERENCE_PAPERS = 2000


def main() -> int:
    parser = argparse.ArgumentParser(description="Fit model/contextual/ centering and reference.")
    parser.add_argument("--rss-dir", type=Path, help="also write reference.npz from this capture")
    parser.add_argument("--skip-centering", action="store_true", help="only the reference")
    args = parser.parse_args()
    started = time.perf_counter()
    if not args.skip_centering:
        papers = load_set("train").papers
        texts = [f"{p['title']}. {p['abstract']}" for p in papers]  # as stored: a statistic
        raw = ContextualEmbedder().encode_raw(texts)
        center = raw[np.any(raw, axis=1)].mean(axis=0).astype(np.float32)
        np.savez(CONTEXT_DIR / CENTERING_FILE, center=center)
        print(
            f"centering of {len(papers)} training papers written to "
            f"{CONTEXT_DIR / CENTERING_FILE} (norm {np.linalg.norm(center):.3f})"
        )
    if args.rss_dir is not None:
        assert REFERENCE_UNTIL < GOLD_WINDOW_START  # the gold-set window stays out
        corpus = list(read_corpus(args.rss_dir, end=REFERENCE_UNTIL))
        rng = np.random.default_rng(0)  # the static reference's sample (fit_corpus_stats.py)
        size = min(REFERENCE_PAPERS, len(corpus))
        ref = np.sort(rng.choice(len(corpus), size=size, replace=False))
        texts = [context_text(corpus[i].title, corpus[i].abstract) for i in ref]
        vectors = ContextualEmbedder().encode(texts)  # with the centering just written
        np.savez_compressed(CONTEXT_DIR / REFERENCE_FILE, vectors=vectors.astype(np.float16))
        print(f"reference: {len(ref)} of {len(corpus)} papers written to {REFERENCE_FILE}")
    print(f"{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
