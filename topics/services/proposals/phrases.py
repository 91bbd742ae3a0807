"""Naming a cluster (no Django): candidate phrases of each document, class-based TF-IDF of a
cluster's phrases against the window's other papers, and the title-cased name."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from topics.tagger.text import MAX_ABSTRACT_CHARS, MAX_TITLE_CHARS, clean, stem

PHRASES_KEPT = 10
NAME_MIN_SHARE = 0.3  # a multi-word name must be used by this share of the members


STOPWORDS = frozenset(
    """
    a about above across after again against all almost along also although among an and another
    any approach approaches are around as at based be been before being below between both but by
    can could did do does doing done due during each either enable enables etc even ever every
    existing few for from further given has have having here how however if in including into is
    it its itself just less like many may might more moreover most much must new not novel of
    often on one only or other our ours out over own paper per present presents propose proposed
    proposes provide provides rather recent recently result results same several shall she should
    show shows shown significant significantly since so some such than that the their them then
    there these they this those through thus to toward towards two three under until up upon us
    use used uses using various very via was we well were what when where whether which while who
    whose why will with within without would yet first second third study studies work works
    method methods framework frameworks task tasks problem problems performance
    results achieve achieves achieved demonstrate demonstrates demonstrated improve
    improves improved improving effective efficient state-of-the-art art benchmark benchmarks
    experiments experimental extensive evaluation outperforms existing key important highlight
    potential introduce introduces introduced address addresses challenge challenges propose
    """.split()  # noqa: SIM905
)
_SPLIT = re.compile(r"[.;:,!?()\[\]{}\"“”‘’/|]+|\s[-–—]+\s")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*")


def _key_word(word: str) -> str:
    return stem(word.lower())


def document_phrases(text: str, max_n: int = 3) -> list[tuple[str, str]]:
    """(key, surface) of every 1-3-gram not starting or ending with a stopword and not crossing
    punctuation; keys are lower-cased and plural-stemmed ("Widgets" -> "widget")."""
    out = []
    for chunk in _SPLIT.split(text):
        surface = _WORD.findall(chunk)
        low = [w.lower() for w in surface]
        keys = [_key_word(w) for w in surface]
        for n in range(1, max_n + 1):
            for i in range(len(low) - n + 1):
                first, last = low[i], low[i + n - 1]
                if first in STOPWORDS or last in STOPWORDS:
                    continue
                if n == 1 and len(first) < 3:
                    continue
                if any(len(w) < 2 for w in low[i : i + n]):
                    continue
                out.append((" ".join(keys[i : i + n]), " ".join(surface[i : i + n])))
    return out


def phrase_key(phrase: str) -> str:
    return " ".join(_key_word(w) for w in _WORD.findall(str(phrase)))


def paper_text(title: str, abstract: str) -> str:
    return f"{clean(title, MAX_TITLE_CHARS)}. {clean(abstract, MAX_ABSTRACT_CHARS)}"


def class_phrases(
    clusters: Sequence[Sequence[str]], background: Sequence[str], *, top: int = PHRASES_KEPT
) -> list[tuple[str, list[str]]]:
    """Per cluster (texts): (name, phrases) by c-TF-IDF against the other clusters and the
    background texts (one more class)."""
    counts: list[Counter] = []
    dfs: list[Counter] = []
    surfaces: Counter = Counter()
    for texts in clusters:
        c: Counter = Counter()
        df: Counter = Counter()
        for text in texts:
            phrases = document_phrases(text)
            c.update(k for k, _ in phrases)
            df.update({k for k, _ in phrases})
            surfaces.update(phrases)
        counts.append(c)
        dfs.append(df)
    back: Counter = Counter()
    for text in background:
        back.update(k for k, _ in document_phrases(text))
    total: Counter = Counter()
    for c in [*counts, back]:
        total.update(c)
    avg = sum(total.values()) / (len(counts) + 1)
    surface_of: dict[str, str] = {}
    for (key, surf), _n in surfaces.most_common():
        surface_of.setdefault(key, surf)
    out = []
    for texts, c, df in zip(clusters, counts, dfs, strict=True):
        n_docs = max(1, len(texts))
        size = sum(c.values()) or 1
        scored = []
        for key, f in c.items():
            if df[key] < max(2, 0.25 * n_docs):
                continue
            words = key.count(" ") + 1
            score = (f / size) * math.log(1 + avg / total[key]) * (1 + 0.5 * (words - 1))
            scored.append((score, key))
        scored.sort(key=lambda x: (-x[0], x[1]))
        kept: list[str] = []
        for _score, key in scored:
            if any(f" {key} " in f" {k} " and df[key] <= 1.5 * df[k] for k in kept if k != key):
                continue  # a part of a phrase already kept, used about as often
            kept.append(key)
            if len(kept) >= top:
                break
        best = {k: s for s, k in scored}
        name_key = kept[0] if kept else ""
        top_score = best.get(name_key, 0.0)
        named = [
            k
            for k in kept
            if " " in k and df[k] >= NAME_MIN_SHARE * n_docs and best[k] >= 0.25 * top_score
        ]
        if named:  # a phrase most members share, without "of"/"and" inside if possible
            name_key = max(
                named,
                key=lambda k: (not _inner_stopword(k), df[k], best[k]),
            )
        out.append((title_case(surface_of.get(name_key, name_key)), [surface_of[k] for k in kept]))
    return out


def _inner_stopword(key: str) -> bool:
    return any(w in STOPWORDS for w in key.split()[1:-1])


_SMALL = {"a", "an", "and", "as", "at", "by", "for", "in", "of", "on", "or", "the", "to", "via"}


def title_case(phrase: str) -> str:
    words = []
    for n, word in enumerate(phrase.split()):
        if any(c.isupper() for c in word[1:]) or any(c.isdigit() for c in word):
            words.append(word)  # an acronym or a mixed-case name: as written
        elif n > 0 and word.lower() in _SMALL:
            words.append(word.lower())
        else:
            words.append("-".join(p[:1].upper() + p[1:] for p in word.split("-")))
    return " ".join(words)
