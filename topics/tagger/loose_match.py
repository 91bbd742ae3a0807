"""Looser occurrences of multi-word phrases, reported as weaker evidence kinds than exact ones:

- ``gapped``: the phrase with one extra word inside it, ``log-based anomaly detection`` for
  ``log anomaly detection``, ``learned subgrid parameterizations`` for ``learned
  parameterization`` (not a coordination: ``reinforcement and imitation learning`` is two
  things, so ``and``/``or`` never fill the gap);
- ``reordered``: the content words of a short phrase (2 or 3 words besides "of", "for", ...) in
  any order within a window of their number + 2 tokens of one clause, ``detection of anomalies
  in logs`` for ``log anomaly detection``. The matcher looks for these in titles only: in
  abstracts they were right half as often (20% of the hits clear on the training papers, 39% in
  titles), cost a fifth of the tagging time, and leaving them out moved no out-of-fold figure
  beyond noise (micro-F1 0.644 vs 0.645, ECE 0.033 vs 0.035).

Both work on the inflection-stemmed keys of :mod:`topics.tagger.stemming`, from precompiled
tables: gapped phrases by the two keys either side of the gap (a skip-bigram), reordered ones by
their rarest content key, so that a paper costs a few dict look-ups a token, never a loop over
the taxonomy.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from .text import present, true_indices

ACR = "\x00"  # prefix of acronym keys (the same as keywords.ACR)
# Function words: not content words of a phrase (a reordered match ignores them); "base" is
# the "-based" of "anomaly-based detection", which says how, not what.
STOP_KEYS = frozenset(
    (
        *("a", "an", "the", "of", "for", "in", "on", "at", "to", "by", "with", "from", "via"),
        *("into", "onto", "over", "under", "through", "between", "across", "toward", "towards"),
        *("and", "or", "its", "their", "as", "is", "are", "be", "than", "base"),
    )
)
GAP_BLOCKERS = frozenset(("and", "or", "nor", "but", "versus", "vs", "not"))
MAX_REORDERED_WORDS = 3
REORDER_SLACK = 2  # the content words lie within a span of (their number + this) tokens
NEAR_REACH = MAX_REORDERED_WORDS + REORDER_SLACK - 1  # so two of them are at most this far apart


def _matches(key: str, strong: Sequence[str], acr: Sequence[str | None], pos: int) -> bool:
    return (acr[pos] == key) if key[0] == ACR else (strong[pos] == key)


def _positions(seq: Sequence[str | None], key: str) -> list[int]:
    """Every index of ``key`` in ``seq`` (``list.index`` scans in C)."""
    out: list[int] = []
    i = -1
    try:
        while True:
            i = seq.index(key, i + 1)
            out.append(i)
    except ValueError:
        return out


def _position_keys(strong: Sequence[str], acr: Sequence[str | None], pos: int) -> tuple[str, ...]:
    a = acr[pos]
    return (strong[pos],) if a is None else (strong[pos], a)


class LooseMatcher:
    """Finds gapped and reordered occurrences of the given multi-word phrase keys."""

    def __init__(self, phrases: Iterable[tuple[str, ...]]):
        phrases = [p for p in dict.fromkeys(phrases) if len(p) >= 2]
        # Gapped: (key before the gap, key after it) -> [(phrase, gap index)].
        self._gapped: dict[tuple[str, str], list[tuple[tuple[str, ...], int]]] = {}
        for keys in phrases:
            for g in range(1, len(keys)):
                if keys[g - 1] in STOP_KEYS and keys[g] in STOP_KEYS:
                    continue
                self._gapped.setdefault((keys[g - 1], keys[g]), []).append((keys, g))
        self._gap_firsts = frozenset(k0 for k0, _ in self._gapped)
        # Reordered: anchored at the content key that the fewest phrases share.
        content = {k: tuple(dict.fromkeys(w for w in k if w not in STOP_KEYS)) for k in phrases}
        content = {k: c for k, c in content.items() if 2 <= len(c) <= MAX_REORDERED_WORDS}
        use = Counter(w for c in content.values() for w in c)
        # (anchor, second) in both orders -> [(phrase, other content keys)]: the two keys that
        # the fewest phrases share; a field intersects (in C) its pairs of keys at most
        # NEAR_REACH tokens apart with these.
        self._pairs: dict[tuple[str, str], list[tuple[tuple[str, ...], tuple[str, ...]]]] = {}
        for keys, words in content.items():
            anchor, second = sorted(words, key=lambda w: (use[w], -len(w), w))[:2]
            others = tuple(w for w in words if w != anchor)
            for pair in ((anchor, second), (second, anchor)):
                self._pairs.setdefault(pair, []).append((keys, others))
        self._anchor = {
            keys: sorted(w, key=lambda x: (use[x], -len(x), x))[0] for keys, w in content.items()
        }

    def scan(
        self,
        strong: Sequence[str],
        acr: Sequence[str | None],
        clause: Sequence[int],
        *,
        reordered: bool = True,
    ) -> tuple[dict[tuple[str, ...], int], dict[tuple[str, ...], int]]:
        """(gapped, reordered) occurrence counts per phrase keys in one field's tokens (reordered
        ones only when ``reordered``); a phrase
        found gapped is not also reported reordered."""
        gapped: dict[tuple[str, ...], int] = {}
        gaps = self._gapped
        skips = list(zip(strong, strong[2:], strict=False))
        starts = [(i, skips[i]) for i in true_indices(map(gaps.__contains__, skips))]
        for i in present(acr):  # pairs with an acronym
            for j in (i - 2, i):
                if 0 <= j < len(strong) - 2:
                    pairs = [
                        (k0, k1)
                        for k0 in _position_keys(strong, acr, j)
                        for k1 in _position_keys(strong, acr, j + 2)
                        if ACR in (k0[0], k1[0])
                    ]
                    starts += [(j, pair) for pair in pairs if pair in gaps]
        for i, pair in dict.fromkeys(starts):
            if clause[i] != clause[i + 2] or strong[i + 1] in GAP_BLOCKERS:
                continue
            for keys, g in gaps[pair]:
                if self._rest_matches(keys, g, i, strong, acr, clause):
                    gapped[keys] = gapped.get(keys, 0) + 1
        near = self._scan_reordered(strong, acr, clause) if reordered else {}
        for keys in gapped:
            near.pop(keys, None)
        return gapped, near

    def _scan_reordered(self, strong, acr, clause) -> dict[tuple[str, ...], int]:
        """The phrases two of whose content keys occur at most ``NEAR_REACH`` tokens apart
        (pairs of the field intersected with the index in C), then each occurrence of the
        phrase's anchor with all its other content keys close by in the same clause."""
        seq = strong
        if any(a is not None for a in acr):  # an acronym token stands as its acronym key
            seq = [s if a is None else a for s, a in zip(strong, acr, strict=True)]
        near: set[tuple[str, str]] = set()
        for d in range(1, NEAR_REACH + 1):
            near.update(zip(seq, seq[d:], strict=False))
        found: dict[tuple[str, ...], int] = {}
        done: set[tuple[str, ...]] = set()
        positions: dict[str, list[int]] = {}
        for pair in near & self._pairs.keys():
            for keys, others in self._pairs[pair]:
                if keys in done:
                    continue
                done.add(keys)
                anchor = self._anchor[keys]
                for key in (anchor, *others):
                    if key not in positions:
                        positions[key] = _positions(seq, key)
                if all(positions[o] for o in others):
                    at = {o: positions[o] for o in others}
                    self._count_near(keys, at, positions[anchor], clause, found)
        return found

    @staticmethod
    def _count_near(keys, others, anchors, clause, found) -> None:
        """Count the anchor occurrences ``anchors`` that have every other content key (its
        nearest occurrence in the same clause; ``others``: key -> positions) within a span of
        their number + ``REORDER_SLACK``."""
        limit = len(others) + 1 + REORDER_SLACK
        for i in anchors:
            first = last = i
            for positions in others.values():
                best = -1
                for p in positions:
                    if clause[p] == clause[i] and (best < 0 or abs(p - i) < abs(best - i)):
                        best = p
                if best < 0:
                    break
                first, last = min(first, best), max(last, best)
            else:
                if last - first < limit:
                    found[keys] = found.get(keys, 0) + 1

    @staticmethod
    def _rest_matches(keys, g, i, strong, acr, clause) -> bool:
        """The phrase's keys before ``keys[g-1]`` end at ``i`` and those after ``keys[g]`` start
        at ``i + 3``, all in the clause of ``i``."""
        start, end = i - (g - 1), i + 2 + (len(keys) - g)
        if start < 0 or end > len(strong) or clause[start] != clause[i]:
            return False
        if clause[end - 1] != clause[i]:
            return False
        for j in range(g - 1):
            if not _matches(keys[j], strong, acr, start + j):
                return False
        after = range(g + 1, len(keys))
        return all(_matches(keys[j], strong, acr, i + 2 + (j - g)) for j in after)
