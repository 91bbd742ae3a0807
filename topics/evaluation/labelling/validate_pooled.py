"""Check a pooled pass's verdicts against its pool (what the pooled-pass judges run after each
chunk).

    python3 validate_pooled.py POOL.jsonl VERDICTS.jsonl

Every line: ``{id, topics, acceptable, rejected, note}``; ids from the pool, each once; every
pooled topic of the paper (``to_judge``) in exactly one of the three lists, and nothing else.
"""

from __future__ import annotations

import json
import sys


def check(pool_path: str, verdicts_path: str) -> tuple[int, int, list[str], str | None]:
    with open(pool_path, encoding="utf-8") as fh:
        pool = [json.loads(line) for line in fh if line.strip()]
    pooled = {p["id"]: {t["slug"] for t in p["to_judge"]} for p in pool}
    seen: set[str] = set()
    problems: list[str] = []
    with open(verdicts_path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as exc:
                problems.append(f"line {n}: not JSON: {exc}")
                continue
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


def main() -> None:
    done, total, problems, todo = check(sys.argv[1], sys.argv[2])
    for problem in problems:
        print(problem)
    print(f"{done} of {total} pool papers judged, {len(problems)} problems; next: {todo}")


if __name__ == "__main__":
    main()
