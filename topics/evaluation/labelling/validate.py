"""Check a judge's file against its pool (what the labelling judges ran after each chunk).

    python3 validate.py POOL.jsonl LABELS.jsonl [TAXONOMY.txt]
    python3 validate.py --pooled POOL.jsonl VERDICTS.jsonl

A first reading: every line ``{id, topics, acceptable, note}``; ids from the pool, each once;
slugs from the taxonomy listing (``slug | Name | description`` lines, as
``/work/labelling/taxonomy.txt`` had, a tree by indentation); no topic listed with one of its
ancestors, no area among the clear topics.

A pooled pass (``--pooled``): every line ``{id, topics, acceptable, rejected, note}``; ids from
the pool, each once; every pooled topic of the paper (``to_judge``) in exactly one of the three
lists, and nothing else.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator


def read_rows(path: str, problems: list[str]) -> Iterator[tuple[int, dict]]:
    """(line number, object) of each non-blank line; a line that is not JSON is a problem."""
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                yield n, json.loads(line)
            except ValueError as exc:
                problems.append(f"line {n}: not JSON: {exc}")


def read_tree(taxonomy_path: str) -> dict[str, str | None]:
    """slug -> parent slug (None for an area) from the listing's indentation (two spaces a
    level)."""
    parents: dict[str, str | None] = {}
    path: list[str] = []
    with open(taxonomy_path, encoding="utf-8") as fh:
        for line in fh:
            if " | " not in line:
                continue
            depth = (len(line) - len(line.lstrip(" "))) // 2
            slug = line.split(" | ")[0].strip()
            del path[depth:]
            parents[slug] = path[-1] if path else None
            path.append(slug)
    return parents


def ancestors(slug: str, parents: dict[str, str | None]) -> set[str]:
    # Not topics.evaluation.metrics.ancestors: judges run this file alone with the system
    # python3, outside the project and its virtualenv.
    out = set()
    parent = parents.get(slug)
    while parent:
        out.add(parent)
        parent = parents.get(parent)
    return out


def check(pool_path: str, labels_path: str, taxonomy_path: str) -> tuple[int, int, list[str]]:
    parents = read_tree(taxonomy_path)
    slugs = set(parents)
    with open(pool_path, encoding="utf-8") as fh:
        pool_ids = [json.loads(line)["id"] for line in fh if line.strip()]
    seen: set[str] = set()
    problems: list[str] = []
    for n, row in read_rows(labels_path, problems):
        if row.get("id") not in pool_ids:
            problems.append(f"line {n}: id {row.get('id')!r} is not in the pool")
        if row.get("id") in seen:
            problems.append(f"line {n}: id {row['id']} labelled twice")
        seen.add(row.get("id"))
        for key in ("topics", "acceptable"):
            problems += [f"line {n}: {key}: unknown slug {s!r}" for s in row.get(key, [])
                         if s not in slugs]  # fmt: skip
        if set(row.get("topics", [])) & set(row.get("acceptable", [])):
            problems.append(f"line {n}: a slug is both clear and acceptable")
        listed = [s for key in ("topics", "acceptable") for s in row.get(key, []) if s in slugs]
        implied = sorted({a for s in listed for a in ancestors(s, parents)} & set(listed))
        if implied:  # the brief: ancestors of a listed topic are implied, never listed
            problems.append(f"line {n}: ancestors of another listed topic: {implied}")
        areas = sorted(s for s in row.get("topics", []) if s in slugs and parents[s] is None)
        if areas:
            problems.append(f"line {n}: an area is never a clear topic: {areas}")
        if not row.get("note"):
            problems.append(f"line {n}: no note")
    return len(seen), len(pool_ids), problems


def check_pooled(pool_path: str, verdicts_path: str) -> tuple[int, int, list[str], str | None]:
    with open(pool_path, encoding="utf-8") as fh:
        pool = [json.loads(line) for line in fh if line.strip()]
    pooled = {p["id"]: {t["slug"] for t in p["to_judge"]} for p in pool}
    seen: set[str] = set()
    problems: list[str] = []
    for n, row in read_rows(verdicts_path, problems):
        paper = row.get("id")
        if paper not in pooled:
            problems.append(f"line {n}: id {paper!r} is not in the pool")
            continue
        if paper in seen:
            problems.append(f"line {n}: id {paper} judged twice")
        seen.add(paper)
        given = [s for key in ("topics", "acceptable", "rejected") for s in row.get(key, [])]
        twice = sorted({s for s in given if given.count(s) > 1})
        missing = sorted(pooled[paper] - set(given))
        extra = sorted(set(given) - pooled[paper])
        if twice:
            problems.append(f"line {n} ({paper}): more than one verdict for {twice}")
        if missing:
            problems.append(f"line {n} ({paper}): no verdict for {missing}")
        if extra:
            problems.append(f"line {n} ({paper}): not pooled for this paper: {extra}")
    todo = next((p["id"] for p in pool if p["id"] not in seen), None)
    return len(seen), len(pool), problems, todo


if __name__ == "__main__":
    if sys.argv[1] == "--pooled":
        done, total, problems, todo = check_pooled(sys.argv[2], sys.argv[3])
        print("\n".join(problems))
        print(f"{done} of {total} pool papers judged, {len(problems)} problems; next: {todo}")
    else:
        taxonomy = sys.argv[3] if len(sys.argv) > 3 else "/work/labelling/taxonomy.txt"
        done, total, problems = check(sys.argv[1], sys.argv[2], taxonomy)
        print("\n".join(problems))
        print(f"{done} of {total} pool papers labelled, {len(problems)} problems")
