"""Check a judge's label file against its pool (what the labelling judges ran after each chunk).

    python3 validate.py POOL.jsonl LABELS.jsonl [TAXONOMY.txt]

Every line: ``{id, topics, acceptable, note}``; ids from the pool, each once; slugs from the
taxonomy listing (``slug | Name | description`` lines, as ``/work/labelling/taxonomy.txt`` had).
"""

from __future__ import annotations

import json
import sys


def check(pool_path: str, labels_path: str, taxonomy_path: str) -> tuple[int, int, list[str]]:
    with open(taxonomy_path, encoding="utf-8") as fh:
        slugs = {line.split(" | ")[0].strip() for line in fh if " | " in line}
    with open(pool_path, encoding="utf-8") as fh:
        pool_ids = [json.loads(line)["id"] for line in fh if line.strip()]
    seen: set[str] = set()
    problems: list[str] = []
    with open(labels_path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as exc:
                problems.append(f"line {n}: not JSON: {exc}")
                continue
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
            if not row.get("note"):
                problems.append(f"line {n}: no note")
    return len(seen), len(pool_ids), problems


if __name__ == "__main__":
    taxonomy = sys.argv[3] if len(sys.argv) > 3 else "/work/labelling/taxonomy.txt"
    done, total, problems = check(sys.argv[1], sys.argv[2], taxonomy)
    print("\n".join(problems))
    print(f"{done} of {total} pool papers labelled, {len(problems)} problems")
