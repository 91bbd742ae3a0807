"""Pieces that every citation format needs: names split into family and given, dates, keys,
and reversible escaping of free text (notes) for BibTeX."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date

_PARTICLES = {
    "al", "bin", "da", "das", "de", "del", "della", "der", "di", "dos", "du", "el", "ibn",
    "la", "le", "st.", "ten", "ter", "van", "von", "zu",
}  # fmt: skip
_SUFFIXES = {"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"}
_KEY_STOPWORDS = {"a", "an", "and", "for", "from", "in", "of", "on", "the", "to", "towards", "with"}


@dataclass(frozen=True)
class PersonName:
    family: str
    given: str = ""
    suffix: str = ""


def split_name(name: str) -> PersonName:
    """Split a display name ("Jan van der Berg Jr.") into family, given and suffix parts.

    arXiv gives names in display order; a name with a comma is taken as "Family, Given".
    """
    name = " ".join(name.split())
    if not name:
        return PersonName(family="")
    if "," in name:
        family, _, given = name.partition(",")
        return PersonName(family=family.strip(), given=given.strip())
    parts = name.split(" ")
    suffix = ""
    if len(parts) > 2 and parts[-1].lower() in _SUFFIXES:
        suffix = parts.pop()
    if len(parts) == 1:
        return PersonName(family=parts[0], suffix=suffix)
    start = len(parts) - 1
    while start > 1 and parts[start - 1].lower() in _PARTICLES:
        start -= 1
    return PersonName(family=" ".join(parts[start:]), given=" ".join(parts[:start]), suffix=suffix)


def id_month(arxiv_id: str) -> date | None:
    """The month an id was assigned in (2501.00001 and cs/0112017 both say)."""
    digits = arxiv_id.split("/")[-1][:4]
    if not digits.isdigit() or not 1 <= int(digits[2:]) <= 12:
        return None
    year = int(digits[:2])
    return date(2000 + year if year < 91 else 1900 + year, int(digits[2:]), 1)


def ascii_word(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]", "", folded.lower())


def citation_key(*, family: str, year: int | None, title: str, arxiv_id: str) -> str:
    """Google-Scholar-style key: family name, year, first significant title word."""
    title_plain = re.sub(r"\$[^$]*\$|\\[a-zA-Z]+", " ", title)
    words = [ascii_word(w) for w in title_plain.split()]
    word = next((w for w in words if w and w not in _KEY_STOPWORDS), "")
    base = ascii_word(family) + (str(year) if year else "") + word
    return base if ascii_word(family) else "arxiv" + ascii_word(arxiv_id)


# --- BibTeX text -----------------------------------------------------------------------------

# Free text (a person's note) is escaped so that LaTeX prints it as typed and BibTeX, which counts
# braces even after a backslash, always sees them balanced; `bibtex_unescape` reverses it exactly.
_ESCAPES = {
    "\\": r"\textbackslash{}",
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "%": r"\%",
    "&": r"\&",
    "#": r"\#",
    "$": r"\$",
    "_": r"\_",
    "^": r"\textasciicircum{}",
    "~": r"\textasciitilde{}",
}
_ESCAPE_RE = re.compile("|".join(re.escape(c) for c in _ESCAPES))
_UNESCAPES = {v: k for k, v in _ESCAPES.items()} | {r"\{": "{", r"\}": "}"}
_UNESCAPE_RE = re.compile("|".join(re.escape(s) for s in sorted(_UNESCAPES, key=len, reverse=True)))
_BARE_SPECIAL = re.compile(r"(?<!\\)([&%#])")


def bibtex_escape_text(text: str) -> str:
    return _ESCAPE_RE.sub(lambda m: _ESCAPES[m.group(0)], text)


def bibtex_unescape_text(text: str) -> str:
    return _UNESCAPE_RE.sub(lambda m: _UNESCAPES[m.group(0)], text)


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def bibtex_tex_value(text: str) -> str:
    """A title or name that is TeX already (arXiv keeps authors' TeX): kept as given, except that
    bare &, % and # are escaped and unbalanced braces are neutralised so the file still parses."""
    text = _BARE_SPECIAL.sub(r"\\\1", " ".join(text.split()))
    if not _balanced(text):
        text = re.sub(r"[{}]", lambda m: _ESCAPES[m.group(0)], text)
    return text
