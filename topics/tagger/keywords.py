"""Find topic names, aliases and keywords in titles and abstracts.

Phrases are compared token by token. A token written with capitals inside it (``GRPO``, ``MoE``,
``LLMs``, ``6G``) is an acronym and matches case-sensitively (a trailing plural ``s`` is ignored);
every other token matches lower-cased and lightly plural-stemmed, so ``policy gradient`` finds
``Policy Gradients``. Hyphens are tolerated both ways: ``pre-training`` finds ``pre training`` and
``pretraining``; ``pretraining`` finds ``pre-training``. TeX is stripped before matching.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .taxonomy import TopicSpec
from .text import acronym_form, is_acronym, stem, strip_tex, words

ACR = "\x00"  # prefix of acronym keys, so that "a:GRPO" can never equal a lower-case word
KIND_RANK = {"name": 0, "alias": 1, "keyword": 2}
WORD_STATS_FILE = "word_stats.json.gz"
WORD_STATS_PATH = Path(__file__).resolve().parent / "model" / WORD_STATS_FILE


@lru_cache(maxsize=1)
def shipped_word_coherence() -> Mapping[str, float]:
    """Coherence per stemmed word, fitted on arXiv abstracts; {} if the file is absent."""
    if not WORD_STATS_PATH.is_file():
        return {}
    with gzip.open(WORD_STATS_PATH, "rt", encoding="utf-8") as fh:
        return json.load(fh)["coherence"]


def word_quality(word: str, coherence: Mapping[str, float]) -> float:
    """Evidence weight of a one-word, lower-case phrase, from how alike the papers using it are:
    ~1 for "federated" or "conformal", ~0.3 for "generator" or "robustness"; rare words 1."""
    c = coherence.get(word)
    if c is None:
        return 1.0
    return min(1.0, max(0.2, (c - 0.12) / 0.25))


@dataclass(frozen=True)
class Phrase:
    text: str  # as written in the taxonomy
    keys: tuple[str, ...]
    kind: str  # "name" | "alias" | "keyword"
    acronym: bool
    quality: float = 1.0  # < 1 for common single words


@dataclass
class Hit:
    phrase: str
    kind: str
    where: str  # "title" | "abstract"
    count: int
    specificity: float  # 1 / number of topics that list this phrase
    quality: float = 1.0  # 1 for acronyms and multi-word phrases, less for common single words

    def as_evidence(self) -> dict:
        return {"text": self.phrase, "where": self.where, "kind": self.kind, "count": self.count}


def _word_keys(word: str) -> list[str]:
    """Keys of one taxonomy word: acronym key, or lower-case stemmed pieces split at hyphens."""
    out = []
    for piece in word.replace(".", " ").split("-") if "-" in word else [word]:
        piece = piece.strip()
        if not piece:
            continue
        if is_acronym(piece) or is_acronym(acronym_form(piece)):
            out.append(ACR + acronym_form(piece))
        else:
            out.extend(stem(p.lower()) for p in piece.split())
    return out


def phrase_variants(text: str) -> list[tuple[tuple[str, ...], bool]]:
    """Key tuples for a taxonomy phrase: hyphens split, and (if any) hyphenated words joined."""
    ws = words(strip_tex(text))
    if not ws:
        return []
    split = tuple(k for w in ws for k in _word_keys(w))
    variants = [split]
    if any("-" in w for w in ws):
        joined: list[str] = []
        for w in ws:
            if "-" in w and not any(is_acronym(p) for p in w.split("-")):
                joined.append(stem(w.replace("-", "").lower()))
            else:
                joined.extend(_word_keys(w))
        if tuple(joined) != split:
            variants.append(tuple(joined))
    return [(v, any(k.startswith(ACR) for k in v)) for v in variants if v]


@lru_cache(maxsize=200_000)
def _low_key(part: str) -> str:
    return stem(part.lower())


@lru_cache(maxsize=50_000)
def _acr_key(part: str) -> str | None:
    form = acronym_form(part)
    return ACR + form if is_acronym(form) or is_acronym(part) else None


@lru_cache(maxsize=200_000)
def _word_entry(word: str) -> tuple[tuple[str, ...], tuple[str | None, ...], str | None]:
    """(lower keys, acronym keys, joined key if hyphenated) of one text word."""
    parts = word.split("-") if "-" in word else (word,)
    low = tuple(_low_key(p) for p in parts)
    acr = tuple(None if p.islower() or p.isdigit() else _acr_key(p) for p in parts)
    return low, acr, _low_key(word.replace("-", "")) if len(parts) > 1 else None


def text_keys(text: str) -> tuple[list[str], list[str | None], dict[int, tuple[str, int]]]:
    """Lower keys, acronym keys (or None) per token, and hyphenated compounds (start -> joined)."""
    low: list[str] = []
    acr: list[str | None] = []
    compounds: dict[int, tuple[str, int]] = {}
    for word in words(text):
        w_low, w_acr, joined = _word_entry(word)
        if joined is not None:
            compounds[len(low)] = (joined, len(w_low))
        low.extend(w_low)
        acr.extend(w_acr)
    return low, acr, compounds


class KeywordMatcher:
    """Index of every topic's name, aliases and keywords; ``match`` returns hits per topic index."""

    def __init__(
        self,
        topics: Sequence[TopicSpec],
        word_coherence: Mapping[str, float] | None = None,
    ):
        coherence = shipped_word_coherence() if word_coherence is None else word_coherence
        entries: dict[tuple[str, ...], dict[int, Phrase]] = {}
        for ti, topic in enumerate(topics):
            items = [(topic.name, "name")]
            items += [(a, "alias") for a in topic.aliases]
            items += [(k, "keyword") for k in topic.keywords]
            for text, kind in items:
                for keys, acronym in phrase_variants(text):
                    if len(keys) == 1 and not acronym and len(keys[0]) < 3:
                        continue  # "ai", "ml" as lower-case words match too much
                    per_topic = entries.setdefault(keys, {})
                    old = per_topic.get(ti)
                    if old is None or KIND_RANK[kind] < KIND_RANK[old.kind]:
                        single = len(keys) == 1 and not acronym
                        quality = word_quality(keys[0], coherence) if single else 1.0
                        per_topic[ti] = Phrase(text, keys, kind, acronym, quality)
        # Lookup tables: one-token phrases by key, longer phrases by their first two keys (an
        # acronym key or a lower-case key each), with the rest as a plain list when it has no
        # acronym (compared as a slice) or None (compared token by token).
        self._single: dict[str, tuple[str, ...]] = {}
        self._multi: dict[tuple[str, str], list[tuple[tuple[str, ...], list[str] | None]]] = {}
        self._topics_of: dict[tuple[str, ...], list[tuple[int, Phrase]]] = {}
        self.specificity: dict[tuple[str, ...], float] = {}
        for keys, per_topic in entries.items():
            self.specificity[keys] = 1.0 / len(per_topic)
            self._topics_of[keys] = sorted(per_topic.items())
            if len(keys) == 1:
                self._single[keys[0]] = keys
            else:
                rest = None if any(k[0] == ACR for k in keys[2:]) else list(keys[2:])
                self._multi.setdefault((keys[0], keys[1]), []).append((keys, rest))
        self.n_phrases = len(entries)

    def _scan(self, text: str) -> dict[tuple[str, ...], int]:
        """Occurrences of each phrase (by keys) in ``text``."""
        low, acr, compounds = text_keys(text)
        found: dict[tuple[str, ...], int] = {}
        single, multi = self._single, self._multi
        n = len(low)
        for i in range(n):
            first, a = low[i], acr[i]
            keys = single.get(first)
            if keys is not None:
                found[keys] = found.get(keys, 0) + 1
            if a is not None:
                keys = single.get(a)
                if keys is not None:
                    found[keys] = found.get(keys, 0) + 1
            if compounds and i in compounds:
                joined = compounds[i][0]
                keys = single.get(joined)
                if keys is not None and joined != first:
                    found[keys] = found.get(keys, 0) + 1
            if i + 1 >= n:
                continue
            second, a2 = low[i + 1], acr[i + 1]
            for k0 in (first,) if a is None else (first, a):
                for k1 in (second,) if a2 is None else (second, a2):
                    for keys, rest in multi.get((k0, k1), ()):
                        end = i + len(keys)
                        if rest is not None:
                            if rest and low[i + 2 : end] != rest:
                                continue
                        elif end > n or any(
                            k != (acr[i + j] if k[0] == ACR else low[i + j])
                            for j, k in enumerate(keys[2:], start=2)
                        ):
                            continue
                        found[keys] = found.get(keys, 0) + 1
        return found

    def match(self, title: str, abstract: str = "") -> dict[int, list[Hit]]:
        """Hits per topic index; the title is searched first, then the abstract."""
        out: dict[int, list[Hit]] = {}
        for where, text in (("title", title), ("abstract", abstract)):
            if not text:
                continue
            for keys, count in self._scan(text).items():
                spec = self.specificity[keys]
                for ti, phrase in self._topics_of[keys]:
                    hits = out.setdefault(ti, [])
                    for h in hits:
                        if h.phrase == phrase.text and h.where == where:
                            h.count += count
                            break
                    else:
                        hits.append(
                            Hit(phrase.text, phrase.kind, where, count, spec, phrase.quality)
                        )
        return out
