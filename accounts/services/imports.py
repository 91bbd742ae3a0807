"""Importing papers into a list from BibTeX, a plain list of ids or URLs, or a CSV file (ours or
Zotero's). A bad line is reported with its line number and the rest is imported; ids we do not
have yet are queued for an on-demand fetch like any other save."""

from __future__ import annotations

import csv
import html
import io
import logging
import re
from dataclasses import dataclass, field

from django.utils.html import strip_tags

from accounts.errors import InvalidInput
from accounts.models import NOTE_MAX_LENGTH, ListItem
from accounts.services.citations import bibtex_unescape_text
from accounts.services.exports import csv_cell_is_formula
from accounts.services.lists import NewItem, list_items_add
from papers.arxiv_ids import InvalidArxivId, parse_arxiv_id

IMPORT_FORMATS = ("auto", "bibtex", "ids", "csv")
MAX_IMPORT_CHARS = 2_000_000
MAX_IMPORT_ENTRIES = 5000
MAX_IMPORT_LINES = 20_000  # of a list of ids or a CSV file, counted before parsing
MAX_REPORTED_PROBLEMS = 100  # the first ones by line; the rest are counted
# Imports estimated larger than this run as a Celery task (accounts.services.import_jobs).
IMPORT_IN_BACKGROUND_ENTRIES = 1000

# An entry's opening "@type{" or "@type(", not counting @comment, @string and @preamble blocks.
_BIB_OPENER = re.compile(r"@\s*(?!(?:comment|string|preamble)\b)\w+\s*[{(]", re.IGNORECASE)

_ARXIV_IN_TEXT = re.compile(r"arxiv[:\s.]\s*([\w./-]+\d)", re.IGNORECASE)
_CORR_VOLUME = re.compile(r"abs/([\w./-]+\d)", re.IGNORECASE)
# A note that only repeats the id ("arXiv:2501.01234 [cs.LG]", as Zotero writes) is no note.
_ID_ONLY_NOTE = re.compile(r"\s*arxiv:\s*\S+(\s*\[[\w.-]+\])?\s*", re.IGNORECASE)


@dataclass(frozen=True)
class ImportProblem:
    line: int
    detail: str


@dataclass
class ParsedImport:
    format: str
    entries: list[tuple[int, NewItem]] = field(default_factory=list)
    problems: list[ImportProblem] = field(default_factory=list)
    problems_omitted: int = 0


@dataclass
class ImportReport:
    format: str
    imported: list[str]
    already: list[str]
    pending: list[str]
    problems: list[ImportProblem]
    version: int
    problems_omitted: int = 0  # problems beyond the first MAX_REPORTED_PROBLEMS

    def as_dict(self) -> dict:
        """The API's answer (also kept as a background import's result)."""
        return {
            "format": self.format,
            "imported": self.imported,
            "already": self.already,
            "pending": self.pending,
            "errors": [{"line": p.line, "detail": p.detail} for p in self.problems],
            "errors_omitted": self.problems_omitted,
            "version": self.version,
        }


def _canonical(text: str | None) -> str | None:
    if not text:
        return None
    try:
        return parse_arxiv_id(text.strip()).canonical
    except InvalidArxivId:
        return None


def _note(line: int, note: str, parsed: ParsedImport) -> str | None:
    """The note, or None (with a problem reported) when it is too long to keep."""
    note = note.strip()
    if _ID_ONLY_NOTE.fullmatch(note):
        return ""
    if len(note) > NOTE_MAX_LENGTH:
        parsed.problems.append(
            ImportProblem(line, f"the note has {len(note)} characters, more than {NOTE_MAX_LENGTH}")
        )
        return None
    return note


def detect_format(content: str) -> str:
    body = content.lstrip("\ufeff").lstrip()
    if re.search(r"^\s*@\s*\w+\s*[{(]", body, re.MULTILINE):
        return "bibtex"
    first = body.split("\n", 1)[0].lower()
    if "," in first and any(
        name in first for name in ("arxiv_id", "url", "doi", "title", "key", "archive id")
    ):
        return "csv"
    return "ids"


# --- plain lists -----------------------------------------------------------------------------


def parse_ids(content: str) -> ParsedImport:
    """One or more ids or arxiv.org URLs per line; blank lines and # comments are skipped."""
    parsed = ParsedImport(format="ids")
    for number, line in enumerate(content.lstrip("\ufeff").splitlines(), start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        tokens = [token for token in re.split(r"[\s,;]+", text) if token]
        found = [(token, _canonical(token)) for token in tokens]
        if not any(arxiv_id for _, arxiv_id in found):
            found = [(text, None)]  # one complaint about the line, not one per word
        for token, arxiv_id in found:
            if arxiv_id is None:
                parsed.problems.append(
                    ImportProblem(number, f"{token[:80]!r} is not an arXiv id or arxiv.org URL")
                )
            else:
                parsed.entries.append((number, NewItem(arxiv_id=arxiv_id)))
    return parsed


# --- BibTeX ----------------------------------------------------------------------------------


def _bib_arxiv_id(fields: dict[str, str]) -> str | None:
    prefix = (fields.get("archiveprefix") or fields.get("eprinttype") or "").strip().lower()
    if prefix in ("", "arxiv") and (found := _canonical(fields.get("eprint"))):
        return found
    for name in ("doi", "url"):
        if found := _canonical(fields.get(name)):
            return found
    for name in ("journal", "howpublished", "note", "number", "volume", "eprint"):
        value = fields.get(name) or ""
        for pattern in (_ARXIV_IN_TEXT, _CORR_VOLUME):
            for match in pattern.finditer(value):
                if found := _canonical(match.group(1)):
                    return found
    return None


def parse_bibtex(content: str) -> ParsedImport:
    import bibtexparser
    from bibtexparser import model

    parsed = ParsedImport(format="bibtex")
    # bibtexparser logs every malformed block; the person gets them as problems instead.
    logging.getLogger("bibtexparser").setLevel(logging.ERROR)
    library = bibtexparser.parse_string(content.lstrip("\ufeff"))
    for block in library.blocks:
        line = (block.start_line or 0) + 1
        if isinstance(block, model.DuplicateBlockKeyBlock) and block.ignore_error_block:
            block = block.ignore_error_block  # a repeated key is still a paper to import
        elif isinstance(block, model.ParsingFailedBlock):
            parsed.problems.append(
                ImportProblem(line, "this entry could not be read (unbalanced braces or quotes?)")
            )
            continue
        if not isinstance(block, model.Entry):
            continue
        fields = {f.key.lower(): str(f.value) for f in block.fields}
        arxiv_id = _bib_arxiv_id(fields)
        if arxiv_id is None:
            parsed.problems.append(
                ImportProblem(line, f"@{block.entry_type}{{{block.key}}} has no arXiv id")
            )
            continue
        note = _note(line, bibtex_unescape_text(fields.get("note", "")), parsed)
        if note is not None:
            parsed.entries.append((line, NewItem(arxiv_id=arxiv_id, note=note)))
    return parsed


# --- CSV (ours and Zotero's) -----------------------------------------------------------------

# Where each kind of export keeps the id: ours in arxiv_id; Zotero's preprints in "Archive ID"
# (exported as "Number"), the DOI, the URL, or "Extra" ("arXiv:2501.01234 [cs]").
_CSV_ID_COLUMNS = ("arxiv_id", "arxiv id", "eprint", "archive id", "number", "doi", "url", "extra")
_CSV_NOTE_COLUMNS = ("note", "notes")


def _csv_text(value: str) -> str:
    # Undo exports.csv_cell: the `'` it put before a cell a spreadsheet would run.
    return value[1:] if value[:1] == "'" and csv_cell_is_formula(value[1:]) else value


def parse_csv(content: str) -> ParsedImport:
    parsed = ParsedImport(format="csv")
    reader = csv.reader(io.StringIO(content.lstrip("\ufeff"), newline=""))
    try:
        header = next(reader)
    except (StopIteration, csv.Error):
        parsed.problems.append(ImportProblem(1, "no header row"))
        return parsed
    columns = {name.strip().lower(): index for index, name in enumerate(header)}
    id_columns = [columns[name] for name in _CSV_ID_COLUMNS if name in columns]
    if not id_columns:
        parsed.problems.append(
            ImportProblem(1, "no column with arXiv ids (arxiv_id, Url, DOI, Archive ID or Extra)")
        )
        return parsed
    note_column = next((columns[n] for n in _CSV_NOTE_COLUMNS if n in columns), None)
    state_column = columns.get("read_state")
    title_column = columns.get("title")
    start = reader.line_num + 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            parsed.problems.append(ImportProblem(start, f"this row could not be read: {exc}"))
            start = reader.line_num + 1
            continue
        line, start = start, reader.line_num + 1
        if not any(cell.strip() for cell in row):
            continue
        cells = [row[i] if i < len(row) else "" for i in range(len(header))]
        arxiv_id = None
        for index in id_columns:
            value = cells[index]
            arxiv_id = _canonical(value)
            if arxiv_id is None and (match := _ARXIV_IN_TEXT.search(value)):
                arxiv_id = _canonical(match.group(1))
            if arxiv_id:
                break
        if arxiv_id is None:
            title = _csv_text(cells[title_column]) if title_column is not None else ""
            parsed.problems.append(
                ImportProblem(
                    line, "no arXiv id in this row" + (f" ({title[:60]!r})" if title else "")
                )
            )
            continue
        note = ""
        if note_column is not None:
            note = _csv_text(cells[note_column])
            if "<" in note:  # Zotero exports notes as HTML
                note = html.unescape(strip_tags(note.replace("</p>", "</p>\n")))
        kept = _note(line, note, parsed)
        if kept is None:
            continue
        state = cells[state_column].strip() if state_column is not None else ""
        parsed.entries.append(
            (
                line,
                NewItem(
                    arxiv_id=arxiv_id,
                    note=kept,
                    read_state=state if state in ListItem.ReadState.values else None,
                ),
            )
        )
    return parsed


PARSERS = {"bibtex": parse_bibtex, "ids": parse_ids, "csv": parse_csv}


def import_format(name) -> str:
    key = str(name or "auto").strip().lower()
    key = {"bib": "bibtex", "txt": "ids", "text": "ids", "zotero-csv": "csv"}.get(key, key)
    if key not in IMPORT_FORMATS:
        raise InvalidInput(
            f"Unknown import format {str(name)[:40]!r}: use one of {', '.join(IMPORT_FORMATS)}.",
            code="unknown_format",
        )
    return key


def import_precheck(*, content: str, fmt: str = "auto") -> tuple[str, int]:
    """Refuse what is too large before any parsing, cheaply (one regex or line count over the
    text): a file of 300,000 `@misc{` openers took the BibTeX parser 104 s. Returns the format
    (detected when "auto") and an estimate of its entries; InvalidInput if unusable."""
    fmt = import_format(fmt)
    if not isinstance(content, str) or not content.strip():
        raise InvalidInput("There is nothing to import.", code="empty_import")
    if len(content) > MAX_IMPORT_CHARS:
        raise InvalidInput(
            f"An import has at most {MAX_IMPORT_CHARS:,} characters.", code="import_too_large"
        )
    if "\x00" in content:  # no text format has one, and PostgreSQL can't store it in a note
        raise InvalidInput("The file has NUL bytes: it is not a text file.", code="not_text")
    if fmt == "auto":
        fmt = detect_format(content)
    if fmt == "bibtex":
        estimate = sum(1 for _ in _BIB_OPENER.finditer(content))
        if estimate > MAX_IMPORT_ENTRIES:
            raise _too_many(estimate)
    else:
        lines = content.count("\n") + 1
        if lines > MAX_IMPORT_LINES:
            raise InvalidInput(
                f"An import has at most {MAX_IMPORT_LINES:,} lines; this one has {lines:,}. "
                "Split it and import the parts.",
                code="too_many_entries",
            )
        # Each line that is neither blank nor a comment holds an entry (or a problem).
        estimate = sum(1 for line in content.splitlines() if line.strip()[:1] not in ("", "#"))
        if estimate > MAX_IMPORT_ENTRIES + (fmt == "csv"):  # a CSV's header is no entry
            raise _too_many(estimate - (fmt == "csv"))
    return fmt, estimate


def _too_many(count: int) -> InvalidInput:
    return InvalidInput(
        f"An import has at most {MAX_IMPORT_ENTRIES} papers; this one has "
        f"{count}. Split it and import the parts.",
        code="too_many_entries",
    )


def import_parse(*, content: str, fmt: str = "auto") -> ParsedImport:
    """Parse without writing anything; InvalidInput if the whole file is unusable. The problems
    kept are the first MAX_REPORTED_PROBLEMS by line; `problems_omitted` counts the rest."""
    fmt, _ = import_precheck(content=content, fmt=fmt)
    parsed = PARSERS[fmt](content)
    if len(parsed.entries) > MAX_IMPORT_ENTRIES:
        raise _too_many(len(parsed.entries))
    problems = sorted(parsed.problems, key=lambda p: p.line)
    parsed.problems = problems[:MAX_REPORTED_PROBLEMS]
    parsed.problems_omitted = len(problems) - len(parsed.problems)
    return parsed


def list_import(
    *,
    user,
    list_id: int,
    content: str | None = None,
    fmt: str = "auto",
    parsed: ParsedImport | None = None,
    expected_version: int | None = None,
    progress=None,
) -> ImportReport:
    """Import into one of the user's lists, from `content` or from what import_parse made of
    it (so that a caller who parsed to check the file does not parse it twice). Papers already
    there keep their note unless it was empty. Returns what was imported, what was there
    already, and the first problems by line. `progress(done, total)` is called as it saves."""
    if parsed is None:
        if content is None:
            raise ValueError("list_import needs the content or what import_parse made of it")
        parsed = import_parse(content=content, fmt=fmt)
    result = list_items_add(
        user=user,
        list_id=list_id,
        entries=[entry for _, entry in parsed.entries],
        expected_version=expected_version,
        overwrite_note=False,
        progress=progress,
    )
    return ImportReport(
        format=parsed.format,
        imported=[item.arxiv_id for item in result.created],
        already=[item.arxiv_id for item in result.existing],
        pending=result.pending,
        problems=parsed.problems,
        problems_omitted=parsed.problems_omitted,
        version=result.version,
    )
