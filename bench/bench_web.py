"""Server time of the topic, paper, lookup and search endpoints with 1,000,000 papers and 1,000
topics in PostgreSQL, measured in-process with Django's test Client (no network, no web server).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/paperscope_bench1m \
        .venv/bin/python bench/bench_web.py [--reuse] [--requests 40] [--rounds 5] [--per-query]

The database named in DATABASE_URL is dropped and generated afresh (PostgreSQL only; five to six
minutes on two cores, ~6 GB): the topic tree is the repository's taxonomy (topics/taxonomy/*.yaml,
or --taxonomy DIR; levels below the third folded into it) padded with synthetic subtopics to
--topics; papers get arXiv-style ids (2401.00001 ...), weekday announcement dates over two years,
categories, authors, and a title and a ~150-word abstract written from a fixed vocabulary plus the
keywords of their topics. Each paper carries one or two leaf topics with their ancestors (~3.8
tags), topic popularity is Zipf-like and drifts over time; weekly counts and momentum come from
the project's own topic_stats_recompute. Rows go in with psycopg's COPY (foreign keys and
triggers off for the load), secondary indexes are built afterwards. With --reuse a generated
database of the same size and seed is kept; migrations are still applied (and timed), then
VACUUM ANALYZE.

Every figure is wall time around Client.get/post in this process: URL routing, middleware,
throttling (the cache is REDIS_URL if set, else a file cache in a temporary folder), queries,
serialisation or template rendering. Requests come from a pool of 64 client addresses. "CPU ms"
is this process's CPU time (Django's side; PostgreSQL's is not in it), steadier than wall time
on a shared machine. The lookup is timed against the same 2,000 papers fetched one GET at a
time, side by side, for recent ids (like an arXiv listing) and for ids from the whole two years.
After a warm-up the script calls config.wsgi.freeze_loaded_app(), as the server does once its
app is loaded; --no-gc-freeze measures without it, for comparison.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode, urlsplit

from host import host_facts  # bench/host.py: the script's own folder is on sys.path

ROOT = Path(__file__).resolve().parent.parent
TAXONOMY_DIR = ROOT / "topics" / "taxonomy"
GENERATOR_VERSION = "2"  # 2: tags in chip order, own scores of implied ancestors, tags_json
MONTHS = 24
FIRST_MONTH = dt.date(2024, 1, 1)

TARGETS = {  # median server time, ms (issue 5)
    "topic detail API": 30,
    "topic page": 30,
    "lookup, 2,000 recent ids": 100,
    "lookup, 2,000 random ids": 100,
    "search API": 100,
    "search page": 100,
}

SEARCHES = [
    "learning",
    "diffusion models",
    "graph neural networks",
    "reinforcement learning from human feedback",
    '"large language models"',
    "protein structure prediction",
    "quantum error correction",
    "federated learning privacy",
    "sharpness",
    "xylophone tokenizer",
]


def words(text: str) -> list[str]:
    return text.split()


GENERIC = words(
    """
the of and a to in we for that is on with by this our as are from an which be can it these show
results model models method methods approach data learning performance propose proposed based using
paper task tasks training network networks both however while also than such their its or not more
new two each when into over between where through under across different existing small large
problem problems framework algorithm algorithms analysis theory study studies work works recent
experiments experimental evaluate evaluation benchmark benchmarks dataset datasets achieves achieve
state-of-the-art baseline baselines improve improves improved improvement significant significantly
efficient efficiency robust robustness scalable accuracy error bound bounds loss function functions
optimal optimization prior previous demonstrate demonstrates effective effectiveness simple general
setting settings empirical empirically real-world synthetic high low computational cost complexity
structure structures representation representations feature features input output parameters
parameter space time sample samples distribution distributions objective estimate estimation
prediction predictions predict inference generalization generalize capacity trade-off key novel
first further finally moreover specifically particular particularly important challenge challenges
address addresses limited limitations scale scaling size sizes number design designed module
components component architecture architectures layer layers attention mechanism signal noise
information global local level levels multiple single common standard directly provide provides
framework consistent consistency stable stability convergence rate rates theoretical guarantee
guarantees practical practice applications application domain domains source target transfer
adaptation policy agent environment reward graph nodes edges image images video text language
speech audio visual spatial temporal dynamics system systems control signals measurements physical
human users user interaction preference feedback quality diverse diversity open code available
release publicly extensive ablation ablations insight insights understanding mechanism regime
regimes phase behavior behaviour observe observed find found suggest suggests reveal reveals
highlight highlights outperforms outperform competitive comparable strong weak gap gaps simple
lightweight memory compute latency throughput hardware parallel distributed online offline batch
stochastic deterministic random noisy clean label labels supervised unsupervised self-supervised
pretrained pretraining fine-tuning downstream zero-shot few-shot context prompt prompts reasoning
"""
)

ADJECTIVES = words(
    "scalable efficient robust provable adaptive unified principled fast sparse hierarchical "
    "interpretable private calibrated consistent lightweight generalizable"
)
NOUNS = words("analysis benchmark framework study theory approach perspective method survey")
FIRST_NAMES = words(
    "Wei Li Anna Maria David Sara Jun Yuki Ahmed Fatima Lucas Emma Ivan Olga Chen Priya Rahul "
    "Sofia Mateo Elena Tom Nina Omar Lena Felix Hana Kenji Aisha Pablo Marta Jonas Mei Arjun "
    "Chloe Diego Irene Karim Leila Noah Ravi Tariq Ines Yan Zoe Sven Aiko Bruno Carla Dmitri"
)
LAST_NAMES = words(
    "Wang Zhang Liu Chen Smith Garcia Muller Rossi Kim Park Tanaka Sato Kumar Singh Silva Santos "
    "Novak Ivanov Cohen Levi Martin Bernard Dubois Jensen Nielsen Kowalski Nowak Costa Ferreira "
    "Ali Khan Hassan Yilmaz Demir Brown Taylor Wilson Lee Nguyen Tran Pham Huang Zhao Wu Yang"
)
INSTITUTIONS = [
    "MIT",
    "Stanford University",
    "Tsinghua University",
    "ETH Zurich",
    "University of Oxford",
    "Google DeepMind",
    "Meta AI",
    "University of Tokyo",
    "EPFL",
    "Carnegie Mellon University",
    "Max Planck Institute for Intelligent Systems",
    "University of Toronto",
    "KAIST",
    "Inria",
    "Peking University",
]
LICENSES = [
    "http://arxiv.org/licenses/nonexclusive-distrib/1.0/",
    "http://creativecommons.org/licenses/by/4.0/",
    "http://creativecommons.org/licenses/by-nc-sa/4.0/",
]
FALLBACK_CATEGORIES = ["cs.LG", "cs.AI", "cs.CL", "cs.CV", "stat.ML", "cs.RO", "cs.IR", "math.OC"]
ASPECTS = [
    "Theory",
    "Benchmarks",
    "Efficiency",
    "Robustness",
    "Applications",
    "Surveys",
    "Scaling",
    "Evaluation",
]


# --- The database ----------------------------------------------------------------------------


def admin_url(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return url.replace(parts.path, "/postgres"), parts.path.lstrip("/")


def recreate_database(url: str) -> None:
    import psycopg

    admin, name = admin_url(url)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def existing_meta(url: str) -> dict | None:
    """What an earlier run generated into this database, or None if it is not one of ours."""
    import psycopg

    admin, name = admin_url(url)
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            return None
    with psycopg.connect(url, autocommit=True) as conn:
        if not conn.execute("SELECT to_regclass('bench_meta')").fetchone()[0]:
            return None
        return json.loads(conn.execute("SELECT value FROM bench_meta").fetchone()[0])


def columns_of(conn, table: str) -> list[str]:
    """Columns COPY may write: generated columns are left out."""
    rows = conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = %s "
        "AND is_generated = 'NEVER' ORDER BY ordinal_position",
        [table],
    ).fetchall()
    return [r[0] for r in rows]


def secondary_indexes(conn, table: str) -> list[tuple[str, str]]:
    """Indexes that back no constraint: dropped before COPY and rebuilt after (much faster)."""
    return conn.execute(
        "SELECT i.relname, pg_get_indexdef(i.oid) FROM pg_index x "
        "JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid "
        "WHERE t.relname = %s AND NOT EXISTS "
        "(SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)",
        [table],
    ).fetchall()


# --- The topic tree ----------------------------------------------------------------------------


def read_taxonomy(folder: Path) -> list[dict]:
    """Nodes of the taxonomy files, parents first; [] if the files cannot be read."""
    try:
        import yaml

        nodes = []
        for path in sorted(folder.glob("*.yaml")):
            data = yaml.safe_load(path.read_text())
            area = dict(data["area"], parent=None)
            nodes.append(area)
            nodes.extend(dict(t) for t in data.get("topics") or [])
        return nodes
    except Exception as exc:  # any trouble: fall back to a synthetic tree
        print(f"taxonomy files unreadable ({exc}); using a synthetic tree")
        return []


def build_topics(count: int, taxonomy: Path) -> list[dict]:
    """`count` topics in three levels (area, topic, subtopic), ids 1..count, parents first."""
    raw = read_taxonomy(taxonomy)
    if not raw:
        for a in range(20):
            raw.append({"slug": f"area-{a}", "name": f"Area {a}", "parent": None, "code": f"A{a}"})
            for t in range(8):
                raw.append(
                    {"slug": f"area-{a}-{t}", "name": f"Topic {a}.{t}", "parent": f"area-{a}"}
                )
    by_slug = {n["slug"]: n for n in raw}

    def depth(node) -> int:
        return 0 if node.get("parent") is None else 1 + depth(by_slug[node["parent"]])

    def ancestor_at(node, level):
        while depth(node) > level:
            node = by_slug[node["parent"]]
        return node

    nodes = []
    for node in raw:
        d = depth(node)
        parent = None if d == 0 else ancestor_at(by_slug[node["parent"]], min(d - 1, 1))["slug"]
        nodes.append({**node, "parent": parent, "depth": min(d, 2)})
    nodes = nodes[:count] if len(nodes) > count else nodes
    seconds = [n for n in nodes if n["depth"] == 1]
    i = 0
    while len(nodes) < count:  # pad with subtopics "<topic>: <aspect>"
        parent = seconds[i % len(seconds)]
        aspect = ASPECTS[(i // len(seconds)) % len(ASPECTS)]
        words = (parent.get("keywords") or [parent["name"].lower()])[:3]
        nodes.append(
            {
                "slug": f"{parent['slug']}-{aspect.lower()}-{i}",
                "name": f"{parent['name']}: {aspect}",
                "parent": parent["slug"],
                "depth": 2,
                "description": f"{aspect} of {parent['name'].lower()}. "
                + (parent.get("description") or "")[:300],
                "aliases": [],
                "keywords": [f"{w} {aspect.lower()}" for w in words],
                "categories": parent.get("categories") or [],
            }
        )
        i += 1
    ids = {n["slug"]: k for k, n in enumerate(nodes, start=1)}
    for k, node in enumerate(nodes, start=1):
        node["id"] = k
        node["parent_id"] = ids[node["parent"]] if node["parent"] else None
        root = node
        while root["parent"]:
            root = nodes[ids[root["parent"]] - 1]
        node["area_id"] = root["id"]
        node["position"] = k
        phrases = [p for p in (node.get("keywords") or []) if isinstance(p, str)]
        phrases += [a for a in (node.get("aliases") or []) if isinstance(a, str)]
        node["phrases"] = phrases or [node["name"].lower()]
    has_children = {n["parent_id"] for n in nodes}
    for node in nodes:
        node["leaf"] = node["id"] not in has_children
    return nodes


# --- Papers --------------------------------------------------------------------------------------


def announcement_days(month: dt.date) -> list[dt.date]:
    days = []
    day = month
    while day.month == month.month:
        if day.weekday() < 5:
            days.append(day)
        day += dt.timedelta(days=1)
    return days


def month_start(index: int) -> dt.date:
    year, month = divmod(FIRST_MONTH.month - 1 + index, 12)
    return dt.date(FIRST_MONTH.year + year, month + 1, 1)


class Writer:
    """Titles and abstracts from a Zipf-weighted generic vocabulary and the topics' phrases."""

    def __init__(self, seed: int) -> None:
        import numpy as np

        self.np = np
        self.rng = np.random.default_rng(seed)
        self.rnd = random.Random(seed)
        self.vocab = np.array(GENERIC, dtype=object)
        ranks = np.arange(1, len(GENERIC) + 1)
        weights = 1.0 / (ranks + 2.0)
        self.p = weights / weights.sum()

    def generic(self, rows: int, words: int):
        return self.vocab[self.rng.choice(len(self.vocab), size=(rows, words), p=self.p)]

    def title(self, primary: dict, secondary: dict | None) -> str:
        r = self.rnd
        a = r.choice(primary["phrases"])
        b = r.choice(secondary["phrases"]) if secondary else r.choice(GENERIC[40:200])
        pattern = r.randrange(6)
        if pattern == 0:
            text = f"{a} for {b}"
        elif pattern == 1:
            text = f"{r.choice(ADJECTIVES)} {a} via {b}"
        elif pattern == 2:
            text = f"On the {r.choice(NOUNS)} of {a}"
        elif pattern == 3:
            text = f"{a}: a {r.choice(ADJECTIVES)} {r.choice(NOUNS)} with {b}"
        elif pattern == 4:
            text = f"Towards {r.choice(ADJECTIVES)} {a} in {b}"
        else:
            text = f"{a} meets {b}: {r.choice(NOUNS)} and {r.choice(NOUNS)}"
        return text[0].upper() + text[1:]

    def abstract(self, tokens, primary: dict, secondary: dict | None) -> str:
        r = self.rnd
        tokens = list(tokens)
        sentences = []
        start = 0
        first = True
        while start < len(tokens):
            length = r.randint(14, 24)
            words = tokens[start : start + length]
            start += length
            if first or r.random() < 0.55:
                words.insert(r.randrange(len(words) + 1), r.choice(primary["phrases"]))
            if secondary and r.random() < 0.3:
                words.insert(r.randrange(len(words) + 1), r.choice(secondary["phrases"]))
            if first:
                words.insert(0, primary["name"].lower())
                first = False
            text = " ".join(words)
            sentences.append(text[0].upper() + text[1:] + ".")
        return " ".join(sentences)


def authors_of(r: random.Random) -> tuple[list[str], list]:
    n = min(1 + int(r.expovariate(0.35)), 30)
    names = [f"{r.choice(FIRST_NAMES)} {r.choice(LAST_NAMES)}" for _ in range(n)]
    if r.random() < 0.5:
        return names, []
    return names, [r.choice(INSTITUTIONS) for _ in names]


def generate(url: str, *, papers: int, topic_count: int, seed: int, taxonomy: Path) -> dict:
    import numpy as np
    import psycopg

    started = time.perf_counter()
    rnd = random.Random(seed)
    rng = np.random.default_rng(seed)
    nodes = build_topics(topic_count, taxonomy)
    leaves = [n for n in nodes if n["leaf"]]
    by_id = {n["id"]: n for n in nodes}
    now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)

    # Leaf popularity: Zipf over a shuffled order, each with its own drift over the two years;
    # a few topics only appear in the second year (so "new" momentum exists too).
    order = list(range(len(leaves)))
    rnd.shuffle(order)
    base = np.array([1.0 / (order[i] + 10.0) for i in range(len(leaves))])
    drift = np.array([rnd.uniform(-0.8, 1.0) for _ in leaves])
    late = np.array([rnd.random() < 0.03 for _ in leaves])
    leaf_area = np.array([leaf["area_id"] for leaf in leaves])
    areas = sorted(set(leaf_area.tolist()))

    # Growth: later months have more papers, like arXiv.
    growth = np.linspace(0.85, 1.15, MONTHS)
    per_month = np.floor(papers * growth / growth.sum()).astype(int)
    per_month[-1] += papers - per_month.sum()

    writer = Writer(seed)
    with psycopg.connect(url) as conn:
        conn.execute("SET session_replication_role = replica")  # no FK checks or triggers
        paper_columns = columns_of(conn, "papers_paper")
        tag_columns = columns_of(conn, "topics_papertopic")
        topic_columns = columns_of(conn, "topics_topic")
        dropped = []
        for table in ("papers_paper", "topics_papertopic"):
            for name, definition in secondary_indexes(conn, table):
                conn.execute(f'DROP INDEX "{name}"')
                dropped.append((name, definition))
        with conn.cursor() as cur:
            with cur.copy(f"COPY topics_topic ({', '.join(topic_columns)}) FROM STDIN") as copy:
                for n in nodes:
                    row = {
                        "id": n["id"],
                        "slug": n["slug"],
                        "name": n["name"],
                        "code": n.get("code") or "",
                        "parent_id": n["parent_id"],
                        "area_id": n["area_id"],
                        "depth": n["depth"],
                        "position": n["position"],
                        "description": " ".join((n.get("description") or "").split()),
                        "aliases": json.dumps(n.get("aliases") or []),
                        "keywords": json.dumps(n.get("keywords") or []),
                        "categories": json.dumps(n.get("categories") or []),
                        "active": True,
                        "taxonomy_version": "bench",
                        "created_at": now,
                        "modified_at": now,
                    }
                    copy.write_row([row[c] for c in topic_columns])
            print(f"  topics: {len(nodes)} ({len(leaves)} leaves)")

            paper_id = 0
            tag_id = 0
            tag_total = 0
            chunk = 5000
            for m in range(MONTHS):
                month = month_start(m)
                days = announcement_days(month)
                n = int(per_month[m])
                t = m / (MONTHS - 1)
                weights = base * np.exp(drift * (t - 0.5) * 2.0) * np.where(late & (t < 0.5), 0, 1)
                p = weights / weights.sum()
                primary = rng.choice(len(leaves), size=n, p=p)
                second = rng.choice(len(leaves), size=n, p=p)
                same_area = rng.random(n) < 0.6
                for area in areas:  # most second topics come from the paper's own area
                    in_area = np.flatnonzero(leaf_area == area)
                    rows = np.flatnonzero(same_area & (leaf_area[primary] == area))
                    if len(rows) and len(in_area) > 1:
                        pa = p[in_area] / p[in_area].sum()
                        second[rows] = in_area[rng.choice(len(in_area), size=len(rows), p=pa)]
                has_second = (rng.random(n) < 0.45) & (second != primary)
                paper_rows = []
                tag_rows = []
                for start in range(0, n, chunk):
                    size = min(chunk, n - start)
                    generic = writer.generic(size, 125)
                    for k in range(size):
                        seq = start + k
                        paper_id += 1
                        lead = leaves[primary[seq]]
                        other = leaves[second[seq]] if has_second[seq] else None
                        paper, tags = one_paper(
                            writer,
                            generic[k],
                            paper_id=paper_id,
                            arxiv_id=f"{month:%y%m}.{seq + 1:05d}",
                            day=days[seq * len(days) // n],
                            topics=(lead, other),
                            by_id=by_id,
                            now=now,
                        )
                        paper_rows.append([paper[c] for c in paper_columns])
                        for tag in tags:
                            tag_id += 1
                            tag_rows.append([{**tag, "id": tag_id}[c] for c in tag_columns])
                tag_total += len(tag_rows)
                with cur.copy(f"COPY papers_paper ({', '.join(paper_columns)}) FROM STDIN") as copy:
                    for row in paper_rows:
                        copy.write_row(row)
                with cur.copy(
                    f"COPY topics_papertopic ({', '.join(tag_columns)}) FROM STDIN"
                ) as copy:
                    for tag in tag_rows:
                        copy.write_row(tag)
                conn.commit()
                elapsed = time.perf_counter() - started
                print(f"  {month:%Y-%m}: {paper_id:,} papers, {tag_total:,} tags, {elapsed:.0f} s")
        for table in ("papers_paper", "topics_papertopic", "topics_topic"):
            conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"(SELECT max(id) FROM {table}))"
            )
        conn.commit()
        conn.execute("SET maintenance_work_mem = '1GB'")
        for name, definition in dropped:
            t0 = time.perf_counter()
            conn.execute(definition)
            conn.commit()
            print(f"  index {name}: {time.perf_counter() - t0:.0f} s")
    return {"papers": paper_id, "tags": tag_total, "topics": len(nodes)}


def one_paper(writer, generic, *, paper_id, arxiv_id, day, topics, by_id, now) -> tuple:
    """One papers_paper row and its topics_papertopic rows (without ids), as dicts."""
    rnd = writer.rnd
    lead, other = topics
    cats = list(
        dict.fromkeys(
            (lead.get("categories") or [])[:2]
            + ((other.get("categories") or [])[:1] if other else [])
        )
    ) or [rnd.choice(FALLBACK_CATEGORIES)]
    names, affiliations = authors_of(rnd)
    submitted = dt.datetime.combine(
        day - dt.timedelta(days=rnd.randint(1, 3)),
        dt.time(rnd.randrange(24), rnd.randrange(60)),
        tzinfo=dt.UTC,
    )
    versions = [{"version": 1, "date": submitted.isoformat(), "size": "1mb"}]
    updated = None
    if rnd.random() < 0.25:
        updated = submitted + dt.timedelta(days=rnd.randint(5, 90))
        versions.append({"version": 2, "date": updated.isoformat(), "size": "1mb"})
    paper = {
        "id": paper_id,
        "arxiv_id": arxiv_id,
        "version": len(versions),
        "versions": json.dumps(versions),
        "title": writer.title(lead, other),
        "abstract": writer.abstract(generic, lead, other),
        "authors": json.dumps(names),
        "affiliations": json.dumps(affiliations),
        "primary_category": cats[0],
        "categories": " ".join(cats),
        "announced": day,
        "submitted": submitted,
        "updated": updated,
        "comments": f"{rnd.randint(6, 40)} pages" if rnd.random() < 0.6 else "",
        "journal_ref": "",
        "doi": "",
        "license": rnd.choice(LICENSES),
        "withdrawn": rnd.random() < 0.002,
        "tagged_at": now,
        "created_at": now,
        "modified_at": now,
    }
    placed = tags_for(lead, other, by_id, cats, rnd)
    tags = [
        {
            "paper_id": paper_id,
            "topic_id": topic_id,
            "score": score,
            "rank": rank,
            "source": "model",
            "evidence": json.dumps(evidence),
            "model_version": "bench-1",
            "created_at": now,
            "announced": day,  # the denormalised copy, where the column exists
            "shown": shown,
            "implied": implied,
        }
        for rank, (topic_id, score, evidence, shown, implied) in enumerate(placed, start=1)
    ]
    from topics.services.chips import tags_encode  # the service's own encoding of tags_json

    paper["tags_json"] = tags_encode(
        (
            by_id[t["topic_id"]]["slug"],
            by_id[t["topic_id"]]["name"],
            by_id[by_id[t["topic_id"]]["area_id"]]["slug"],
            t["score"],
            t["score"],  # confidence: the bench's tags have no chip order
            t["rank"],
            t["source"],
            t["shown"],
            t["implied"],
        )
        for t in tags
    )
    return paper, tags


def tags_for(lead: dict, other: dict | None, by_id: dict, cats: list[str], r: random.Random):
    """(topic_id, score, evidence, shown, implied) of one paper: its leaf topics and their
    ancestors, each with its own score (an ancestor below its child), in the chips' display
    order (topics.tagger.chips; the rank is the position)."""
    from topics.tagger.chips import ChipTag, chips_arrange

    chosen: dict[int, tuple[float, dict]] = {}
    for leaf, top in ((lead, r.uniform(0.55, 0.97)), (other, r.uniform(0.3, 0.7))):
        if leaf is None:
            continue
        phrases = r.sample(leaf["phrases"], min(len(leaf["phrases"]), r.randint(1, 3)))
        evidence = {
            "similarity": round(r.uniform(0.3, 0.8), 3),
            "similarity_keywords": round(r.uniform(0.2, 0.7), 3),
            "similarity_z": round(r.uniform(0.5, 4.0), 2),
            "phrases": [
                {
                    "text": ph,
                    "where": r.choice(["title", "abstract"]),
                    "kind": "keyword",
                    "count": 1,
                }
                for ph in phrases
            ],
        }
        shared = [c for c in cats if c in (leaf.get("categories") or [])]
        if shared:
            evidence["categories"] = shared
        chosen.setdefault(leaf["id"], (round(top, 4), evidence))
        node = leaf
        while node["parent_id"]:
            child, node = node, by_id[node["parent_id"]]
            own = round(top * r.uniform(0.4, 0.9), 4)
            implied = {"similarity": round(r.uniform(0.2, 0.6), 3), "implied_by": child["slug"]}
            if node["id"] not in chosen or chosen[node["id"]][0] < own:
                chosen[node["id"]] = (own, implied)

    def ancestors(topic_id: int) -> tuple[int, ...]:
        chain, parent = [], by_id[topic_id]["parent_id"]
        while parent:
            chain.append(parent)
            parent = by_id[parent]["parent_id"]
        return tuple(chain)

    placed = chips_arrange(
        [
            ChipTag(t, ancestors(t), not by_id[t]["parent_id"], score, by_id[t]["depth"])
            for t, (score, _) in chosen.items()
        ]
    )
    return [(p.key, *chosen[p.key], p.shown, p.implied) for p in placed]


# --- Measuring -----------------------------------------------------------------------------------


class Bench:
    def __init__(self, client) -> None:
        self.client = client
        self.n = 0
        self.cpu = 0.0  # this process's CPU time of the last request, ms

    def _addr(self) -> str:
        self.n += 1
        return f"10.0.{self.n % 64}.1"

    def get(self, path: str) -> float:
        c0, t0 = time.process_time(), time.perf_counter()
        response = self.client.get(path, REMOTE_ADDR=self._addr())
        elapsed = (time.perf_counter() - t0) * 1000
        self.cpu = (time.process_time() - c0) * 1000
        if response.status_code != 200:
            raise SystemExit(f"GET {path}: {response.status_code} {response.content[:300]!r}")
        return elapsed

    def post(self, path: str, body: dict) -> tuple[float, dict]:
        data = json.dumps(body)
        c0, t0 = time.process_time(), time.perf_counter()
        response = self.client.post(
            path, data=data, content_type="application/json", REMOTE_ADDR=self._addr()
        )
        elapsed = (time.perf_counter() - t0) * 1000
        self.cpu = (time.process_time() - c0) * 1000
        if response.status_code != 200:
            raise SystemExit(f"POST {path}: {response.status_code} {response.content[:300]!r}")
        return elapsed, response.json()

    def queries(self, path: str, body: dict | None = None) -> int:
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as ctx:
            if body is None:
                self.get(path)
            else:
                self.post(path, body)
        return len(ctx)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def arxiv_ids(pks) -> list[str]:
    from papers.models import Paper

    return list(Paper.objects.filter(id__in=pks).values_list("arxiv_id", flat=True))


def lookup_rows(bench: Bench, label: str, pool, *, rounds: int, r: random.Random) -> list[dict]:
    """The 2,000-id lookup and the same 2,000 papers one GET at a time, side by side, `rounds`
    times with fresh ids each time."""
    lookups, singles, lookup_cpu, single_cpu = [], [], [], []
    for round_no in range(rounds):
        k = min(2000, len(pool))  # a small --papers database has fewer recent papers
        ids = arxiv_ids(r.sample(pool, k))
        if round_no == 0:
            bench.post("/api/v1/papers/lookup", {"ids": arxiv_ids(r.sample(pool, k))})
        elapsed, body = bench.post("/api/v1/papers/lookup", {"ids": ids})
        assert len(body["papers"]) == len(ids), "lookup lost papers"
        lookups.append(elapsed)
        lookup_cpu.append(bench.cpu)
        total = cpu = 0.0
        for arxiv_id in ids:
            total += bench.get(f"/api/v1/papers/{arxiv_id}")
            cpu += bench.cpu
        singles.append(total)
        single_cpu.append(cpu)
        print(f"  lookup {label} {round_no + 1}: {lookups[-1]:.0f} ms vs {singles[-1]:.0f} ms")
    ratio = statistics.median(singles) / statistics.median(lookups)
    return [
        {
            "name": f"lookup, 2,000 {label} ids",
            "n": len(lookups),
            "median": statistics.median(lookups),
            "p95": pct(lookups, 0.95),
            "max": max(lookups),
            "cpu": statistics.median(lookup_cpu),
            "queries": bench.queries("/api/v1/papers/lookup", {"ids": ids}),
            "note": ID_NOTES[label],
        },
        {
            "name": f"2,000 single GETs, {label} ids",
            "n": len(singles),
            "median": statistics.median(singles),
            "p95": pct(singles, 0.95),
            "max": max(singles),
            "cpu": statistics.median(single_cpu),
            "queries": bench.queries(f"/api/v1/papers/{ids[0]}") * len(ids),
            "note": f"the same papers one by one; the lookup is {ratio:.0f}x faster",
        },
    ]


def lookup_ab_rows(bench: Bench, label: str, pool, *, rounds: int, r: random.Random) -> list[dict]:
    """The 2,000-id lookup answered by the old code path (bench/lookup_legacy.py, before
    Paper.tags_json) and the current one alternately, on the same fresh ids each round; which
    goes first alternates too, so neither always meets the colder cache."""
    import lookup_legacy

    from papers.apis import PaperLookupApi

    paths = {"old": lookup_legacy.post, "new": PaperLookupApi.post}
    times: dict[str, list[float]] = {"old": [], "new": []}
    cpu: dict[str, list[float]] = {"old": [], "new": []}
    try:
        for round_no in range(rounds):
            ids = arxiv_ids(r.sample(pool, min(2000, len(pool))))
            answers = {}
            for name in ("old", "new") if round_no % 2 == 0 else ("new", "old"):
                PaperLookupApi.post = paths[name]
                elapsed, answers[name] = bench.post("/api/v1/papers/lookup", {"ids": ids})
                times[name].append(elapsed)
                cpu[name].append(bench.cpu)
            old, new = answers["old"]["papers"], answers["new"]["papers"]
            assert len(new) == len(ids), "lookup lost papers"
            flags = ("shown", "implied")
            assert old == [
                {**p, "tags": [{k: v for k, v in t.items() if k not in flags} for t in p["tags"]]}
                for p in new
            ], "the two paths disagree"
            print(f"  lookup {label} {round_no + 1}: old {times['old'][-1]:.0f} ms, "
                  f"new {times['new'][-1]:.0f} ms")  # fmt: skip
    finally:
        PaperLookupApi.post = paths["new"]
    ratio = statistics.median(times["old"]) / statistics.median(times["new"])
    return [
        {
            "name": f"lookup, 2,000 {label} ids, {name}",
            "n": len(times[name]),
            "median": statistics.median(times[name]),
            "p95": pct(times[name], 0.95),
            "max": max(times[name]),
            "cpu": statistics.median(cpu[name]),
            "queries": "",
            "note": ID_NOTES[label]
            + ("; before Paper.tags_json" if name == "old" else f"; {ratio:.1f}x faster than old"),
        }
        for name in ("old", "new")
    ]


ID_NOTES = {
    "recent": "2,000 of the papers announced in the last two weeks, like an arXiv listing",
    "random": "2,000 papers from anywhere in the two years",
}


def measure(args) -> list[dict]:
    from django.test import Client

    from papers.models import Paper
    from topics.models import Topic

    bench = Bench(Client())
    r = random.Random(args.seed + 1)
    slugs = list(Topic.objects.filter(active=True).values_list("slug", flat=True))
    max_id = Paper.objects.order_by("-id").values_list("id", flat=True).first()

    def random_ids(k: int) -> list[str]:
        return arxiv_ids(r.sample(range(1, max_id + 1), k))

    rows = []

    def run(name: str, paths: list[str], note: str = "") -> None:
        if args.only and not any(o in name for o in args.only):
            return
        for path in paths[:3]:  # warm-up
            bench.get(path)
        times, cpu = [], []
        for path in paths:
            times.append(bench.get(path))
            cpu.append(bench.cpu)
        rows.append(
            {
                "name": name,
                "n": len(times),
                "median": statistics.median(times),
                "p95": pct(times, 0.95),
                "max": max(times),
                "cpu": statistics.median(cpu),
                "queries": bench.queries(paths[0]),
                "note": note,
            }
        )
        print(f"  {name}: median {rows[-1]['median']:.1f} ms")

    n = args.requests
    topics = [r.choice(slugs) for _ in range(n)]
    run("topic detail API", [f"/api/v1/topics/{s}" for s in topics], "random topics")
    run("topic page", [f"/topics/{s}/" for s in topics], "same topics, anonymous")
    run("topic papers API", [f"/api/v1/topics/{s}/papers" for s in topics], "first page of 25")
    run("paper detail API", [f"/api/v1/papers/{i}" for i in random_ids(n)], "random papers")
    searches = [SEARCHES[k % len(SEARCHES)] for k in range(args.search_requests)]
    run(
        "search API",
        [f"/api/v1/papers?{urlencode({'q': q})}" for q in searches],
        f"{len(SEARCHES)} queries in turn",
    )
    run("search page", [f"/search/?{urlencode({'q': q})}" for q in searches], "same queries")

    if not args.only or any("lookup" in o for o in args.only):
        latest = Paper.objects.order_by("-announced").values_list("announced", flat=True)[0]
        recent = list(
            Paper.objects.filter(announced__gt=latest - dt.timedelta(days=14)).values_list(
                "id", flat=True
            )
        )
        for label, pool in (("recent", recent), ("random", range(1, max_id + 1))):
            if args.lookup_ab:
                rows.extend(lookup_ab_rows(bench, label, pool, rounds=args.rounds, r=r))
            else:
                rows.extend(lookup_rows(bench, label, pool, rounds=args.rounds, r=r))
    if args.per_query:
        from papers.search import search_filter

        for q in SEARCHES:
            matches = search_filter(Paper.objects.all(), q).count()
            times = [bench.get(f"/api/v1/papers?{urlencode({'q': q})}") for _ in range(3)]
            page = [bench.get(f"/search/?{urlencode({'q': q})}") for _ in range(3)]
            print(
                f"  {q!r:45} {matches:>8,} papers   API {statistics.median(times):6.1f} ms   "
                f"page {statistics.median(page):6.1f} ms"
            )
    return rows


def freeze_after_warm_up() -> None:
    """What the server does once its app is loaded (config.wsgi.freeze_loaded_app): a full
    collection then skips the ~120,000 objects of Django and the app instead of walking them."""
    from django.test import Client

    from config.wsgi import freeze_loaded_app
    from papers.models import Paper
    from topics.models import Topic

    client = Client()
    slug = Topic.objects.values_list("slug", flat=True).first()
    ids = list(Paper.objects.values_list("arxiv_id", flat=True)[:50])
    for path in (f"/topics/{slug}/", f"/api/v1/topics/{slug}", "/search/?q=learning"):
        client.get(path)
    client.post("/api/v1/papers/lookup", {"ids": ids}, content_type="application/json")
    print(f"gc.freeze(): {freeze_loaded_app():,} objects left out of collections")


def print_table(rows: list[dict]) -> None:
    print()
    print("| request | n | median ms | p95 ms | max ms | CPU ms | queries | target |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for row in rows:
        target = TARGETS.get(row["name"])
        verdict = "" if target is None else ("ok" if row["median"] < target else "**over**")
        print(
            f"| {row['name']} ({row['note']}) | {row['n']} | {row['median']:.1f} | "
            f"{row['p95']:.1f} | {row['max']:.1f} | {row['cpu']:.1f} | {row['queries']} | "
            f"{f'< {target} ms: {verdict}' if target else ''} |"
        )
    print("\nCPU ms: median CPU time of this process (Django's side; PostgreSQL's is not in it).")


def machine() -> str:
    facts = host_facts(os.environ["DATABASE_URL"])
    load = facts["load_average"]
    return (
        f"{facts['cpus']} CPUs ({facts['cpu']}), load average {load[0]:.1f}/{load[1]:.1f}/"
        f"{load[2]:.1f}, Python {facts['python']}, PostgreSQL {facts['postgresql']}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=1_000_000)
    parser.add_argument("--topics", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--reuse", action="store_true", help="keep a generated database")
    parser.add_argument("--taxonomy", type=Path, default=TAXONOMY_DIR, help="topic YAML folder")
    parser.add_argument("--requests", type=int, default=40, help="requests per endpoint")
    parser.add_argument("--search-requests", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5, help="lookup vs singles rounds")
    parser.add_argument("--only", type=lambda s: s.split(","), default=None)
    parser.add_argument("--per-query", action="store_true", help="also time each search")
    parser.add_argument("--json", type=Path, help="write the rows here as JSON")
    parser.add_argument(
        "--lookup-ab",
        action="store_true",
        help="lookup only: the old (bench/lookup_legacy.py) and new code paths alternately",
    )
    parser.add_argument(
        "--no-gc-freeze",
        dest="gc_freeze",
        action="store_false",
        help="skip gc.freeze() after warm-up (the server does freeze; this is for comparison)",
    )
    args = parser.parse_args()
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        print("set DATABASE_URL to a PostgreSQL database this script may drop and recreate")
        return 2

    wanted = {"papers": args.papers, "topics": args.topics, "seed": args.seed}
    wanted["generator"] = GENERATOR_VERSION
    meta = existing_meta(url) if args.reuse else None
    fresh = not meta or any(meta.get(k) != v for k, v in wanted.items())
    if fresh:
        if args.reuse:
            print("no generated database of this size and seed to reuse: generating")
        recreate_database(url)

    data_dir = tempfile.mkdtemp(prefix="paperscope-bench-web-")
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.base"
    os.environ["DEBUG"] = "0"
    os.environ["SECRET_KEY"] = "bench-only-" + "w" * 40
    os.environ["ALLOWED_HOSTS"] = "testserver"
    os.environ["PAPERSCOPE_DATA_DIR"] = data_dir
    os.environ["ARXIV_FETCH_ON_DEMAND"] = "0"
    os.environ["THROTTLE_ANON"] = "1000000/min"
    os.environ["THROTTLE_USER"] = "1000000/min"
    Path(data_dir, "static").mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    t0 = time.perf_counter()
    call_command("migrate", verbosity=0)
    print(f"migrate: {time.perf_counter() - t0:.1f} s")
    # The production settings serve static files from the manifest the release command writes.
    call_command("collectstatic", "--noinput", verbosity=0)
    if fresh:
        print(f"generating {args.papers:,} papers, {args.topics:,} topics (seed {args.seed})")
        t0 = time.perf_counter()
        counts = generate(
            url, papers=args.papers, topic_count=args.topics, seed=args.seed, taxonomy=args.taxonomy
        )
        print(f"  loaded in {time.perf_counter() - t0:.0f} s: {counts}")
        from topics.services.stats import topic_stats_recompute

        t0 = time.perf_counter()
        topic_stats_recompute()
        print(f"  topic_stats_recompute: {time.perf_counter() - t0:.0f} s")
        connection.close()
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            t0 = time.perf_counter()
            conn.execute("VACUUM ANALYZE")
            print(f"  VACUUM ANALYZE: {time.perf_counter() - t0:.0f} s")
            conn.execute("CREATE TABLE bench_meta (value text)")
            conn.execute("INSERT INTO bench_meta VALUES (%s)", [json.dumps({**wanted, **counts})])
    else:
        print(f"reusing {meta}")
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            t0 = time.perf_counter()
            conn.execute("VACUUM ANALYZE")  # what autovacuum would do after a new migration
            print(f"VACUUM ANALYZE: {time.perf_counter() - t0:.0f} s")

    import papers.apis

    reads = next(
        name
        for name in ("paper_lookup_json", "paper_lookup_rows", "papers_by_ids")
        if hasattr(papers.apis, name)
    )
    print(f"measuring ({machine()}); PaperLookupApi reads {reads}")
    if args.gc_freeze:
        freeze_after_warm_up()
    rows = measure(args)
    print_table(rows)
    print(f"\n{machine()}; cache: {'Redis' if os.environ.get('REDIS_URL') else 'file'}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
