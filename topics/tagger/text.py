"""Text clean-up shared by the keyword matcher and the embedder: TeX, accents, hyphens, plurals."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from itertools import compress, count, repeat
from operator import is_not

MAX_TITLE_CHARS = 600
MAX_ABSTRACT_CHARS = 4000  # arXiv abstracts stop at 1,920; anything longer is pasted full text

_TEX_ACCENT = re.compile(r"\\[`'^\"~=.uvHckbdr](?:\{([A-Za-z])\}|([A-Za-z]))")
_TEX_CMD = re.compile(r"\\([A-Za-z]+)\*?|\\.")
_TEX_FORMAT = frozenset(
    (
        "text",
        "textbf",
        "textit",
        "texttt",
        "textsc",
        "textrm",
        "textsf",
        "emph",
        "mathrm",
        "mathbf",
        "mathit",
        "mathcal",
        "mathbb",
        "mathsf",
        "mathtt",
        "mathfrak",
        "boldsymbol",
        "bm",
        "operatorname",
        "url",
        "href",
        "cite",
        "ref",
        "label",
        "footnote",
        "left",
        "right",
        "big",
        "Big",
        "bigg",
        "Bigg",
        "quad",
        "qquad",
        "mbox",
        "hbox",
        "tiny",
        "small",
        "large",
        "Large",
        "huge",
        "sc",
        "bf",
        "it",
        "tt",
        "rm",
        "ensuremath",
        "displaystyle",
        "textstyle",
        "frac",
        "sqrt",
        "hat",
        "tilde",
        "bar",
        "vec",
        "dot",
        "ddot",
        "overline",
        "underline",
        "widehat",
        "widetilde",
        "xspace",
    )
)
_TEX_CHARS = re.compile(r"[{}$]")
_SPACES = re.compile(r"\s+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]")
# Word tokens: letters/digits runs; a dot inside a word ("v1.5", "e.g") does not split it.
_TOKEN = re.compile(r"[^\W_]+(?:\.[^\W_]+)*")
# Words: tokens joined by hyphens ("pre-training", "GPT-4o") as one match.
_WORD = re.compile(r"[^\W_]+(?:[.-][^\W_]+)*")
_CLAUSE_BREAK = re.compile(r"[,;:!?]|\.(?!\w)")
# Words (as _WORD) and, between them, the marks that end a clause (as _CLAUSE_BREAK), in order.
_WORD_OR_BREAK = re.compile(r"[^\W_]+(?:[.-][^\W_]+)*|[,;:!?]|\.(?!\w)")
CLAUSE_BREAKS = frozenset(",;:!?.")
_ACRONYM_PLURAL = re.compile(r"^([A-Z0-9][A-Za-z0-9]*[A-Z0-9])s$")


def clip(text: str, limit: int) -> str:
    """Cut ``text`` to at most ``limit`` characters, at a word boundary when one is near."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    return cut[:space] if space > limit * 0.8 else cut


def _tex_command(m: re.Match[str]) -> str:
    name = m.group(1)
    return f" {name} " if name and name not in _TEX_FORMAT else " "


def strip_tex(text: str) -> str:
    """Readable text from TeX-ish titles: ``$\\texttt{GRPO}$`` -> ``GRPO``, ``\\'e`` -> ``e``."""
    if "\\" not in text and "$" not in text and "{" not in text:
        return text
    text = _TEX_ACCENT.sub(lambda m: m.group(1) or m.group(2), text)
    text = _TEX_CMD.sub(_tex_command, text)
    text = _TEX_CHARS.sub(" ", text)
    return text


def clean(text: object, limit: int) -> str:
    """Normalise whitespace, drop control characters and TeX markup, cut to ``limit`` chars."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    text = clip(text, limit * 2)  # bound the work before the regexes
    text = strip_tex(text)
    text = _CONTROL.sub(" ", text)
    return clip(_SPACES.sub(" ", text).strip(), limit)


def fold(text: str) -> str:
    """Accents removed (NFKD), for matching only: ``Schrödinger`` -> ``Schrodinger``."""
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def stem(word: str) -> str:
    """Light plural stemming of a lower-case word (applied the same way to text and phrases)."""
    n = len(word)
    if n <= 3 or not word.endswith("s") or word[-1].isdigit():
        return word
    if word.endswith("ies") and n > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes", "zes")):
        return word[:-2]
    if word.endswith(("ss", "us", "is", "ics")):
        return word
    return word[:-1]


def acronym_form(token: str) -> str:
    """``LLMs`` -> ``LLM``, ``VLAs`` -> ``VLA``, ``MoEs`` -> ``MoE``; other tokens unchanged."""
    m = _ACRONYM_PLURAL.match(token)
    return m.group(1) if m else token


def is_acronym(token: str) -> bool:
    """Tokens matched case-sensitively: ``GRPO``, ``MoE``, ``LLaMA``, ``6G``, ``muP``."""
    if len(token) < 2:
        return False
    upper = sum(1 for c in token if c.isupper())
    if upper == 0:
        return False
    if upper >= 2:
        return True
    # One capital: "MoE"-style counts, "Adam"-style (only the first letter) does not; "6G" does.
    return not token[0].isupper() or any(c.isdigit() for c in token)


def true_indices(flags: Iterable[object]) -> list[int]:
    """Indices of the true items, found in one C-level pass (the matcher's hot loops)."""
    return list(compress(count(), flags))


def present(items: Sequence[object]) -> list[int]:
    """Indices of the items that are not None (the acronym positions of a field's tokens)."""
    return list(compress(count(), map(is_not, items, repeat(None))))


def tokens(text: str) -> list[str]:
    """Word tokens of already-cleaned text (case kept). Hyphens, slashes, underscores split."""
    return _TOKEN.findall(fold(text))


def normalize_phrase(text: str) -> str:
    """Lower-case, plural-stemmed, hyphen- and TeX-insensitive form of a phrase (display keys)."""
    return " ".join(stem(t.lower()) for t in tokens(strip_tex(text)))


def words(text: str) -> list[str]:
    """Hyphenated words of already-cleaned text, case kept (``pre-training`` is one word)."""
    return _WORD.findall(fold(text))


def words_and_breaks(text: str) -> list[str]:
    """Hyphenated words as :func:`words` gives them, with the marks that end a clause between
    them (``,;:!?`` or a full stop before a space; see :func:`words_in_clauses`)."""
    return _WORD_OR_BREAK.findall(fold(text))


def words_in_clauses(text: str) -> list[list[str]]:
    """Hyphenated words grouped by clause: a clause ends at ``,;:!?`` or a full stop before a
    space, so that near-by words can be told apart from words that only happen to be close
    across a comma or a sentence end. Brackets do not end one: "key-value (KV) cache" is one
    phrase."""
    out: list[list[str]] = [[]]
    for item in words_and_breaks(text):
        if item in CLAUSE_BREAKS:
            out.append([])
        else:
            out[-1].append(item)
    return out
