"""Write the taxonomy as the labelling judges read it: every topic as ``slug | Name | first
sentence of its description``, indented two spaces a level under its area (the tree
``topics/evaluation/labelling/validate.py`` checks ancestors against).

    .venv/bin/python -m topics.tagger.tools.taxonomy_listing --out /work/labelling/taxonomy.txt
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from topics.tagger import load_taxonomy_files

TAXONOMY_DIR = Path(__file__).resolve().parents[2] / "taxonomy"
_SENTENCE = re.compile(r"(.+?[.!?])(\s|$)")


def first_sentence(text: str) -> str:
    text = " ".join(text.split())
    match = _SENTENCE.match(text)
    return match.group(1) if match else text


def listing(topics) -> list[str]:
    """The lines, each area followed by its subtree (children in taxonomy order)."""
    children: dict[str | None, list] = {}
    for topic in topics:
        children.setdefault(topic.parent, []).append(topic)
    lines: list[str] = []

    def walk(topic, depth: int) -> None:
        lines.append(
            f"{'  ' * depth}{topic.slug} | {topic.name} | {first_sentence(topic.description)}"
        )
        for child in children.get(topic.slug, []):
            walk(child, depth + 1)

    for area in children.get(None, []):
        walk(area, 0)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    lines = listing(load_taxonomy_files(TAXONOMY_DIR).topics)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} topics written to {args.out}")


if __name__ == "__main__":
    main()
