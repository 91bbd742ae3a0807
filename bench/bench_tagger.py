"""Benchmark the topic tagger: batch throughput, cold start, per-paper latency and peak memory.

    .venv/bin/python bench/bench_tagger.py \
        [--rss-dir ../shared/data/arxiv/rss/cs.LG_daily_2025H1_gz] [--limit N] [--refined]

--refined measures the refined stage (the contextual encoder, topics/tagger/contextual.py)
instead of the fast path; its peak memory is that of a worker holding both taggers.

Reads every item of the recorded cs.LG RSS half year (title, abstract after "Abstract:",
categories), tags them all with the repository's taxonomy and prints the figures quoted in
docs/benchmarks.md ("Tagging"). Exits with a message when the data folder is absent.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEFAULT_RSS = ROOT.parent / "shared" / "data" / "arxiv" / "rss" / "cs.LG_daily_2025H1_gz"

COLD_START = """
import time
t0 = time.perf_counter()
from topics.tagger import PaperInput, Tagger, load_taxonomy_files
t_import = time.perf_counter()
taxonomy = load_taxonomy_files({taxonomy!r})
t_tax = time.perf_counter()
from topics.tagger.contextual import ContextualEmbedder
tagger = Tagger(taxonomy.topics, context=ContextualEmbedder() if {refined!r} else None)
t_build = time.perf_counter()
tags = tagger.tag(PaperInput(id="x", title={title!r}, abstract={abstract!r}, categories={cats!r}))
t_first = time.perf_counter()
print({{"import": t_import - t0, "taxonomy": t_tax - t_import, "build": t_build - t_tax,
       "first_tag": t_first - t_build, "total": t_first - t0, "tags": len(tags)}})
"""


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rss-dir", type=Path, default=DEFAULT_RSS)
    parser.add_argument("--taxonomy", type=Path, default=ROOT / "topics" / "taxonomy")
    parser.add_argument("--limit", type=int, default=0, help="tag at most this many items")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--refined", action="store_true", help="the refined stage's tagger")
    args = parser.parse_args()
    if not args.rss_dir.is_dir():
        print(f"bench_tagger: {args.rss_dir} not found; nothing to measure (data-gated).")
        return 0

    from topics.tagger import PaperInput, Tagger, load_taxonomy_files
    from topics.tagger.contextual import ContextualEmbedder
    from topics.tagger.tools.rss_corpus import read_corpus

    t = time.perf_counter()
    items = list(read_corpus(args.rss_dir, dedupe=False))
    if args.limit:
        items = items[: args.limit]
    parse_s = time.perf_counter() - t
    # Tagged as new papers: since batch n every eligible paper of the capture before the gold
    # window is a labelled training paper (65% of the first 1,500 items), whose contextual
    # vector the refined stage remembers: it skipped the encoder for them (126 papers/s against
    # 55 for papers it has never seen), and the kNN leaves them out of their own neighbours.
    # A new id is what an announcement brings.
    papers = [
        PaperInput(f"new-{p.id}", p.title, p.abstract, p.categories, p.authors) for p in items
    ]
    first = papers[0]

    # Cold start in a fresh interpreter: imports + taxonomy + model load + topic matrix + 1 paper.
    code = COLD_START.format(
        taxonomy=str(args.taxonomy),
        title=first.title,
        abstract=first.abstract,
        cats=first.categories,
        refined=args.refined,
    )
    t = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    cold_wall = time.perf_counter() - t
    cold = eval(out.stdout.strip().splitlines()[-1])  # noqa: S307 - our own subprocess output

    rss_before = rss_mb()
    taxonomy = load_taxonomy_files(args.taxonomy)
    tagger = Tagger(taxonomy.topics)
    if args.refined:  # a worker holds both: the fast path's tagger and the refined stage's
        fast, tagger = tagger, Tagger(taxonomy.topics, context=ContextualEmbedder())
        fast.tag_batch(papers[:256])
    tagger.tag_batch(papers[:256])  # warm-up

    t = time.perf_counter()
    results = tagger.tag_batch(papers, batch_size=args.batch_size)
    batch_s = time.perf_counter() - t

    single = papers[: 100 if args.refined else 500]
    lat = []
    for p in single:
        t = time.perf_counter()
        tagger.tag(p)
        lat.append(time.perf_counter() - t)
    lat.sort()

    n_tags = [len(r) for r in results]
    leaves = []
    for r in results:
        slugs = {tag.slug for tag in r}
        leaves.append(
            sum(
                1
                for tag in r
                if not any(
                    tagger.hierarchy.parent[tagger.index.pos[s]] == tagger.index.pos[tag.slug]
                    for s in slugs
                )
            )
        )
    figures = {
        "items": len(papers),
        "distinct_ids": len({p.id for p in papers}),
        "topics": len(taxonomy),
        "taxonomy_version": taxonomy.version,
        "parse_s": round(parse_s, 2),
        "batch_s": round(batch_s, 2),
        "papers_per_s": round(len(papers) / batch_s, 1),
        "single_p50_ms": round(1000 * lat[len(lat) // 2], 2),
        "single_p95_ms": round(1000 * lat[int(len(lat) * 0.95)], 2),
        "cold_start_s": round(cold["total"], 2),
        "cold_start_wall_s": round(cold_wall, 2),
        "cold_import_s": round(cold["import"], 2),
        "cold_taxonomy_s": round(cold["taxonomy"], 2),
        "cold_build_s": round(cold["build"], 2),
        "cold_first_tag_s": round(cold["first_tag"], 3),
        "peak_rss_mb": round(rss_mb(), 1),
        "rss_before_tagger_mb": round(rss_before, 1),
        "mean_tags": round(sum(n_tags) / len(n_tags), 2),
        "share_ge3_tags": round(sum(1 for n in n_tags if n >= 3) / len(n_tags), 3),
        "share_no_tags": round(sum(1 for n in n_tags if n == 0) / len(n_tags), 3),
        "mean_specific_tags": round(sum(leaves) / len(leaves), 2),
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "stage": "refined" if args.refined else "fast",
        "model_version": tagger.model_version,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for key, value in figures.items():
            print(f"{key:24s} {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
