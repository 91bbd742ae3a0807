"""A paper's full text, fetched once through the arXiv gate (the HTML rendering where arXiv has
one, the PDF otherwise), split into sections and passages, and kept."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.cache import cache
from django.db import transaction

from ask.models import PaperText
from ask.services.passages import passages_replace_fulltext
from ask.text import Section, chunk_sections, sections_from_html, sections_from_pdf
from papers.clients.errors import ArxivError, ArxivPermanentError, ArxivTransientError
from papers.models import Paper

logger = logging.getLogger(__name__)

MIN_HTML_CHARS = 1500  # less than this from the HTML page: not a paper's text, try the PDF
FETCH_LOCK_SECONDS = 10 * 60
RETRY_SECONDS = 5 * 60  # after a transient failure, unless arXiv's Retry-After says longer
WAIT_KEY = "ask:fulltext:wait"  # arXiv asked us (or failed) to wait: no fetch before it expires
_said_unreachable = False


def _say_unreachable_once(exc: Exception) -> None:
    global _said_unreachable
    if not _said_unreachable:
        _said_unreachable = True
        logger.warning("arXiv full text unreachable (%s); Ask answers from abstracts", exc)


def _chars(sections: list[Section]) -> int:
    return sum(len(p) for s in sections for p in s.paragraphs)


def _fetch_sections(http, paper: Paper) -> tuple[str, list[Section]]:
    """("html" or "pdf", sections); raises ArxivError when neither can be had."""
    versioned = f"{paper.arxiv_id}v{paper.version}"
    try:
        sections = sections_from_html(http.get(f"{settings.ARXIV_HTML_URL}/{versioned}"))
        if _chars(sections) >= MIN_HTML_CHARS:
            return PaperText.Source.HTML, sections
    except ArxivPermanentError as exc:
        if exc.code not in (404, 410):
            raise
    body = http.get(f"{settings.ARXIV_PDF_URL}/{versioned}")
    if not body.startswith(b"%PDF"):
        raise ArxivPermanentError("the PDF URL did not answer with a PDF")
    try:
        return PaperText.Source.PDF, sections_from_pdf(body)
    except Exception as exc:  # noqa: BLE001 - pypdf raises many kinds on a broken file
        raise ArxivPermanentError(f"unreadable PDF: {type(exc).__name__}: {exc}") from exc


def paper_text_fetch(*, paper_id: int, http=None) -> PaperText | None:
    """The paper's stored full text, fetching it first when it is missing or of an older
    version. None when it cannot be had now (arXiv unreachable: said once in the log; or
    another worker is fetching it). A paper arXiv has no text for is stored as source NONE
    with the reason, and not asked for again until its version changes."""
    paper = Paper.objects.filter(id=paper_id).first()
    if paper is None:
        return None
    stored = PaperText.objects.filter(paper=paper).first()
    if stored is not None and stored.version == paper.version:
        return stored
    if not settings.ASK_FULLTEXT_FETCH:
        return stored
    if cache.get(WAIT_KEY):
        return stored
    lock = f"ask:fulltext:{paper.id}"
    if not cache.add(lock, 1, FETCH_LOCK_SECONDS):
        return stored
    own_http = http is None
    if own_http:
        from ask.clients import fulltext_http

        http = fulltext_http()
    try:
        source, sections = _fetch_sections(http, paper)
        error = ""
    except ArxivTransientError as exc:
        # Honour Retry-After (and give an unreachable arXiv a few minutes) for every paper:
        # questions asked meanwhile are answered from abstracts without knocking again.
        cache.set(WAIT_KEY, 1, max(RETRY_SECONDS, int(exc.retry_after or 0)))
        _say_unreachable_once(exc)
        return stored
    except ArxivError as exc:
        source, sections, error = PaperText.Source.NONE, [], str(exc)[:500]
        logger.info("no full text for %s: %s", paper.arxiv_id, error)
    finally:
        cache.delete(lock)
        if own_http:
            http.close()
    return paper_text_store(paper=paper, source=source, sections=sections, error=error)


@transaction.atomic
def paper_text_store(
    *, paper: Paper, source: str, sections: list[Section], error: str = ""
) -> PaperText:
    chunks = chunk_sections(sections)
    text, _ = PaperText.objects.update_or_create(
        paper=paper,
        defaults={
            "source": source,
            "version": paper.version,
            "sections": [{"title": s.title, "chars": _chars([s])} for s in sections],
            "chars": _chars(sections),
            "error": error,
        },
    )
    passages_replace_fulltext(paper=paper, chunks=chunks)
    return text


def paper_text_status(*, paper: Paper) -> str:
    """What Ask can answer this paper from: "html" or "pdf" (its full text), "none" (arXiv has
    none), or "pending" (queued now: with eager tasks, fetched before this returns)."""
    text = PaperText.objects.filter(paper=paper, version=paper.version).first()
    if text is None and settings.ASK_FULLTEXT_FETCH:
        from ask.tasks import paper_text_fetch as paper_text_fetch_task

        # Nothing the task needs is being written by the caller, so no on_commit.
        paper_text_fetch_task.delay(paper.id)
        text = PaperText.objects.filter(paper=paper, version=paper.version).first()
    return text.source if text is not None else "pending"
