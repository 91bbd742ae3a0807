"""Topic audits (issue 13, item 5): for each topic users know, the judging pools of its page on
the bundled sample, and the table from the judges' verdicts.

``pools``: tag the sample (``data/sample/rss``) with the shipped tagger; for each topic, the
newest 20 papers of its page (every paper carrying the topic, implied or not, as the topic page
lists them) and up to 15 papers that lack it but name it (name or alias in title or abstract)
or have it among their 10 best candidates, newest first. ``table``: precision of the page's
20 and recall estimated as tagged-and-right / (tagged-and-right + missed), where the page's
right papers are precision x page size and the missed ones are the pool's "yes" share x the
pool's full size. Each page paper records how it carries the topic (``carries``: one of its
chips, implied by a narrower tag, or a tag the chip order held back) and the tag's ``score``,
and ``table`` reports the judges' precision of each kind.

    .venv/bin/python -m topics.tagger.tools.audit_pools pools --names ../shared/TOPICS.md --out DIR
        [--refined] [--reuse OLD_VERDICTS_DIR ...]
    .venv/bin/python -m topics.tagger.tools.audit_pools table --pools DIR --verdicts DIR \
        [--held-back-below 0.5]   # what if held-back tags below 0.5 left the pages

A verdict says whether a topic applies to a paper, whatever tagger listed it, so a later audit
reuses the earlier ones: ``pools --reuse OLD_VERDICTS_DIR`` also writes ``DIR/todo/`` with only
the (topic, paper) pairs nobody judged yet, for the judges, and ``table`` takes several
``--verdicts`` folders.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

from topics.tagger import Tagger, load_taxonomy_files
from topics.tagger.contextual import ContextualEmbedder
from topics.tagger.tools.parts import write_parts
from topics.tagger.tools.rss_corpus import read_corpus
from topics.tagger.tools.sample_for_labelling import known_names, phrase_hits, phrase_index

ROOT = Path(__file__).resolve().parents[3]
TAXONOMY_DIR = ROOT / "topics" / "taxonomy"
SAMPLE_DIR = ROOT / "data" / "sample" / "rss"
PAGE, POOL = 20, 15
AUDIT_FILE = "audit_{n:02d}.jsonl"


def read_verdicts(folders: list[Path]) -> dict[tuple[str, str], str]:
    """(topic, paper id) -> "yes" / "no" from every ``verdicts_*.jsonl`` of the folders (a later
    folder's verdict wins)."""
    verdicts: dict[tuple[str, str], str] = {}
    for folder in folders:
        for path in sorted(folder.glob("verdicts_*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    row = json.loads(line)
                    verdicts[(row["topic"], row["id"])] = row["verdict"]
    return verdicts


def carried(tag) -> str:
    """How a page paper carries the topic: one of its chips, implied by a narrower tag, or a tag
    the chip order held back (on the page, not a chip)."""
    return "chip" if tag.shown else "implied" if tag.implied else "held back"


def pools(names: Path, out: Path, parts: int, reuse: list[Path], refined: bool = False) -> None:
    taxonomy = load_taxonomy_files(TAXONOMY_DIR)
    specs = {t.slug: t for t in taxonomy.topics}
    by_name = {t.name: t.slug for t in taxonomy.topics}
    known = sorted(by_name[n] for n in known_names(names) if n in by_name)
    papers = [p for p in read_corpus(SAMPLE_DIR) if p.abstract]
    papers.sort(key=lambda p: (p.file_date, p.id), reverse=True)  # newest first
    inputs = [
        {"id": p.id, "title": p.title, "abstract": p.abstract, "categories": list(p.categories)}
        for p in papers
    ]
    context = ContextualEmbedder() if refined else None  # the refined stage's tags
    tagger = Tagger(taxonomy.topics, context=context)
    print(f"tagger {tagger.model_version}, {len(inputs)} sample papers")
    if tagger.context is not None:  # encoded once for both passes below (a third of an hour)
        tagger.remember_context([str(p["id"]) for p in inputs], tagger.context_of(inputs))
    tags = [{t.slug: t for t in row} for row in tagger.tag_batch(inputs)]
    scores = tagger.coherent_scores(inputs)
    top10 = [{tagger.index.slugs[j] for j in (-row).argsort()[:10] if row[j] > 0} for row in scores]
    index = phrase_index({s: specs[s] for s in known})
    longest = max(len(k) for k in index)
    blocks: list[dict[str, Any]] = []
    for slug in known:
        page = [i for i, t in enumerate(tags) if slug in t]
        near = []
        for i, paper in enumerate(inputs):
            if slug in tags[i]:
                continue
            text = f"{paper['title']} {paper['abstract']}"
            if slug in top10[i] or slug in phrase_hits(text, index, longest):
                near.append(i)
        spec = specs[slug]
        blocks.append(
            {
                "topic": slug,
                "name": spec.name,
                "description": spec.description,
                "page_size": len(page),
                "pool_size": len(near),
                "papers": [
                    {
                        "id": inputs[i]["id"],
                        "kind": kind,
                        **(
                            {
                                "carries": carried(tags[i][slug]),
                                "score": round(tags[i][slug].score, 4),
                            }
                            if kind == "page"
                            else {}
                        ),
                        "title": inputs[i]["title"],
                        "abstract": inputs[i]["abstract"],
                    }  # fmt: skip
                    for kind, chosen in (("page", page[:PAGE]), ("pool", near[:POOL]))
                    for i in chosen
                ],
            }
        )
    write_parts(blocks, out, parts, AUDIT_FILE)
    print(f"{len(blocks)} topics, {sum(len(b['papers']) for b in blocks)} papers to judge")
    if reuse:
        judged = read_verdicts(reuse)
        todo = unjudged(blocks, judged)
        write_parts(todo, out / "todo", parts, AUDIT_FILE)
        print(f"{sum(len(b['papers']) for b in todo)} of them not judged before ({out / 'todo'})")


BLIND = ("carries", "score")  # what the judges must not see


def unjudged(blocks: list[dict[str, Any]], judged) -> list[dict[str, Any]]:
    """The blocks' (topic, paper) pairs not in ``judged``, as the judges read them: blind to
    how the tagger carries the topic and how sure it is (no ``carries``, no ``score``); blocks
    left with no paper are dropped."""
    todo = []
    for block in blocks:
        papers = [
            {k: v for k, v in p.items() if k not in BLIND}
            for p in block["papers"]
            if (block["topic"], p["id"]) not in judged
        ]
        if papers:
            todo.append({**block, "papers": papers})
    return todo


def leaves_page(paper: dict[str, Any], held_back_below: float | None) -> bool:
    """Whether a judged page paper would leave the page under the rule "a tag the chip order
    held back stays on the page only from ``held_back_below``" (None: every tag stays)."""
    return (
        held_back_below is not None
        and paper.get("carries") == "held back"
        and paper.get("score", 1.0) < held_back_below
    )


def table(pool_dir: Path, verdict_dirs: list[Path], held_back_below: float | None = None) -> None:
    """The audit table. With ``held_back_below``, the figures pages would have if held-back
    tags scoring below it left them: the judged page papers that leave are dropped from the
    precision, the page shrinks by the same share, and the right ones among them count as
    missed in the recall, as the pool's right papers do."""
    blocks = {}
    for path in sorted(pool_dir.glob("audit_*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            block = json.loads(line)
            blocks[block["topic"]] = block
    verdicts = read_verdicts(verdict_dirs)
    rows, precisions, recalls = [], [], []
    by_carries: dict[str, list[int]] = {}  # how the page carries the topic -> [right, judged]
    for slug, block in sorted(blocks.items()):
        page = [p for p in block["papers"] if p["kind"] == "page"]
        pool = [p for p in block["papers"] if p["kind"] == "pool"]
        judged_page = [verdicts.get((slug, p["id"])) for p in page]
        judged_pool = [verdicts.get((slug, p["id"])) for p in pool]
        if None in judged_page or None in judged_pool:
            continue
        for paper, verdict in zip(page, judged_page, strict=True):
            if "carries" in paper:  # pools made before it was recorded have none
                count = by_carries.setdefault(paper["carries"], [0, 0])
                count[0] += verdict == "yes"
                count[1] += 1
        gone = [leaves_page(p, held_back_below) for p in page]
        kept = [v for v, g in zip(judged_page, gone, strict=True) if not g]
        right = sum(v == "yes" for v in kept)
        left_right = sum(v == "yes" for v, g in zip(judged_page, gone, strict=True) if g)
        precision = right / len(kept) if kept else None
        missed_share = sum(v == "yes" for v in judged_pool) / len(pool) if pool else 0.0
        stands_for = block["page_size"] / len(page) if page else 0.0  # page papers per judged one
        tagged_right = right * stands_for
        missed = missed_share * block["pool_size"] + left_right * stands_for
        recall = tagged_right / (tagged_right + missed) if tagged_right + missed else None
        if precision is not None:
            precisions.append(precision)
        if recall is not None:
            recalls.append(recall)
        rows.append((block["name"], round(len(kept) * stands_for), len(kept), precision,
                     block["pool_size"], len(pool), missed_share, recall))  # fmt: skip
    print(
        "| topic | page papers | judged | precision | pool | judged | pool right | recall (est.) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")

    def f(x):
        return "-" if x is None else f"{x:.2f}"

    for name, size, n_page, p, pool_size, n_pool, share, r in rows:
        cells = [name, size, n_page, f(p), pool_size, n_pool, f(share), f(r)]
        print("| " + " | ".join(str(c) for c in cells) + " |")
    print(
        f"\n{len(rows)} topics judged; median precision {statistics.median(precisions):.2f} "
        f"({len(precisions)} topics with papers), median recall {statistics.median(recalls):.2f} "
        f"({len(recalls)} topics)"
    )
    if by_carries:
        print(
            "judged page papers by how they carry the topic: "
            + "; ".join(
                f"{k} {r} of {n} right ({r / n:.2f})" for k, (r, n) in sorted(by_carries.items())
            )
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    p = sub.add_parser("pools")
    p.add_argument("--names", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--parts", type=int, default=8)
    p.add_argument("--reuse", type=Path, action="append", default=[], help="earlier verdicts")
    p.add_argument("--refined", action="store_true", help="the refined stage's tagger")
    t = sub.add_parser("table")
    t.add_argument("--pools", type=Path, required=True)
    t.add_argument("--verdicts", type=Path, action="append", required=True)
    t.add_argument(
        "--held-back-below",
        type=float,
        help="what if held-back tags scoring below this left the pages (pools with scores)",
    )
    args = parser.parse_args()
    if args.step == "pools":
        pools(args.names, args.out, args.parts, args.reuse, args.refined)
    else:
        table(args.pools, args.verdicts, args.held_back_below)


if __name__ == "__main__":
    main()
