"""Fit the tagger's corpus statistics on arXiv abstracts: centering.npz and word_stats.json.gz.

One-off tool (not run by tests or CI), run in the project venv after distill_static_model.py:

    .venv/bin/python -m topics.tagger.tools.fit_corpus_stats \\
        --rss-dir ../shared/data/arxiv/rss/cs.LG_daily_2025H1_gz --until 2025-04-30

Only papers captured up to ``--until`` are read (the gold-set window from 2025-05-19 must stay
out). Three outputs, all independent of the taxonomy:
- static/centering.npz: the mean vector and top ``--components`` principal directions of the
  papers' (title + abstract) embeddings. The tagger subtracts the mean and projects those
  directions out of every vector (papers, topics, examples), which removes what all abstracts
  share and stops a few broad topics from being the nearest topic of most papers (hubness);
- static/reference.npz: title and title+abstract vectors of 2,000 random papers; the tagger
  scores each topic's similarity to a paper against its similarity to these ordinary papers;
- word_stats.json.gz: the coherence of each (lower-case, plural-stemmed) word, i.e. how alike
  the papers that use it are, so that a one-word keyword such as "generator" or "robustness"
  counts as weaker evidence than "bandit" or "federated".
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from datetime import date
from pathlib import Path

import numpy as np

from topics.tagger.embedding import (
    CENTERING_FILE,
    MODEL_DIR,
    REFERENCE_FILE,
    STATIC_MODEL_DIR,
    StaticEmbedder,
)
from topics.tagger.keywords import WORD_STATS_FILE, stat_keys
from topics.tagger.text import MAX_ABSTRACT_CHARS, clean
from topics.tagger.tools.rss_corpus import read_corpus

GOLD_WINDOW_START = date(2025, 5, 19)


def main() -> int:
    parser = argparse.ArgumentParser(description="Fit centering.npz and word_stats.json.gz.")
    parser.add_argument("--rss-dir", type=Path, required=True)
    parser.add_argument("--until", type=date.fromisoformat, default=date(2025, 4, 30))
    parser.add_argument("--model", type=Path, default=STATIC_MODEL_DIR)
    parser.add_argument("--components", type=int, default=3)
    parser.add_argument("--min-df", type=int, default=5)
    parser.add_argument("--reference", type=int, default=2000)
    args = parser.parse_args()
    if args.until >= GOLD_WINDOW_START:
        parser.error(f"--until must be before {GOLD_WINDOW_START} (gold-set window)")

    started = time.perf_counter()
    (args.model / CENTERING_FILE).unlink(missing_ok=True)  # fit on raw vectors
    embedder = StaticEmbedder.load(args.model)
    papers = list(read_corpus(args.rss_dir, end=args.until))
    texts = [clean(f"{p.title}. {p.abstract}", MAX_ABSTRACT_CHARS) for p in papers]
    x_all = embedder.encode(texts)
    x = x_all[np.any(x_all, axis=1)]
    center = x.mean(axis=0)
    _, s, vt = np.linalg.svd(x - center, full_matrices=False)
    components = vt[: args.components]
    np.savez(
        args.model / CENTERING_FILE,
        center=center.astype(np.float32),
        components=components.astype(np.float32),
    )
    info = {
        "centering": {
            "papers": int(len(x)),
            "corpus": f"{args.rss_dir.name}, capture dates <= {args.until}",
            "components": args.components,
            "explained_variance_ratio": [
                round(float(v), 4) for v in (s[: args.components] ** 2 / np.sum(s**2))
            ],
        }
    }
    embedder = StaticEmbedder.load(args.model)  # now with the centering

    # Word coherence: how alike the papers using a word are (norm of the mean of their centred
    # vectors, corrected for the number of papers). "bandit" or "federated" papers are alike;
    # "generator" or "robustness" papers are not, so those words are weak evidence alone.
    unit = embedder.postprocess(x_all)
    rows: dict[str, list[int]] = {}
    for i, text in enumerate(texts):
        for word in set(stat_keys(text)):
            rows.setdefault(word, []).append(i)
    coherence = {}
    for word, idx in sorted(rows.items()):
        n = len(idx)
        if n < args.min_df:
            continue
        m2 = float(np.sum(unit[idx].mean(axis=0) ** 2))
        coherence[word] = round(max(0.0, (n * m2 - 1) / (n - 1)) ** 0.5, 3)
    # Reference papers: title and body vectors of a fixed random sample, from which the tagger
    # derives each topic's similarity distribution over ordinary papers (column z-scores).
    rng = np.random.default_rng(0)
    ref = np.sort(rng.choice(len(papers), size=min(args.reference, len(papers)), replace=False))
    title_vec = embedder.encode([clean(papers[i].title, MAX_ABSTRACT_CHARS) for i in ref])
    np.savez_compressed(
        args.model / REFERENCE_FILE,
        title=title_vec.astype(np.float16),
        body=unit[ref].astype(np.float16),
    )
    info["reference"] = {"papers": int(len(ref))}

    payload = json.dumps(
        {"papers": len(texts), "min_df": args.min_df, "coherence": coherence},
        separators=(",", ":"),
    )
    with gzip.GzipFile(MODEL_DIR / WORD_STATS_FILE, "wb", mtime=0) as fh:  # reproducible bytes
        fh.write(payload.encode("utf-8"))
    info["word_stats"] = {"papers": len(texts), "words": len(coherence)}
    build = args.model / "build.json"
    data = json.loads(build.read_text()) if build.is_file() else {}
    data.update(info)
    build.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(info, indent=2), f"\n{time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
