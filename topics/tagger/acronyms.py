"""Acronyms a paper defines (``reinforcement learning from human feedback (RLHF)``) and the
acronym/expansion pairs the taxonomy itself states (a topic listing both ``GRPO`` and ``Group
Relative Policy Optimization``).

The keyword matcher uses them three ways: once a paper defines an acronym, every later use of the
acronym counts as an occurrence of the expansion and every later use of the expansion as one of
the acronym (so a title that only says ``RLHF`` names a topic listed as the expansion); and when
the paper defines a taxonomy acronym as something else (``DPO`` for "differentially private
optimization"), hits of that acronym are dropped, since the paper does not mean the topic.

The long form is the fewest words before the bracket whose initials spell the acronym (function
words may be skipped: "reinforcement learning from human feedback"), else as Schwartz & Hearst
(2003) find it: the acronym's letters right to left in those words, the first starting a word
(``SHapley Additive exPlanations``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from .text import acronym_form, is_acronym, words

# "(RLHF)", "(LLMs)", "(GPT-4o)": a bracketed single token, tried as an acronym definition.
_BRACKETED = re.compile(r"\(\s*([^\W_][\w.-]{0,15}?)\s*\)")
_CLAUSE_START = re.compile(r".*[.;:!?()\[\]]", re.DOTALL)
MAX_LOOKBACK_CHARS = 160


FUNCTION_WORDS = frozenset(
    ("of", "for", "from", "and", "in", "on", "to", "the", "with", "via", "by")
)


def _initials_form(letters: Sequence[str], candidates: Sequence[str]) -> list[str] | None:
    """The fewest last words of ``candidates`` whose initials (of each hyphen piece) spell
    ``letters``; function words may be skipped ("reinforcement learning from human feedback")."""
    pieces = [(wi, p.lower()) for wi, w in enumerate(candidates) for p in w.split("-") if p]

    def start(li: int, pi: int) -> int | None:
        """Index of the piece giving letter 0 when letters[:li] end at piece pi, or None."""
        if li == 0:
            return pi + 1
        if pi < 0:
            return None
        piece = pieces[pi][1]
        if piece[0] == letters[li - 1]:
            found = start(li - 1, pi - 1)
            if found is not None:
                return found
        if piece in FUNCTION_WORDS and li < len(letters):  # skipped, never the last word
            return start(li, pi - 1)
        return None

    first = start(len(letters), len(pieces) - 1)
    return list(candidates[pieces[first][0] :]) if first is not None else None


def long_form(
    short: str, candidates: Sequence[str], *, initials_only: bool = False
) -> list[str] | None:
    """The words of ``candidates`` (the words before the bracket) that ``short`` abbreviates, or
    None: the words whose initials spell it, else (unless ``initials_only``) Schwartz & Hearst's
    rule (letters right to left, the first at a word start) over at most ``min(len + 5,
    2 * len)`` words. A long form has two words or more (or a hyphenated one) and does not
    contain the acronym itself."""
    letters = [c.lower() for c in short if c.isalnum()]
    if len(letters) < 2 or not candidates:
        return None
    limit = min(len(letters) + 5, 2 * len(letters))
    window = list(candidates[-limit:])
    found = _initials_form(letters, window)
    if found is None and not initials_only:
        found = _schwartz_hearst(letters, window)
    lowered = short.lower()
    if not found or any(lowered in w.lower().split("-") for w in found):
        return None
    return found if len(found) >= 2 or "-" in found[0] else None


def _schwartz_hearst(letters: Sequence[str], window: Sequence[str]) -> list[str] | None:
    text = " ".join(window).lower()
    li = len(text) - 1
    for si in range(len(letters) - 1, -1, -1):
        c = letters[si]
        while li >= 0 and (text[li] != c or (si == 0 and li > 0 and text[li - 1] not in " -")):
            li -= 1
        if li < 0:
            return None
        li -= 1
    start = text.rfind(" ", 0, li + 1) + 1
    return list(window[-(text[start:].count(" ") + 1) :])


def find_definitions(text: str) -> list[tuple[str, list[str]]]:
    """``(acronym, long-form words)`` for every ``long form (ACRONYM)`` in ``text``."""
    out: list[tuple[str, list[str]]] = []
    if "(" not in text:
        return out
    for m in _BRACKETED.finditer(text):
        token = acronym_form(m.group(1))
        if not (is_acronym(token) and sum(c.isalpha() for c in token) >= 2):
            continue
        before = text[max(0, m.start() - MAX_LOOKBACK_CHARS) : m.start()]
        clause = _CLAUSE_START.match(before)
        if clause:
            before = before[clause.end() :]
        found = long_form(token, words(before))
        if found:
            out.append((token, found))
    return out


def agrees(a: Sequence[str], b: Sequence[str]) -> bool:
    """Two long forms (as word keys) name the same thing: the same letters ("auto encoder" ~
    "autoencoder") or half or more of the longer one's words shared."""
    if "".join(a) == "".join(b):
        return True
    shared = len(set(a) & set(b))
    return shared * 2 >= max(len(set(a)), len(set(b)))


def taxonomy_expansions(
    phrases_by_topic: Sequence[Sequence[str]],
    keys_of: Callable[[Sequence[str]], tuple[str, ...]],
) -> dict[str, dict[int, list[tuple[str, ...]]]]:
    """Acronym -> topic index -> the keys of the long forms that topic pairs it with: an
    acronym phrase (``GRPO``) and another phrase of the same topic whose initials spell it (the
    stricter rule: a topic's phrases are short and Schwartz & Hearst would pair ``SHAP`` with
    "Shapley values")."""
    out: dict[str, dict[int, list[tuple[str, ...]]]] = {}
    for ti, texts in enumerate(phrases_by_topic):
        singles = [acronym_form(t.strip()) for t in texts if " " not in t.strip()]
        acronyms = [t for t in singles if is_acronym(t)]
        if not acronyms:
            continue
        longer = [words(t) for t in texts if " " in t.strip() or "-" in t]
        for acr in acronyms:
            for ws in longer:
                found = long_form(acr, ws, initials_only=True)
                if found and len(found) == len(ws):
                    keys = out.setdefault(acr, {}).setdefault(ti, [])
                    if keys_of(ws) not in keys:
                        keys.append(keys_of(ws))
    return out
