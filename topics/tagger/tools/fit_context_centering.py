"""Write model/contextual/centering.npz: the mean raw MiniLM vector of the labelled training
papers, which the contextual encoder subtracts before use (every abstract's vector shares a
large common part; without it all cosines crowd near 0.5 and the nearest neighbours are the
papers most like every other paper).

    DEBUG=1 .venv/bin/python -m topics.tagger.tools.fit_context_centering

About three minutes on two cores (6,368 papers). Run it before ``fit_tagger --context-weight``:
the refined stage's fit and its cached vectors depend on it.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from topics.evaluation import load_set
from topics.tagger.contextual import CENTERING_FILE, CONTEXT_DIR, ContextualEmbedder


def main() -> int:
    started = time.perf_counter()
    papers = load_set("train").papers
    texts = [f"{p['title']}. {p['abstract']}" for p in papers]  # as stored: a statistic
    raw = ContextualEmbedder().encode_raw(texts)
    center = raw[np.any(raw, axis=1)].mean(axis=0).astype(np.float32)
    np.savez(CONTEXT_DIR / CENTERING_FILE, center=center)
    print(
        f"centering of {len(papers)} training papers written to {CONTEXT_DIR / CENTERING_FILE} "
        f"(norm {np.linalg.norm(center):.3f}) in {time.perf_counter() - started:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
