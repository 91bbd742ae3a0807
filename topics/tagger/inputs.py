"""The tagger's inputs and outputs, without the engine: a paper as the tagger reads it
(:class:`PaperInput`), one emitted tag (:class:`Tag`), and the shipped labelled papers its kNN
reads, with their cached vectors; category priors; the unknown-topic error."""

from __future__ import annotations

import base64
import gzip
import json
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .chips import tag_confidence

NEIGHBOURS_PATH = Path(__file__).resolve().parent / "model" / "labelled_papers.jsonl.gz"


def encode_vector(vec: np.ndarray) -> str:
    """A paper vector as base64 float16 (for the labelled-papers file)."""
    return base64.b64encode(np.asarray(vec, dtype="<f2").tobytes()).decode("ascii")


def decode_vector(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype="<f2")


def load_labelled_papers(path: str | Path | None = None) -> list[tuple[dict, list[str]]]:
    """The labelled papers shipped for kNN (``model/labelled_papers.jsonl.gz``, written by
    ``manage.py fit_tagger`` from the training set): ``[(paper dict, topic slugs), ...]``;
    [] when the file is absent. A paper dict may carry its cached vector (``vec``, float16 in
    base64, valid for the embedding pipeline named by ``embedding``)."""
    path = Path(path) if path is not None else NEIGHBOURS_PATH
    if not path.is_file():
        return []
    out = []
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                out.append((row, list(row.get("topics") or ())))
    return out


def _str_tuple(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    try:
        return tuple(str(v).strip() for v in value if v is not None and str(v).strip())
    except TypeError:
        return ()


@dataclass(frozen=True)
class PaperInput:
    id: str
    title: str
    abstract: str = ""
    categories: tuple[str, ...] = ()  # primary first
    authors: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "id", "" if self.id is None else str(self.id))
        for name in ("title", "abstract"):
            value = getattr(self, name)
            object.__setattr__(self, name, value if isinstance(value, str) else str(value or ""))
        object.__setattr__(self, "categories", _str_tuple(self.categories))
        authors = self.authors
        if isinstance(authors, str):
            authors = authors.split(",")
        object.__setattr__(self, "authors", _str_tuple(authors) if authors else ())

    @classmethod
    def coerce(cls, value: Any) -> PaperInput:
        """A PaperInput from itself, a mapping with the same keys, or anything with attributes."""
        if isinstance(value, cls):
            return value
        if isinstance(value, Mapping):
            get = value.get
        else:

            def get(key, default=None):
                return getattr(value, key, default)

        authors = get("authors", ()) or ()
        if authors and not isinstance(authors, str):
            authors = [a.get("name", "") if isinstance(a, Mapping) else a for a in authors]
        return cls(
            id=get("arxiv_id", "") or get("id", "") or "",
            title=get("title", "") or "",
            abstract=get("abstract", "") or "",
            categories=get("categories", ()) or (),
            authors=authors,  # type: ignore[arg-type]  # __post_init__ normalises it
        )


@dataclass(frozen=True)
class Tag:
    slug: str
    name: str
    # The topic's own calibrated score, 0..1. An implied ancestor keeps its own (often lower)
    # score: it was selected because of its child, and copying the child's score would claim
    # a confidence the model never gave it.
    score: float
    rank: int  # 1 = first in display order (chips.chips_arrange)
    evidence: dict = field(default_factory=dict, compare=False)
    shown: bool = False  # one of the paper's chips
    implied: bool = False  # an ancestor of another of the paper's tags
    # For a chip (the paper's best specific tags): the chip-order model's P(right), which orders
    # the chips (topics.tagger.chip_order); None: no model, the chips are in score order.
    chip_order: float | None = None

    @property
    def confidence(self) -> float:
        """How likely the tag is right, as a reader sees it (chips.tag_confidence)."""
        return tag_confidence(self.score, self.chip_order)

    def as_dict(self) -> dict:
        return {
            "slug": self.slug,
            "name": self.name,
            "score": self.score,
            "rank": self.rank,
            "shown": self.shown,
            "implied": self.implied,
            "chip_order": self.chip_order,
            "confidence": self.confidence,
            "evidence": self.evidence,
        }


@dataclass
class Priors:
    """P(topic | primary arXiv category) from tagged papers, as a smoothed log-lift per topic."""

    lift: dict[str, dict[str, float]]

    @classmethod
    def estimate(
        cls, tagged: Iterable[tuple[Sequence[str], Iterable[str]]], *, smoothing: float = 20.0
    ) -> Priors:
        """From ``(categories, slugs)`` of tagged papers (confirmed tags are best)."""
        n = 0
        base: Counter[str] = Counter()
        by_cat: dict[str, Counter[str]] = {}
        cat_n: Counter[str] = Counter()
        for cats, slugs in tagged:
            slugs = set(slugs)
            n += 1
            base.update(slugs)
            if cats:
                cat = cats[0]
                cat_n[cat] += 1
                by_cat.setdefault(cat, Counter()).update(slugs)
        lift: dict[str, dict[str, float]] = {}
        for cat, counts in by_cat.items():
            row = {}
            for slug, b in base.items():
                p_base = b / n
                p_cat = (counts.get(slug, 0) + smoothing * p_base) / (cat_n[cat] + smoothing)
                row[slug] = float(np.clip(math.log(p_cat / p_base), -3.0, 3.0))
            lift[cat] = row
        return cls(lift)


class UnknownTopicError(KeyError):
    """Feedback named a slug the tagger does not know."""

    def __str__(self) -> str:
        return f"unknown topic slug {self.args[0]!r}"
