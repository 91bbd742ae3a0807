"""The judges' input files: rows split into ``parts`` files of (nearly) equal size."""

from __future__ import annotations

import json
from pathlib import Path


def write_parts(rows: list[dict], out: Path, parts: int, name: str) -> None:
    """``rows`` in order over ``parts`` files ``out / name.format(n=1 ...)``, one JSON object a
    line; the last files may be shorter (or empty)."""
    out.mkdir(parents=True, exist_ok=True)
    size = -(-len(rows) // parts)
    for n in range(parts):
        with open(out / name.format(n=n + 1), "w", encoding="utf-8") as fh:
            for row in rows[n * size : (n + 1) * size]:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
