"""The tagger's labelled paper sets (gold = test, train = fitting) and their loader.

Files (see README.md in this folder): ``manifest.json`` lists every file of both sets in the
order they are read, each with its set, kind (``papers`` or ``labels``) and pass. Papers files
hold the papers; labels files hold ``{id, topics, acceptable, note}`` (a pooled pass adds
``rejected``: the topics it judged and found not to apply). The files are read fresh on every
call and labels merged by paper id, so another labelling pass adds a file and a manifest line
without touching the code. Only labelled papers belong to a set.

A third, ``weak``, is not judged: papers whose title names a topic (gzipped JSONL rows of paper
and ``topics``, made by ``topics.tagger.tools.weak_labels``), which only the supervised heads
learn from (:func:`load_weak`).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

EVAL_DIR = Path(__file__).resolve().parent
SETS = ("gold", "train")


@dataclass
class Label:
    topics: list[str] = field(default_factory=list)  # clearly applies (most specific)
    acceptable: list[str] = field(default_factory=list)  # defensible
    rejected: list[str] = field(default_factory=list)  # judged in a pooled pass: does not apply
    notes: list[str] = field(default_factory=list)


@dataclass
class EvalSet:
    name: str
    papers: list[dict]  # labelled papers, in file order
    labels: dict[str, Label]
    label_files: list[str]
    duplicate_ids: int = 0  # paper ids labelled in more than one line (merged)
    unlabelled: int = 0  # papers in the papers file without labels (not part of the set)
    orphan_labels: int = 0  # labels whose paper is missing from the papers file

    def gold(self, parents: Mapping[str, str | None]) -> tuple[list[set], list[set], list[str]]:
        """Per paper: strict gold and acceptable slugs expanded with ancestors (acceptable minus
        gold), and the list of label slugs not in ``parents`` (unknown to the taxonomy)."""
        from .metrics import expand, unknown_slugs

        golds, accs, unknown = [], [], []
        for paper in self.papers:
            label = self.labels[paper["id"]]
            unknown += unknown_slugs(label.topics, parents)
            unknown += unknown_slugs(label.acceptable, parents)
            g = expand(label.topics, parents)
            golds.append(g)
            accs.append(expand(label.acceptable, parents) - g)
        return golds, accs, unknown


def _read_jsonl(path: Path) -> list[dict]:
    rows = []
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path.name}:{number}: not JSON ({exc.msg})") from None
            if not isinstance(row, dict) or not row.get("id"):
                raise ValueError(f"{path.name}:{number}: each line needs an 'id'")
            rows.append(row)
    return rows


def _slug_list(value) -> list[str]:
    if not value:
        return []
    if isinstance(value, str):
        value = [value]
    return [str(v).strip() for v in value if str(v).strip()]


MANIFEST = "manifest.json"


def set_files(name: str, kind: str, folder: Path = EVAL_DIR) -> list[Path]:
    """The ``kind`` files (papers or labels) of set ``name``, in manifest order. A JSONL file
    under the set's folder that the manifest does not list is an error, not silently skipped."""
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    entries = manifest["files"]
    listed = {e["file"] for e in entries}
    stray = [
        p.relative_to(folder).as_posix()
        for p in sorted((folder / name).rglob("*.jsonl*"))
        if p.relative_to(folder).as_posix() not in listed
    ]
    if stray:
        raise ValueError(f"{MANIFEST} does not list {', '.join(stray)}")
    return [folder / e["file"] for e in entries if e["set"] == name and e["kind"] == kind]


def load_labels(name: str, folder: Path = EVAL_DIR) -> tuple[dict[str, Label], list[str], int]:
    """Labels of a set from its labels files (manifest order), merged by id: topics and
    acceptable are unioned; a slug that is a topic in any line is not acceptable."""
    files = set_files(name, "labels", folder)
    labels: dict[str, Label] = {}
    duplicates = 0
    for path in files:
        for row in _read_jsonl(path):
            pid = str(row["id"])
            label = labels.get(pid)
            if label is None:
                label = labels[pid] = Label()
            else:
                duplicates += 1
            for slug in _slug_list(row.get("topics")):
                if slug not in label.topics:
                    label.topics.append(slug)
            for slug in _slug_list(row.get("acceptable")):
                if slug not in label.acceptable:
                    label.acceptable.append(slug)
            for slug in _slug_list(row.get("rejected")):
                if slug not in label.rejected:
                    label.rejected.append(slug)
            if row.get("note"):
                label.notes.append(str(row["note"]))
    for label in labels.values():
        label.acceptable = [s for s in label.acceptable if s not in label.topics]
        # A later pass may find a rejected topic defensible after all: the kinder verdict wins.
        judged = set(label.topics) | set(label.acceptable)
        label.rejected = [s for s in label.rejected if s not in judged]
    return labels, [p.relative_to(folder).as_posix() for p in files], duplicates


def ids_in(paths: Iterable[Path]) -> set[str]:
    """The paper ids of JSONL files (a batch's papers, an earlier pool): each line's ``id``."""
    return {str(row["id"]) for path in paths for row in _read_jsonl(path)}


def load_set(name: str, folder: Path = EVAL_DIR) -> EvalSet:
    """The labelled papers of ``gold`` or ``train`` with their merged labels (read fresh)."""
    if name not in SETS:
        raise ValueError(f"unknown set {name!r}; expected one of {', '.join(SETS)}")
    all_papers = [row for path in set_files(name, "papers", folder) for row in _read_jsonl(path)]
    labels, files, duplicates = load_labels(name, folder)
    papers = [p for p in all_papers if str(p["id"]) in labels]
    ids = {str(p["id"]) for p in all_papers}
    return EvalSet(
        name=name,
        papers=papers,
        labels=labels,
        label_files=files,
        duplicate_ids=duplicates,
        unlabelled=len(all_papers) - len(papers),
        orphan_labels=sum(1 for pid in labels if pid not in ids),
    )


def load_weak(folder: Path = EVAL_DIR) -> tuple[list[dict], list[str]]:
    """The weak set's rows (``id``, paper fields, ``topics``) and its files, in manifest order."""
    files = set_files("weak", "weak-labels", folder)
    return [row for path in files for row in _read_jsonl(path)], [
        p.relative_to(folder).as_posix() for p in files
    ]
