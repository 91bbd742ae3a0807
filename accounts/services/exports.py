"""A reading list as BibTeX, RIS, CSL-JSON or CSV: what Zotero, LaTeX and spreadsheets read.

Every entry carries the arXiv identifiers (eprint, the 10.48550 DOI, the abstract URL) so a
reference manager can always resolve it, and the person's note. A paper saved before we had
harvested it is exported with the identifiers alone.
"""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime

from accounts.errors import InvalidInput
from accounts.services.citations import (
    PersonName,
    bibtex_escape_text,
    bibtex_tex_value,
    citation_key,
    id_month,
    split_name,
)
from papers.models import Paper


@dataclass(frozen=True)
class ExportEntry:
    arxiv_id: str
    paper: Paper | None
    note: str = ""
    read_state: str = "unread"
    added_at: datetime | None = None

    @property
    def title(self) -> str:
        return self.paper.title if self.paper else f"arXiv:{self.arxiv_id}"

    @property
    def authors(self) -> list[str]:
        return list(self.paper.authors) if self.paper else []

    @property
    def issued(self) -> date | None:
        """The date of the first version: what arXiv's own citations use."""
        if self.paper is not None:
            if self.paper.submitted:
                return self.paper.submitted.date()
            if self.paper.announced:
                return self.paper.announced
        return id_month(self.arxiv_id)

    @property
    def issued_parts(self) -> list[int]:
        """[year, month, day], or [year, month] when only the id's month is known."""
        issued = self.issued
        if issued is None:
            return []
        if self.paper is None or not (self.paper.submitted or self.paper.announced):
            return [issued.year, issued.month]
        return [issued.year, issued.month, issued.day]

    @property
    def primary_category(self) -> str:
        return self.paper.primary_category if self.paper else ""

    @property
    def doi(self) -> str:
        return f"10.48550/arXiv.{self.arxiv_id}"

    @property
    def url(self) -> str:
        return f"https://arxiv.org/abs/{self.arxiv_id}"


@dataclass(frozen=True)
class Rendered:
    content: str
    content_type: str
    extension: str


def _bib_author(name: str) -> str:
    parts = split_name(name)
    if parts.suffix:  # BibTeX reads "von Last, Jr, First" only in this comma form
        name = f"{parts.family}, {parts.suffix}, {parts.given}"
    value = bibtex_tex_value(name)
    return "{" + value + "}" if re.search(r"\sand\s", value, re.IGNORECASE) else value


def render_bibtex(entries: list[ExportEntry]) -> str:
    """@misc entries in arXiv's own style, plus the DOI and the note."""
    seen: dict[str, int] = {}
    chunks = []
    for entry in entries:
        issued = entry.issued
        first = split_name(entry.authors[0]).family if entry.authors else ""
        key = citation_key(
            family=first, year=issued.year if issued else None, title=entry.title,
            arxiv_id=entry.arxiv_id,
        )  # fmt: skip
        count = seen.get(key, 0)
        seen[key] = count + 1
        if count:
            key = f"{key}{_suffix(count)}"
        fields = [("title", bibtex_tex_value(entry.title))]
        if entry.authors:
            fields.append(("author", " and ".join(_bib_author(a) for a in entry.authors)))
        if issued:
            fields.append(("year", str(issued.year)))
        fields += [("eprint", entry.arxiv_id), ("archivePrefix", "arXiv")]
        if entry.primary_category:
            fields.append(("primaryClass", entry.primary_category))
        fields += [("doi", entry.doi), ("url", entry.url)]
        if entry.note:
            fields.append(("note", bibtex_escape_text(entry.note)))
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
        chunks.append(f"@misc{{{key},\n{body}\n}}\n")
    return "\n".join(chunks)


def _suffix(count: int) -> str:
    """a, b, ..., z, aa, ab, ... for the 2nd, 3rd, ... entry with the same key."""
    letters = ""
    while count > 0:
        count, rest = divmod(count - 1, 26)
        letters = chr(ord("a") + rest) + letters
    return letters


def _ris_value(text: str) -> str:
    return " ".join(text.split())


# A line that a lenient reader could take for a tag: Zotero accepts one or two spaces before the
# hyphen, and some readers trim the line first.
_RIS_TAG_LIKE = re.compile(r"\s*[A-Za-z][A-Za-z0-9]\s*-")


def _ris_note(text: str) -> str:
    """A note as RIS continuation lines. splitlines() breaks on every line separator a reader
    might honour (CR alone, U+2028/2029, NEL, VT, FF ...), so each one becomes our CRLF, and a
    line that looks like a tag ("ER  - ") is indented so that it cannot open a field."""
    return "\r\n".join(
        (" " + line if _RIS_TAG_LIKE.match(line) else line) for line in text.splitlines()
    )


def render_ris(entries: list[ExportEntry]) -> str:
    """RIS with TY UNPB (unpublished work), the type reference managers give preprints."""
    out = []
    for entry in entries:
        lines = ["TY  - UNPB", f"TI  - {_ris_value(entry.title)}"]
        for author in entry.authors:
            name = split_name(author)
            lines.append(f"AU  - {_ris_person(name)}")
        parts = entry.issued_parts
        if parts:
            lines.append(f"PY  - {parts[0]}")
            lines.append(
                "DA  - " + "/".join(f"{p:02d}" for p in parts) + ("/" if len(parts) < 3 else "")
            )
        if entry.paper and entry.paper.abstract:
            lines.append(f"AB  - {_ris_value(entry.paper.abstract)}")
        lines += [
            f"DO  - {entry.doi}",
            f"UR  - {entry.url}",
            "PB  - arXiv",
            f"M1  - arXiv:{entry.arxiv_id}",
        ]
        if entry.primary_category:
            lines.append(f"KW  - {entry.primary_category}")
        if entry.note:
            lines.append(f"N1  - {_ris_note(entry.note)}")
        lines.append("ER  - ")
        out.append("\r\n".join(lines) + "\r\n")
    return "\r\n".join(out)


def _ris_person(name: PersonName) -> str:
    text = name.family
    if name.given:
        text += f", {name.given}"
    if name.suffix:
        text += f", {name.suffix}"
    return text


def _csl_person(author: str) -> dict:
    name = split_name(author)
    if not name.given:
        return {"literal": name.family}
    person = {"family": name.family, "given": name.given}
    if name.suffix:
        person["suffix"] = name.suffix
    return person


def csl_items(entries: list[ExportEntry]) -> list[dict]:
    """CSL-JSON items (the citation-style-language schema's field names), type "article" as
    CSL calls a preprint."""
    items = []
    for entry in entries:
        item: dict = {
            "id": f"arXiv:{entry.arxiv_id}",
            "type": "article",
            "title": entry.title,
            "author": [_csl_person(a) for a in entry.authors],
            "DOI": entry.doi,
            "URL": entry.url,
            "number": f"arXiv:{entry.arxiv_id}",
            "archive": "arXiv",
            "publisher": "arXiv",
        }
        if entry.issued_parts:
            item["issued"] = {"date-parts": [entry.issued_parts]}
        if entry.paper and entry.paper.abstract:
            item["abstract"] = entry.paper.abstract
        if entry.note:
            item["note"] = entry.note
        items.append(item)
    return items


def render_csl_json(entries: list[ExportEntry]) -> str:
    return json.dumps(csl_items(entries), ensure_ascii=False, indent=2) + "\n"


CSV_COLUMNS = [
    "arxiv_id", "title", "authors", "date", "primary_category", "doi", "url",
    "note", "read_state", "added",
]  # fmt: skip


def csv_cell(value: str) -> str:
    """A cell a spreadsheet will show as text (OWASP CSV injection): one starting with = + - @,
    Tab, CR or LF gets a leading `'`, also when invisible characters (a zero-width space, a BOM)
    or spaces come first or the sign is a full-width one (＝) that spreadsheets fold to ASCII.
    https://owasp.org/www-community/attacks/CSV_Injection"""
    return "'" + value if csv_cell_is_formula(value) else value


def csv_cell_is_formula(value: str) -> bool:
    if value[:1] in ("\t", "\r", "\n"):
        return True
    visible = value.lstrip("".join(_CSV_IGNORABLE)).lstrip()
    return unicodedata.normalize("NFKC", visible[:1]) in ("=", "+", "-", "@")


# Characters a spreadsheet may skip before reading a formula: zero-width ones and the BOM.
_CSV_IGNORABLE = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad")


def render_csv(entries: list[ExportEntry]) -> str:
    buffer = io.StringIO()
    # The byte-order mark makes Excel read UTF-8 (names like Müller); our importer skips it.
    buffer.write("\ufeff")
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for entry in entries:
        parts = entry.issued_parts
        writer.writerow(
            [
                entry.arxiv_id,
                csv_cell(entry.title),
                csv_cell("; ".join(entry.authors)),
                "-".join(f"{p:02d}" for p in parts),
                entry.primary_category,
                entry.doi,
                entry.url,
                csv_cell(entry.note),
                entry.read_state,
                entry.added_at.isoformat() if entry.added_at else "",
            ]
        )
    return buffer.getvalue()


FORMATS: dict[str, tuple[Callable[[list[ExportEntry]], str], str, str]] = {
    "bibtex": (render_bibtex, "application/x-bibtex; charset=utf-8", "bib"),
    "ris": (render_ris, "application/x-research-info-systems; charset=utf-8", "ris"),
    "csl-json": (render_csl_json, "application/vnd.citationstyles.csl+json; charset=utf-8", "json"),
    "csv": (render_csv, "text/csv; charset=utf-8", "csv"),
}
FORMAT_ALIASES = {"bib": "bibtex", "csljson": "csl-json", "csl": "csl-json", "json": "csl-json"}


def export_format(name) -> str:
    """The canonical format name; InvalidInput listing the choices for anything else."""
    key = str(name or "").strip().lower()
    key = FORMAT_ALIASES.get(key, key)
    if key not in FORMATS:
        raise InvalidInput(
            f"Unknown export format {str(name)[:40]!r}: use one of {', '.join(FORMATS)}.",
            code="unknown_format",
        )
    return key


def export_render(*, entries: list[ExportEntry], fmt: str) -> Rendered:
    render, content_type, extension = FORMATS[export_format(fmt)]
    return Rendered(content=render(entries), content_type=content_type, extension=extension)
