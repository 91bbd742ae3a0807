"""Draw a new training batch from the recorded RSS corpus and write its judging pools.

Sampling (issue 13): every topic users already know (a names file such as TOPICS.md) gets up
to ``--per-topic`` candidate papers, then every other topic up to ``--per-other``, then papers
in crc32 order of their id fill the batch to ``--count``. A paper is a candidate of a topic
when the topic's name or an alias occurs in its title or abstract, or when the shipped tagger
ranks it among the paper's ``--top-k`` candidates; the judge decides, the sampler only looks.
Eligible: cs.LG ``new`` and ``cross`` announcements before the gold window (2025-05-19), in
neither labelled set.

Each pool line carries the paper and the top candidates of the shipped tagger and its fallback
(no scores), so a judge sees a shortlist and still chooses from the whole taxonomy.

    .venv/bin/python -m topics.tagger.tools.sample_for_labelling \
        --corpus ../shared/data/arxiv/rss/cs.LG_daily_2025H1_gz --names ../shared/TOPICS.md \
        --count 3000 --parts 6 --out /tmp/batch

Targeted top-up (batch h): only the known topics with fewer than ``--below`` clearly labelled
training papers (the topic or a descendant), each up to ``--per-topic`` candidates taken in
order of the shipped tagger's score for that topic (``--order score``: the likeliest first, so
the judges' reading yields the most clear labels), no other topic and no fill:

    .venv/bin/python -m topics.tagger.tools.sample_for_labelling \
        --corpus ../shared/data/arxiv/rss/cs.LG_daily_2025H1_gz --names ../shared/TOPICS.md \
        --below 25 --per-topic 30 --per-other 0 --order score --no-fill --top-k 10 \
        --count 2000 --parts 6 --out /tmp/batch-h

Batch j: the known topics still short of labels or weak in the topic audits (``--only``), their
candidates and order from the refined stage (``--refined``: its top 20 reach papers the fast
path's top 10 and the name matches, used up by batches h and i, do not):

    .venv/bin/python -m topics.tagger.tools.sample_for_labelling \
        --corpus ../shared/data/arxiv/rss/cs.LG_daily_2025H1_gz --names ../shared/TOPICS.md \
        --below 1000 --only SLUG,SLUG,... --per-topic 18 --per-other 0 --order score \
        --no-fill --top-k 20 --refined --count 820 --parts 6 --out /tmp/batch-j

A gold batch (``--gold``): test papers, so drawn and shown as the first gold papers were. The
eligible papers are the cs.LG-primary ``new`` announcements of the gold window (2025-05-19 ..
2025-06-27) in neither labelled set, taken in crc32 order of the id (no topic quotas: a test set
has the field's own mix), and the pools carry no candidates: the first reading is blind to the
tagger, whose tags a pooled pass judges afterwards (``pool_candidates``):

    .venv/bin/python -m topics.tagger.tools.sample_for_labelling \
        --corpus ../shared/data/arxiv/rss/cs.LG_daily_2025H1_gz --gold --count 240 --parts 6 \
        --out /tmp/gold-b
"""

from __future__ import annotations

import argparse
import re
import zlib
from collections import Counter, defaultdict
from datetime import date, timedelta
from pathlib import Path

import numpy as np

from topics.evaluation import ids_in, load_set
from topics.evaluation.metrics import Parents, expand
from topics.tagger import Tagger, load_taxonomy_files
from topics.tagger.contextual import ContextualEmbedder
from topics.tagger.tools.parts import write_parts
from topics.tagger.tools.rss_corpus import read_corpus

TAXONOMY_DIR = Path(__file__).resolve().parents[2] / "taxonomy"
GOLD_START = date(2025, 5, 19)
GOLD_END = date(2025, 6, 27)  # the gold window's last announcement day


def known_names(path: Path) -> set[str]:
    """Topic names of a TOPICS.md-style file: its last paragraph, one comma-separated list
    wrapped over lines. Read as a paragraph, not line by line: the list's last line may hold
    a single comma ("World Model Learning, World Models"), and the prose has commas too."""
    paragraphs = re.split(r"\n\s*\n", path.read_text(encoding="utf-8").strip())
    return {n.strip() for n in paragraphs[-1].replace("\n", " ").split(",") if n.strip()}


_WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> tuple[str, ...]:
    """Lower-case word tokens, a trailing plural "s" dropped (so "world models" meets "World
    Model")."""
    return tuple(
        w[:-1] if len(w) > 3 and w.endswith("s") else w for w in _WORD.findall(text.lower())
    )


def phrase_index(specs) -> dict[tuple[str, ...], set[str]]:
    """Each topic's name and aliases as word tuples -> the topics they name."""
    index: dict[tuple[str, ...], set[str]] = defaultdict(set)
    for slug, spec in specs.items():
        for phrase in (spec.name, *spec.aliases):
            key = words(phrase)
            if key and len(" ".join(key)) >= 4:
                index[key].add(slug)
    return index


def phrase_hits(text: str, index: dict, longest: int) -> set[str]:
    tokens = words(text)
    found: set[str] = set()
    for i in range(len(tokens)):
        for n in range(1, longest + 1):
            found |= index.get(tokens[i : i + n], set())
    return found


def clear_counts(labelled_set, parents: Parents) -> Counter[str]:
    """Per topic, the labelled papers where it or a descendant clearly applies."""
    counts: Counter[str] = Counter()
    for label in labelled_set.labels.values():
        counts.update(expand(label.topics, parents))
    return counts


def crc(paper_id: str) -> int:
    return zlib.crc32(paper_id.encode())


def pool_row(p, drawn_for: str, candidates: list[str]) -> dict:
    """One paper as a judge reads it (``announced``: the day before the capture file's date)."""
    return {
        "id": p.id,
        "title": p.title,
        "abstract": p.abstract,
        "categories": list(p.categories),
        "authors": list(p.authors),
        "announced": (p.file_date - timedelta(days=1)).isoformat(),
        "drawn_for": drawn_for,
        "candidates": candidates,
    }


def gold_batch(corpus: Path, taken: set[str], count: int) -> list[dict]:
    """The first ``count`` eligible gold-window papers in crc32 order, without candidates."""
    eligible = [
        p
        for p in read_corpus(corpus, announce_types=("new",))
        if p.id not in taken
        and p.abstract
        and p.categories[:1] == ("cs.LG",)
        and GOLD_START <= p.file_date - timedelta(days=1) <= GOLD_END
    ]
    print(f"{len(eligible)} eligible gold-window papers")
    chosen = sorted(eligible, key=lambda p: crc(p.id))[:count]
    return [pool_row(p, "gold:crc32", []) for p in chosen]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--names", type=Path, help="file of topic names users know (TOPICS.md)")
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--per-topic", type=int, default=30)
    parser.add_argument("--per-other", type=int, default=5)
    parser.add_argument("--top-k", type=int, default=5)
    parser.add_argument("--pool", type=int, default=20, help="candidates shown per scorer")
    parser.add_argument(
        "--below",
        type=int,
        default=0,
        help="draw only for known topics with fewer clear training labels than this (0: all)",
    )
    parser.add_argument(
        "--order",
        choices=("crc32", "score"),
        default="crc32",
        help="order of candidates: crc32 of the id, or the tagger's score (highest first)",
    )
    parser.add_argument("--no-fill", action="store_true", help="no crc32 fill up to --count")
    parser.add_argument(
        "--only", help="comma-separated slugs: draw for these known topics alone (with --below)"
    )
    parser.add_argument(
        "--refined",
        action="store_true",
        help="candidates and order from the refined stage's tagger (contextual encoder)",
    )
    parser.add_argument("--parts", type=int, default=6)
    parser.add_argument(
        "--exclude",
        type=Path,
        action="append",
        default=[],
        help="JSONL files whose ids are already taken (earlier batches)",
    )
    parser.add_argument(
        "--gold", action="store_true", help="a gold batch: the gold window, crc32, no candidates"
    )
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()

    taxonomy = load_taxonomy_files(TAXONOMY_DIR)
    specs = {t.slug: t for t in taxonomy.topics}
    by_name = {t.name: t.slug for t in taxonomy.topics}
    taken = {p["id"] for name in ("train", "gold") for p in load_set(name).papers}
    taken |= ids_in(args.exclude)
    if args.gold:
        pools = gold_batch(args.corpus, taken, args.count)
        write_parts(pools, args.out, args.parts, "pool_{n}.jsonl")
        print(f"{len(pools)} gold papers drawn")
        return
    papers = [
        p
        for p in read_corpus(args.corpus, end=GOLD_START, announce_types=("new", "cross"))
        if p.id not in taken and p.file_date <= GOLD_START and p.abstract
    ]
    print(f"{len(papers)} eligible papers")
    inputs = [
        {"id": p.id, "title": p.title, "abstract": p.abstract, "categories": list(p.categories)}
        for p in papers
    ]
    # The refined stage finds a rare topic's papers that the fast path's top candidates miss
    # (batch j: the corpus's name matches and fast top-10 were used up by batches h and i).
    context = ContextualEmbedder() if args.refined else None
    tagger = Tagger(taxonomy.topics, context=context)
    fallback = Tagger(taxonomy.topics, neighbours=[])

    topic_scores: dict[str, np.ndarray] = {}

    def ranked(t: Tagger) -> list[list[str]]:
        scores = t.coherent_scores(inputs)
        if t is tagger:
            topic_scores.update({slug: scores[:, j] for j, slug in enumerate(t.index.slugs)})
        out = []
        for row in scores:
            order = [j for j in (-row).argsort()[:80] if row[j] > 0]
            out.append([t.index.slugs[j] for j in order if not specs[t.index.slugs[j]].is_area])
        return out

    main_ranked, fallback_ranked = ranked(tagger), ranked(fallback)

    candidates: dict[str, list[int]] = defaultdict(list)
    index = phrase_index({slug: spec for slug, spec in specs.items() if not spec.is_area})
    longest = max(len(k) for k in index)
    for i, paper in enumerate(papers):
        hits = {s for s in main_ranked[i][: args.top_k]} | {s for s in fallback_ranked[i][:2]}
        hits |= phrase_hits(f"{paper.title} {paper.abstract}", index, longest)
        for slug in hits:
            candidates[slug].append(i)

    names = known_names(args.names) if args.names else set()
    known = {by_name[n] for n in names if n in by_name}
    missing = sorted(n for n in names if n not in by_name and len(n) < 60)
    if missing:
        print(f"names not in the taxonomy (ignored): {missing}")
    chosen: dict[int, str] = {}  # paper index -> why it was drawn

    if args.below:
        parents = {slug: spec.parent for slug, spec in specs.items()}
        labelled = clear_counts(load_set("train"), parents)
        known = {slug for slug in known if labelled[slug] < args.below}
        print(f"{len(known)} known topics with fewer than {args.below} clear labels")
    if args.only:
        known &= {s.strip() for s in args.only.split(",")}
        print(f"{len(known)} of them in --only")

    def order(slug: str, i: int) -> tuple[float, int]:
        score = -float(topic_scores[slug][i]) if args.order == "score" else 0.0
        return (score, crc(papers[i].id))

    def draw(slug: str, quota: int, why: str) -> None:
        have = sum(1 for i in candidates[slug] if i in chosen)
        for i in sorted(candidates[slug], key=lambda i: order(slug, i)):
            if have >= quota or len(chosen) >= args.count:
                return
            if i not in chosen:
                chosen[i] = why
                have += 1

    for slug in sorted(known):
        draw(slug, args.per_topic, f"known:{slug}")
    others = {s for s, spec in specs.items() if not spec.is_area} - known
    for slug in sorted(others):
        draw(slug, args.per_other, f"topic:{slug}")
    for i in sorted(range(len(papers)), key=lambda i: crc(papers[i].id)):
        if args.no_fill or len(chosen) >= args.count:
            break
        chosen.setdefault(i, "crc32")

    pools = []
    for i in sorted(chosen, key=lambda i: crc(papers[i].id)):
        p = papers[i]
        shown: list[str] = []
        for slug in main_ranked[i][: args.pool] + fallback_ranked[i][: args.pool]:
            if slug not in shown:
                shown.append(slug)
        pools.append(pool_row(p, chosen[i], [f"{s} ({specs[s].name})" for s in shown]))
    write_parts(pools, args.out, args.parts, "pool_{n}.jsonl")
    reasons: dict[str, int] = defaultdict(int)
    for why in chosen.values():
        reasons[why.split(":")[0]] += 1
    print(f"{len(pools)} papers drawn: {dict(reasons)}")
    short = [s for s in sorted(known) if len(candidates[s]) < args.per_topic]
    print(f"known topics with fewer than {args.per_topic} candidates: {short}")


if __name__ == "__main__":
    main()
