"""Turning paper text into passages: abstract sentences, and a full text (arXiv's HTML
rendering or a PDF) split into sections and passages of a few sentences. Pure functions, no
Django: what goes in is untrusted text, what comes out is plain text (never markup)."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass

from lxml import html as lxml_html

MIN_SENTENCE_CHARS = 40  # shorter sentences are joined to the next ("Code is released.")
PASSAGE_CHARS = 450  # a full-text passage: a few sentences, cut at a sentence end
MAX_SENTENCE_CHARS = 2000  # a "sentence" longer than this (no full stops) is cut
MAX_SECTIONS = 200
MAX_FULLTEXT_CHARS = 400_000  # enough for a long paper; the rest (appendices) is dropped

# Dots that do not end a sentence: common abbreviations, initials and decimals.
_ABBREVIATIONS = re.compile(
    r"(?:\b(?:e\.g|i\.e|et al|etc|vs|cf|Fig|Figs|Eq|Eqs|Sec|Tab|resp|approx|No|Dr|Prof)\."
    r"|\b[A-Z]\.)$"
)
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[\"'(\[]?[A-Z0-9$\\])")
_SPACE = re.compile(r"\s+")
_STOP_SECTIONS = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?\s*)?(references|bibliography)\s*$", re.I)


def squash(text: str) -> str:
    return _SPACE.sub(" ", text or "").strip()


def sentences(text: str) -> list[str]:
    """The sentences of a paragraph, short ones joined to their neighbour."""
    text = squash(text)
    if not text:
        return []
    pieces: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        candidate = text[start : match.start()].strip()
        if _ABBREVIATIONS.search(candidate):
            continue
        pieces.append(candidate)
        start = match.end()
    pieces.append(text[start:].strip())
    out: list[str] = []
    carry = ""
    for piece in filter(None, pieces):
        piece = f"{carry} {piece}".strip() if carry else piece
        if len(piece) < MIN_SENTENCE_CHARS:
            carry = piece
            continue
        carry = ""
        out.append(piece)
    if carry:
        if out:
            out[-1] = f"{out[-1]} {carry}"
        else:
            out.append(carry)
    return out


@dataclass(frozen=True)
class Section:
    title: str
    paragraphs: list[str]


@dataclass(frozen=True)
class Chunk:
    section: str
    text: str


def chunk_sections(sections: list[Section], *, size: int = PASSAGE_CHARS) -> list[Chunk]:
    """Passages of whole sentences up to ``size`` characters, never across a section."""
    chunks: list[Chunk] = []
    total = 0
    for section in sections[:MAX_SECTIONS]:
        current: list[str] = []
        for paragraph in section.paragraphs:
            for sentence in sentences(paragraph):
                if current and len(" ".join(current)) + len(sentence) + 1 > size:
                    chunks.append(Chunk(section.title, " ".join(current)))
                    current = []
                current.append(sentence[:MAX_SENTENCE_CHARS])
            # A paragraph break is a good place to end a passage that is already half full.
            if current and len(" ".join(current)) > size // 2:
                chunks.append(Chunk(section.title, " ".join(current)))
                current = []
        if current:
            chunks.append(Chunk(section.title, " ".join(current)))
        total += sum(len(p) for p in section.paragraphs)
        if total > MAX_FULLTEXT_CHARS:
            break
    return chunks


# --- arXiv's HTML rendering (LaTeXML) ---------------------------------------------------------
def _has_class(name: str) -> str:
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


_DROP = "|".join(
    [f"//{tag}" for tag in ("script", "style", "nav", "header", "footer", "noscript", "button",
                            "form", "cite", "img")]
    + [f"//*[{_has_class(name)}]" for name in ("ltx_bibliography", "ltx_note", "ltx_page_footer",
                                               "ltx_page_header", "ltx_authors", "ltx_dates",
                                               "ltx_tag_equation")]
)  # fmt: skip
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")


def _text_of(element) -> str:
    # Formulas read as their TeX (LaTeXML keeps it in alttext), not as MathML soup.
    for math in element.iter("math"):
        alt = math.get("alttext")
        if alt is not None:
            tail = math.tail
            math.clear()
            math.text = f" {alt} "
            math.tail = tail
    return squash(element.text_content())


def sections_from_html(body: bytes) -> list[Section]:
    """Sections (heading, paragraphs) of an HTML paper, arXiv's LaTeXML rendering or any page
    with headings and paragraphs. The abstract comes first when the page marks it."""
    root = lxml_html.fromstring(body)
    for element in root.xpath(_DROP):
        if element.getparent() is not None:
            element.drop_tree()
    article = next(iter(root.xpath("//article|//main")), root)
    sections: list[Section] = []
    title, paragraphs = "Abstract", []
    for element in article.iter():
        if not isinstance(element.tag, str):
            continue
        if element.tag in _HEADINGS:
            heading = _text_of(element)
            if paragraphs:
                sections.append(Section(title, paragraphs))
            if "ltx_title_document" in (element.get("class") or ""):
                title, paragraphs = "Abstract", []
                continue
            title, paragraphs = heading[:300], []
            if _STOP_SECTIONS.match(heading):
                break
        elif element.tag == "p" or (element.tag == "figcaption"):
            text = _text_of(element)
            if text:
                paragraphs.append(text)
    else:
        if paragraphs:
            sections.append(Section(title, paragraphs))
    return [s for s in sections if s.paragraphs and not _STOP_SECTIONS.match(s.title)]


# --- PDF ------------------------------------------------------------------------------------
_PDF_HEADING = re.compile(
    r"^(?:(?:\d+(?:\.\d+)*\.?|[IVX]+\.|[A-H]\.?)\s+[A-Z][^.!?]{1,80}|Abstract|ABSTRACT"
    r"|Introduction|INTRODUCTION|Conclusions?|CONCLUSIONS?|Acknowledg(?:e)?ments?)$"
)
_HYPHEN_BREAK = re.compile(r"(\w)-\n(\w)")


def sections_from_pdf(body: bytes) -> list[Section]:
    """Sections of a PDF's text (pypdf's extraction): numbered headings on a line of their own
    start a section, blank lines end paragraphs, and the references end the text."""
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(body))
    text = "\n".join(page.extract_text() or "" for page in reader.pages)
    text = _HYPHEN_BREAK.sub(r"\1\2", text)
    sections: list[Section] = []
    title, paragraphs, current = "Abstract", [], []

    def end_paragraph() -> None:
        if current:
            paragraphs.append(" ".join(current))
            current.clear()

    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            end_paragraph()
            continue
        if _PDF_HEADING.match(line) and len(line) < 90:
            end_paragraph()
            if paragraphs:
                sections.append(Section(title, list(paragraphs)))
            paragraphs.clear()
            title = line
            if _STOP_SECTIONS.match(line):
                return sections
            continue
        current.append(line)
    end_paragraph()
    if paragraphs:
        sections.append(Section(title, list(paragraphs)))
    return sections
