"""arXiv identifiers: one parser for every form that people, pages and feeds use.

A canonical id carries no version: new style ``YYMM.NNNN`` (0704-1412) or ``YYMM.NNNNN``
(1501 on), old style ``archive/YYMMNNN`` (1991 to 2007-03). The subject class of an old id
(``math.GT/0309136``) is not part of the identifier, so it is dropped (``math/0309136``).
Sources: https://info.arxiv.org/help/arxiv_identifier.html and the reference patterns in
arXiv/arxiv-browse (browse/domain/identifier.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

# Every archive that ever issued old-style ids, including the ones merged into larger archives
# later (alg-geom into math, chao-dyn into nlin, ...). econ and eess began after 2007-04; q-fin
# and stat are listed because arXiv names them among the archives an old id may carry.
OLD_STYLE_ARCHIVES = frozenset(
    {
        "acc-phys", "adap-org", "alg-geom", "ao-sci", "astro-ph", "atom-ph", "bayes-an",
        "chao-dyn", "chem-ph", "cmp-lg", "comp-gas", "cond-mat", "cs", "dg-ga", "funct-an",
        "gr-qc", "hep-ex", "hep-lat", "hep-ph", "hep-th", "math", "math-ph", "mtrl-th", "nlin",
        "nucl-ex", "nucl-th", "patt-sol", "physics", "plasm-ph", "q-alg", "q-bio", "q-fin",
        "quant-ph", "solv-int", "stat", "supr-con",
    }
)  # fmt: skip

_MAX_LENGTH = 300  # longer input is not an id, whatever it contains; spares the regexes
_VERSION = r"(?:v(?P<version>[1-9]\d{0,3}))?"
_NEW = re.compile(r"(?P<yymm>\d{4})\.(?P<number>\d+)" + _VERSION)
_OLD = re.compile(
    r"(?P<archive>[A-Za-z]+(?:-[A-Za-z]+)?)(?:\.[A-Za-z][A-Za-z-]*)?/(?P<yymm>\d{4})(?P<number>\d+)"
    + _VERSION
)
# Wrappers around an id, tried in order; each leaves the id (plus maybe a path tail) in "rest".
_URL = re.compile(
    r"(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?P<kind>abs|pdf|html|format)/(?P<rest>[^?#]+)"
    r"(?:[?#].*)?",
    re.IGNORECASE,
)
_DOI = re.compile(
    r"(?:(?:https?://)?(?:dx\.)?doi\.org/|doi:\s*)?10\.48550/arxiv\.(?P<rest>.+)", re.IGNORECASE
)
_OAI = re.compile(r"oai:arxiv\.org:(?P<rest>.+)", re.IGNORECASE)
_PREFIX = re.compile(r"arxiv:\s*(?P<rest>.+)", re.IGNORECASE)

_FORMS = "2501.01234, 2501.01234v2, hep-th/9901001, arXiv:..., an arxiv.org URL or a 10.48550 DOI"


class InvalidArxivId(ValueError):
    """The text is not an arXiv identifier in any form we accept; the message says why."""


@dataclass(frozen=True, slots=True)
class ArxivId:
    """A parsed identifier: ``canonical`` never has a version; ``version`` is None if not given."""

    canonical: str
    version: int | None = None

    @property
    def versioned(self) -> str:
        """The id as arXiv writes it for this version (``2501.01234v2``), or the canonical id."""
        return self.canonical if self.version is None else f"{self.canonical}v{self.version}"

    @property
    def is_old_style(self) -> bool:
        return "/" in self.canonical

    def __str__(self) -> str:
        return self.versioned


def parse_arxiv_id(text: str) -> ArxivId:
    """Parse any accepted form of an arXiv id; raise InvalidArxivId with the reason otherwise."""
    if not isinstance(text, str):
        raise InvalidArxivId(f"an arXiv id must be a string, not {type(text).__name__}")
    value = text.strip()
    if not value or len(value) > _MAX_LENGTH:
        raise InvalidArxivId(f"not an arXiv id: {text[:60]!r} (expected {_FORMS})")
    if value[0].isdigit() and "/" not in value:
        # A bare new-style id, the extension's every lookup: no wrapper can match (URLs, OAI
        # and "arXiv:" start with a letter, a DOI has a slash), so skip the four attempts.
        return _parse_core(value, original=text, allow_tail=False)
    rest, allow_tail = _unwrap(value)
    return _parse_core(rest, original=text, allow_tail=allow_tail)


def is_valid(text: str) -> bool:
    """True when ``parse_arxiv_id`` would accept the text."""
    try:
        parse_arxiv_id(text)
    except InvalidArxivId:
        return False
    return True


def split_valid_ids(texts: Iterable[str]) -> tuple[list[ArxivId], list[str]]:
    """Split a list into (parsed ids, texts that are not ids), both in input order.

    Duplicates are kept: whether ``2501.01234`` and ``2501.01234v2`` are the same request is the
    caller's decision.
    """
    good: list[ArxivId] = []
    bad: list[str] = []
    for text in texts:
        try:
            good.append(parse_arxiv_id(text))
        except InvalidArxivId:
            bad.append(text)
    return good, bad


def _unwrap(value: str) -> tuple[str, bool]:
    """Strip a URL, DOI, OAI or ``arXiv:`` wrapper; the flag says whether a path tail may follow."""
    if match := _URL.fullmatch(value):
        rest = match["rest"].rstrip("/")
        if rest[-4:].lower() == ".pdf":
            rest = rest[:-4]
        # LaTeXML pages live below the id (/html/2501.01234v1/#S2, /html/2501.01234v1/x1.png).
        return rest, match["kind"].lower() == "html"
    for wrapper in (_DOI, _OAI, _PREFIX):
        if match := wrapper.fullmatch(value):
            return match["rest"].strip(), False
    return value, False


def _parse_core(rest: str, *, original: str, allow_tail: bool) -> ArxivId:
    head = _drop_tail(rest) if allow_tail else rest
    if match := _NEW.fullmatch(head):
        yymm, number = match["yymm"], match["number"]
        _check_new(yymm, number, original)
        _check_digits(match[0], original)
        return ArxivId(f"{yymm}.{number}", _version(match))
    if match := _OLD.fullmatch(head):
        archive, yymm, number = match["archive"].lower(), match["yymm"], match["number"]
        _check_old(archive, yymm, number, original)
        _check_digits(match[0], original)
        return ArxivId(f"{archive}/{yymm}{number}", _version(match))
    raise InvalidArxivId(f"not an arXiv id: {original[:60]!r} (expected {_FORMS})")


def _drop_tail(rest: str) -> str:
    """Cut the path after the id (``id/x1.png``); an old-style id has one slash of its own."""
    parts = rest.split("/")
    keep = 2 if len(parts) > 1 and not parts[0][:1].isdigit() else 1
    return "/".join(parts[:keep])


def _version(match: re.Match[str]) -> int | None:
    return int(match["version"]) if match["version"] else None


def _check_new(yymm: str, number: str, original: str) -> None:
    month = int(yymm[2:])
    if not 1 <= month <= 12:
        raise InvalidArxivId(f"{original[:60]!r}: {yymm[2:]} is not a month (YYMM.NNNNN)")
    if yymm < "0704":
        raise InvalidArxivId(f"{original[:60]!r}: new-style ids begin in April 2007 (0704)")
    digits = 4 if yymm <= "1412" else 5
    if len(number) != digits:
        raise InvalidArxivId(
            f"{original[:60]!r}: ids from {'0704 to 1412' if digits == 4 else '1501 on'} "
            f"have {digits} digits after the dot"
        )
    if int(number) == 0:
        raise InvalidArxivId(f"{original[:60]!r}: arXiv numbers start at 1")
    # YY is 20YY: 9912 would be December 2099. A month that has not begun has no ids yet; UTC
    # runs ahead of arXiv's Eastern time, so the first ids of a month are never refused.
    now = datetime.now(UTC)
    if yymm > f"{now.year % 100:02d}{now.month:02d}":
        raise InvalidArxivId(
            f"{original[:60]!r}: ids of 20{yymm[:2]}-{yymm[2:]} are not given out yet"
        )


def _check_digits(matched: str, original: str) -> None:
    # \d also matches other scripts' digits (２５０１.００００１): not an id arXiv gave out.
    if not matched.isascii():
        raise InvalidArxivId(f"{original[:60]!r}: arXiv ids are written with the digits 0-9")


def _check_old(archive: str, yymm: str, number: str, original: str) -> None:
    if archive not in OLD_STYLE_ARCHIVES:
        raise InvalidArxivId(f"{original[:60]!r}: {archive!r} is not an arXiv archive")
    if len(number) != 3:
        raise InvalidArxivId(f"{original[:60]!r}: old-style ids have 7 digits (YYMMNNN)")
    year, month = int(yymm[:2]), int(yymm[2:])
    year += 1900 if year >= 91 else 2000
    if not 1 <= month <= 12:
        raise InvalidArxivId(f"{original[:60]!r}: {yymm[2:]} is not a month (archive/YYMMNNN)")
    if not (1991, 8) <= (year, month) <= (2007, 3):
        raise InvalidArxivId(f"{original[:60]!r}: old-style ids run from 9108 to 0703")
    if int(number) == 0:
        raise InvalidArxivId(f"{original[:60]!r}: arXiv numbers start at 1")
