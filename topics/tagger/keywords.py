"""Find topic names, aliases and keywords in titles and abstracts.

Phrases are compared token by token. A token written with capitals inside it (``GRPO``, ``MoE``,
``LLMs``, ``6G``) is an acronym and matches case-sensitively (a trailing plural ``s`` is ignored);
every other token matches lower-cased, plural-stemmed and American-spelled (``regularisation`` =
``regularization``); inside a multi-word phrase also without inflection (``learned
parameterizations`` = ``learning parameterization``, ``detected anomalies`` = ``anomaly
detection``'s words; :mod:`topics.tagger.stemming` has the rules and why a lone word keeps its
inflection). Hyphens are tolerated both ways: ``pre-training`` finds ``pre training`` and
``pretraining``; ``pretraining`` finds ``pre-training``, also inside longer phrases. TeX is
stripped before matching.

Besides exact occurrences, each reported as ``match`` in the hit:

- ``acronym``: the paper defines an acronym (``reinforcement learning from human feedback
  (RLHF)``), and a later use of either form counts for a topic listing the other; a taxonomy
  acronym the paper defines as something else is not matched at all (:mod:`.acronyms`);
- ``gapped`` and ``reordered`` (:mod:`.loose_match`): one extra word inside the phrase, or (in
  the title) its 2-3 content words in any order close together in one clause.

A looser match is reported only when the same phrase has no stronger hit in the same field; the
scorer weighs the kinds separately (features ``kw_gapped``, ``kw_reordered``). A phrase without
its leading modifier (``data attribution`` for ``training data attribution``) is not matched:
on the training papers such hits were right for 6% of the topics they alone suggested, against
11% for gapped and 9% for reordered ones ("gradient descent" for "stochastic gradient descent",
"Monte Carlo" for "Hamiltonian Monte Carlo"); where a shorter form is specific, the taxonomy
lists it as an alias.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate, chain, repeat
from operator import itemgetter
from pathlib import Path

from .acronyms import agrees, find_definitions, taxonomy_expansions
from .loose_match import LooseMatcher
from .stemming import light_key, phrase_key
from .taxonomy import TopicSpec
from .text import (
    CLAUSE_BREAKS,
    acronym_form,
    is_acronym,
    present,
    stem,
    strip_tex,
    true_indices,
    words,
    words_and_breaks,
)

_PIECES = itemgetter(0)  # of a _word_entry: its (light, phrase, acronym) keys per hyphen piece
ACR = "\x00"  # prefix of acronym keys, so that "a:GRPO" can never equal a lower-case word
KIND_RANK = {"name": 0, "alias": 1, "keyword": 2}
MATCHER_VERSION = "m2"  # bump when the matching rules change: cached phrase hits are refreshed
WORD_STATS_FILE = "word_stats.json.gz"
WORD_STATS_PATH = Path(__file__).resolve().parent / "model" / WORD_STATS_FILE


@lru_cache(maxsize=1)
def shipped_word_coherence() -> Mapping[str, float]:
    """Coherence per plural-stemmed word, fitted on arXiv abstracts; {} if the file is absent."""
    if not WORD_STATS_PATH.is_file():
        return {}
    with gzip.open(WORD_STATS_PATH, "rt", encoding="utf-8") as fh:
        return json.load(fh)["coherence"]


def word_quality(word: str, coherence: Mapping[str, float]) -> float:
    """Evidence weight of a one-word, lower-case phrase, from how alike the papers using it are:
    ~1 for "federated" or "conformal", ~0.3 for "generator" or "robustness"; rare words 1.
    ``word`` is plural-stemmed (:func:`text.stem`), as the statistics are."""
    c = coherence.get(word)
    if c is None:
        return 1.0
    return min(1.0, max(0.2, (c - 0.12) / 0.25))


def stat_keys(text: str) -> list[str]:
    """Lower-case, plural-stemmed pieces of every word: the keys of ``word_stats.json.gz``."""
    return [stem(p.lower()) for w in words(text) for p in w.split("-")]


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
    match: str = "exact"  # "exact" | "acronym" | "gapped" | "reordered"

    @property
    def exact(self) -> bool:
        """Counts as the phrase itself (an acronym the paper defines is its expansion)."""
        return self.match in ("exact", "acronym")

    def as_evidence(self) -> dict:
        out = {"text": self.phrase, "where": self.where, "kind": self.kind, "count": self.count}
        if self.match != "exact":
            out["match"] = self.match
        return out


def _pieces(word: str) -> list[tuple[str, bool]]:
    """(piece, is acronym) of one taxonomy word, split at hyphens and dots."""
    out = []
    for piece in word.replace(".", " ").split("-") if "-" in word else [word]:
        piece = piece.strip()
        if not piece:
            continue
        if is_acronym(piece) or is_acronym(acronym_form(piece)):
            out.append((ACR + acronym_form(piece), True))
        else:
            out.extend((p.lower(), False) for p in piece.split())
    return out


def _keys(pieces: Sequence[tuple[str, bool]]) -> tuple[str, ...]:
    """Keys of a phrase's pieces: a lone word by its light key, words of longer phrases by their
    phrase key (inflection removed), acronyms as they are."""
    if len(pieces) == 1:
        p, acronym = pieces[0]
        return (p if acronym else light_key(p),)
    return tuple(p if acronym else phrase_key(p) for p, acronym in pieces)


def phrase_pieces(text: str) -> list[list[tuple[str, bool]]]:
    """Pieces of a taxonomy phrase: hyphens split, and (if any) hyphenated words joined."""
    ws = words(strip_tex(text))
    if not ws:
        return []
    split = [p for w in ws for p in _pieces(w)]
    variants = [split]
    if any("-" in w for w in ws):
        joined: list[tuple[str, bool]] = []
        for w in ws:
            if "-" in w and not any(is_acronym(p) for p in w.split("-")):
                joined.append((w.replace("-", "").lower(), False))
            else:
                joined.extend(_pieces(w))
        if joined != split:
            variants.append(joined)
    return [v for v in variants if v]


def phrase_variants(text: str) -> list[tuple[tuple[str, ...], bool]]:
    """Key tuples of a taxonomy phrase (see :func:`phrase_pieces`), and whether each has an
    acronym."""
    out = []
    for pieces in phrase_pieces(text):
        keys = _keys(pieces)
        out.append((keys, any(k.startswith(ACR) for k in keys)))
    return out


@lru_cache(maxsize=200_000)
def _word_entry(word: str):
    """((light key, phrase key, acronym key or None) per hyphen piece, joined light key, joined
    phrase key) of one text word; the joined keys only for a hyphenated word; no piece for a
    mark that ends a clause."""
    if word in CLAUSE_BREAKS:
        return (), None, None
    parts = word.split("-") if "-" in word else (word,)
    pieces = []
    for p in parts:
        low = p.lower()
        acr = None
        if not (p.islower() or p.isdigit()) and (is_acronym(acronym_form(p)) or is_acronym(p)):
            acr = ACR + acronym_form(p)
        pieces.append((light_key(low), phrase_key(low), acr))
    if len(parts) == 1:
        return tuple(pieces), None, None
    joined = "".join(parts).lower()
    return tuple(pieces), light_key(joined), phrase_key(joined)


@dataclass
class TextKeys:
    """One field's tokens (hyphenated words split) as keys."""

    light: Sequence[str]
    strong: Sequence[str]
    acr: Sequence[str | None]
    clause: list[int]
    compounds: dict[int, tuple[str, str, int]]  # start -> (joined light, joined strong, tokens)
    acronyms: list[int]  # positions whose acr key is not None


def text_keys(text: str) -> TextKeys:
    """Keys of one field's tokens, built with C-level passes (map, chain, accumulate): the
    matcher's share of the tagging time is mostly here."""
    items = words_and_breaks(text)
    breaks = list(map(CLAUSE_BREAKS.__contains__, items))
    clause_of_item: list[int] = list(accumulate(breaks, initial=0))[1:]  # ints, not bools
    entries = list(map(_word_entry, items))
    pieces = list(map(_PIECES, entries))
    tokens = list(chain.from_iterable(pieces))
    light, strong, acr = (list(x) for x in zip(*tokens, strict=True)) if tokens else ([], [], [])
    lengths = list(map(len, pieces))
    clause = list(chain.from_iterable(map(repeat, clause_of_item, lengths)))
    compounds = {}
    if len(tokens) != len(entries) - sum(breaks):
        starts = list(accumulate(lengths, initial=0))
        compounds = {
            starts[k]: (e[1], e[2], lengths[k]) for k, e in enumerate(entries) if e[1] is not None
        }
    return TextKeys(light, strong, acr, clause, compounds, present(acr))


class KeywordMatcher:
    """Index of every topic's name, aliases and keywords; ``match`` returns hits per topic index."""

    def __init__(
        self,
        topics: Sequence[TopicSpec],
        word_coherence: Mapping[str, float] | None = None,
    ):
        coherence = shipped_word_coherence() if word_coherence is None else word_coherence
        entries: dict[tuple[str, ...], dict[int, Phrase]] = {}

        def add(keys: tuple[str, ...], ti: int, phrase: Phrase) -> None:
            per_topic = entries.setdefault(keys, {})
            old = per_topic.get(ti)
            if old is None or KIND_RANK[phrase.kind] < KIND_RANK[old.kind]:
                per_topic[ti] = phrase

        listed = []  # (slug, kind, text): what the fingerprint covers
        for ti, topic in enumerate(topics):
            items = [(topic.name, "name")]
            items += [(a, "alias") for a in topic.aliases]
            items += [(k, "keyword") for k in topic.keywords]
            listed += [(topic.slug, kind, text) for text, kind in items]
            for text, kind in items:
                for pieces in phrase_pieces(text):
                    keys = _keys(pieces)
                    acronym = any(a for _, a in pieces)
                    if len(keys) == 1 and not acronym and len(keys[0]) < 3:
                        continue  # "ai", "ml" as lower-case words match too much
                    single = len(keys) == 1 and not acronym
                    quality = word_quality(stem(pieces[0][0]), coherence) if single else 1.0
                    add(keys, ti, Phrase(text, keys, kind, acronym, quality))
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
        # Identifies the phrase index (matching rules and the taxonomy's phrases), so that which
        # topics a labelled paper names is cached only for the same matcher (neighbours.py).
        digest = zlib.crc32("\n".join(map("\t".join, listed)).encode("utf-8"))
        self.fingerprint = f"{MATCHER_VERSION}:{len(listed)}:{digest:08x}"
        self._multi_words = {k for keys in entries if len(keys) > 1 for k in keys}
        self._loose = LooseMatcher(k for k in entries if len(k) >= 2)
        # Acronyms each topic pairs with a long form (GRPO -> group relative policy ...).
        self._expansions = taxonomy_expansions(
            [[t.name, *t.aliases, *t.keywords] for t in topics],
            lambda ws: _keys([p for w in ws for p in _pieces(w)]),
        )

    # -- scanning ---------------------------------------------------------------------------
    def _multi_starts(self, strong, acr) -> list[tuple[int, tuple[str, str]]]:
        """(position, first two keys) where a multi-word phrase may start: lower-case pairs
        found by one C-level pass, then the few pairs an acronym takes part in."""
        multi = self._multi
        pairs = list(zip(strong, strong[1:], strict=False))
        out = [(i, pairs[i]) for i in true_indices(map(multi.__contains__, pairs))]
        acronyms = present(acr)
        if acronyms:
            n = len(strong)
            for i in sorted({j for p in acronyms for j in (p - 1, p) if 0 <= j < n - 1}):
                for k0 in (strong[i], acr[i]):
                    for k1 in (strong[i + 1], acr[i + 1]):
                        acronym_pair = k0 is not None and k1 is not None and ACR in (k0[0], k1[0])
                        if acronym_pair and (k0, k1) in multi:
                            out.append((i, (k0, k1)))
        return out

    def _scan_multi(
        self, strong, acr, clause, found: dict, must_cover: set[int] | None = None
    ) -> None:
        """Count multi-word phrases in a key sequence, each within one clause (no phrase runs
        across a comma); with ``must_cover``, only occurrences spanning one of those positions
        (the joined compounds of the second pass)."""
        n = len(strong)
        for i, pair in self._multi_starts(strong, acr):
            for keys, rest in self._multi[pair]:
                end = i + len(keys)
                if end > n or clause[i] != clause[end - 1]:
                    continue
                if rest is not None:
                    if rest and strong[i + 2 : end] != rest:
                        continue
                elif end > n or any(
                    k != (acr[i + j] if k[0] == ACR else strong[i + j])
                    for j, k in enumerate(keys[2:], start=2)
                ):
                    continue
                if must_cover is not None and not any(p in must_cover for p in range(i, end)):
                    continue
                found[keys] = found.get(keys, 0) + 1

    def _scan(self, tk: TextKeys) -> dict[tuple[str, ...], int]:
        """Exact occurrences of each phrase (by keys) in one field."""
        found: dict[tuple[str, ...], int] = {}
        single = self._single
        for key in single.keys() & set(tk.light):
            found[single[key]] = tk.light.count(key)
        if tk.acronyms:
            for key in single.keys() & set(tk.acr):
                found[single[key]] = found.get(single[key], 0) + tk.acr.count(key)
        for i, (joined, _, _) in tk.compounds.items():
            keys = single.get(joined)
            if keys is not None and joined != tk.light[i]:
                found[keys] = found.get(keys, 0) + 1
        self._scan_multi(tk.strong, tk.acr, tk.clause, found)
        joined_used = [c for c, (_, j, _) in tk.compounds.items() if j in self._multi_words]
        if joined_used:  # "pre-trained language model" for "pretrained language model"
            strong: list[str] = []
            acr: list[str | None] = []
            clause: list[int] = []
            cover: set[int] = set()
            done = 0
            for c in sorted(joined_used):  # the sequence with those compounds as one token
                strong += tk.strong[done:c]
                acr += tk.acr[done:c]
                clause += tk.clause[done:c]
                cover.add(len(strong))
                strong.append(tk.compounds[c][1])
                acr.append(None)
                clause.append(tk.clause[c])
                done = c + tk.compounds[c][2]
            strong += tk.strong[done:]
            acr += tk.acr[done:]
            clause += tk.clause[done:]
            self._scan_multi(strong, acr, clause, found, cover)
        return found

    def _acronym_counts(
        self, defs: list[tuple[str, list[str]]], fields: Mapping[str, TextKeys]
    ) -> tuple[dict[str, dict[tuple[str, ...], tuple[int, tuple[str, ...]]]], dict]:
        """Per field, extra occurrences of phrases through the paper's own acronyms (keys ->
        (count, keys of the other form)), and per acronym phrase the topics whose own long form
        for it differs from the paper's (their hits of it are dropped)."""
        extra: dict[str, dict[tuple[str, ...], tuple[int, tuple[str, ...]]]] = {
            w: {} for w in fields
        }
        conflicting: dict[tuple[str, ...], set[int]] = {}
        for acronym, long_words in defs:
            acr_key = (ACR + acronym,)
            long_keys = _keys([p for w in long_words for p in _pieces(w)])
            for ti, known in self._expansions.get(acronym, {}).items():
                if not any(agrees(long_keys, k) for k in known):
                    conflicting.setdefault(acr_key, set()).add(ti)
            for where, tk in fields.items():
                if long_keys in self._topics_of:  # the acronym stands for a listed phrase
                    n = tk.acr.count(acr_key[0]) - (where == "abstract")
                    if n > 0:
                        extra[where][long_keys] = (n, acr_key)
                if acr_key in self._topics_of:  # the long form stands for a listed acronym
                    n = _count_sequence(tk.strong, long_keys) - (where == "abstract")
                    if n > 0:
                        extra[where][acr_key] = (n, long_keys)
        return extra, conflicting

    def match(self, title: str, abstract: str = "") -> dict[int, list[Hit]]:
        """Hits per topic index; the title first, then the abstract; per field and phrase only
        the strongest kind of match (exact, acronym, gapped, reordered)."""
        fields = {w: text_keys(t) for w, t in (("title", title), ("abstract", abstract)) if t}
        defs = find_definitions(abstract) if "(" in abstract else []
        extra, conflicting = self._acronym_counts(defs, fields) if defs else ({}, {})
        out: dict[int, list[Hit]] = {}
        for where, tk in fields.items():
            found = self._scan(tk)
            seen: set[tuple[int, str]] = set()  # (topic, phrase) already hit in this field
            self._add_hits(out, found, where, "exact", seen, conflicting)
            for keys, (count, other) in extra.get(where, {}).items():
                listed = {ti for ti, _ in self._topics_of.get(other, ())}
                self._add_hits(out, {keys: count}, where, "acronym", seen, {keys: listed})
            gapped, reordered = self._loose.scan(
                tk.strong, tk.acr, tk.clause, reordered=where == "title"
            )
            self._add_hits(out, gapped, where, "gapped", seen)
            self._add_hits(out, reordered, where, "reordered", seen)
        return out

    def _add_hits(self, out, found, where: str, match: str, seen, skip=None) -> None:
        """Add ``found`` (keys -> count) as hits of kind ``match``, except for the topics
        ``skip[keys]`` and (topic, phrase) pairs already hit in this field by a stronger kind
        (``seen``); an acronym's occurrences add to the phrase's exact hit when there is one."""
        for keys, count in found.items():
            spec = self.specificity[keys]
            left_out = skip.get(keys, ()) if skip else ()
            for ti, phrase in self._topics_of[keys]:
                if ti in left_out:
                    continue
                hits = out.setdefault(ti, [])
                if (ti, phrase.text) in seen:
                    for h in hits:
                        if h.phrase != phrase.text or h.where != where:
                            continue
                        if match == "acronym" and h.exact:  # the acronym's own occurrences
                            h.count += count
                        elif h.match == match:  # another form ("log based", "logbased") of
                            h.count = max(h.count, count)  # the same mentions, not more
                        break
                    continue
                seen.add((ti, phrase.text))
                hits.append(
                    Hit(phrase.text, phrase.kind, where, count, spec, phrase.quality, match)
                )


def _count_sequence(keys: Sequence[str], sequence: tuple[str, ...]) -> int:
    """Occurrences of ``sequence`` in ``keys`` (starts found by a C-level scan first)."""
    m = len(sequence)
    if not m or sequence[0] not in keys:
        return 0
    first = sequence[0]
    return sum(1 for i, k in enumerate(keys) if k == first and tuple(keys[i : i + m]) == sequence)
