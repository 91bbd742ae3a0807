"""Server-rendered pages of the papers app: one paper, and search. Also the helpers every page
with a list of papers shares (newest-first cursor pages, row decoration, the 400 page)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from urllib.parse import urlencode

from django.db import connection
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.dateparse import parse_datetime
from django.views.decorators.http import require_safe

from papers.arxiv_ids import InvalidArxivId, parse_arxiv_id
from papers.models import Paper
from papers.paging import InvalidCursor, newest_first_slice
from papers.reasons import reason_line
from papers.rows import decorate_rows
from papers.search import search_terms
from papers.selectors import paper_get, paper_list
from topics.models import Topic

PAGE_SIZE = 25
# Same bound as the API's `q`: longer text is not a search someone typed.
SEARCH_MAX_LENGTH = 500
CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
TOPIC_MATCHES_SHOWN = 12


class BadPageRequest(Exception):
    """Input a page cannot use; rendered as a 400 page with this message."""

    def __init__(self, message: str, *, title: str = "That request could not be read") -> None:
        super().__init__(message)
        self.message = message
        self.title = title


def bad_request_page(request: HttpRequest, error: BadPageRequest) -> HttpResponse:
    """The 400 page, with a link that starts the same page again without the bad part."""
    restart = request.path
    query = " ".join(request.GET.get("q", "").split())
    if query and len(query) <= SEARCH_MAX_LENGTH:
        restart += "?" + urlencode({"q": query})
    return render(
        request,
        "400.html",
        {"error_title": error.title, "error_message": error.message, "restart_url": restart},
        status=400,
    )


# --- Newest-first cursor pages (papers.paging) --------------------------------------------------


def broken_cursor() -> BadPageRequest:
    return BadPageRequest(
        "The page link is broken or out of date: its “cursor” could not be read. "
        "Start again from the newest papers.",
        title="That page link is broken",
    )


@dataclass
class PaperPage:
    papers: list[Paper]
    next_cursor: str | None
    is_first: bool


def newest_first_page(
    papers: QuerySet[Paper], cursor: str | None, *, page_size: int | None = None
) -> PaperPage:
    """One page of papers, newest first, after the row the cursor names (keyset pagination)."""
    try:
        rows, next_cursor = newest_first_slice(papers, cursor=cursor, size=page_size or PAGE_SIZE)
    except InvalidCursor:
        raise broken_cursor() from None
    decorate_rows(rows)
    return PaperPage(papers=rows, next_cursor=next_cursor, is_first=not cursor)


# --- Why a tag was given --------------------------------------------------------------------------
# The tagger (topics/tagger/engine.py) writes keys like these; anything else is shown by its name.

_ARXIV_LIKE = re.compile(r"^(\d{4}\.\d{4,5}|[a-z\-]+(\.[A-Z]{2})?/\d{7})(v\d+)?$")
_LABELS = {
    "phrases": "Matched phrases",
    "matched_phrases": "Matched phrases",
    "matches": "Matched phrases",
    "keywords": "Matched keywords",
    "aliases": "Matched names",
    "similarity": "Similarity to the description",
    "similarity_keywords": "Similarity to the keywords",
    "description_similarity": "Similarity to the description",
    "example_similarity": "Similarity to example papers",
    "examples": "Nearest example papers",
    "neighbours": "Similar tagged papers",
    "neighbors": "Similar tagged papers",
    "nearest": "Similar tagged papers",
    "categories": "Matching arXiv categories",
    "category": "Matching arXiv category",
    "category_prior": "arXiv category prior",
    "implied_by": "Implied by the subtopic",
    "own_score": "Score on its own",
    "low_confidence": "Low confidence",
    "note": "Note",
    "reason": "Reason",
}
_FIRST = {
    key: i
    for i, key in enumerate(["phrases", "matched_phrases", "matches", "implied_by", "examples"])
}
_QUOTED = {"phrases", "matched_phrases", "matches", "keywords", "aliases"}
_TOPIC_KEYS = {"implied_by", "parent_of"}
_TEXT_KEYS = ("text", "phrase", "term", "keyword", "title", "name", "slug", "arxiv_id", "id")
_ID_KEYS = ("arxiv_id", "id", "paper")


def evidence_items(evidence, *, topic_names: dict[str, str] | None = None) -> list[dict]:
    """The evidence dict as rows a template can show without knowing the tagger's keys.

    Each row is {"label", "text", "chips": [{"text", "note", "href", "quoted"}]}. Known keys get
    friendly labels; any other key is shown under its own name, so nothing the tagger says is
    hidden. Topic slugs become links named after the topic when `topic_names` knows them.
    """
    if not evidence:
        return []
    if not isinstance(evidence, dict):
        evidence = {"note": evidence}
    items = []
    # What a reader checks first: the words that matched, then the rest in the tagger's order.
    ordered = sorted(evidence.items(), key=lambda kv: _FIRST.get(str(kv[0]), len(_FIRST)))
    for key, value in ordered:
        key = str(key)
        if value in (None, "", [], {}):
            continue
        label = _LABELS.get(key, key.replace("_", " ").capitalize())
        if key in _TOPIC_KEYS:
            slugs = value if isinstance(value, list | tuple) else [value]
            chips = [_topic_chip(slug, topic_names or {}) for slug in slugs[:12]]
            items.append({"label": label, "text": "", "chips": [c for c in chips if c["text"]]})
        elif isinstance(value, bool):
            items.append({"label": label, "text": "yes" if value else "no", "chips": []})
        elif isinstance(value, int | float):
            items.append({"label": label, "text": _number(value), "chips": []})
        elif isinstance(value, str):
            chip = _chip(value, quoted=False)
            if chip["href"]:
                items.append({"label": label, "text": "", "chips": [chip]})
            else:
                items.append({"label": label, "text": value[:300], "chips": []})
        elif isinstance(value, list | tuple):
            chips = [_chip(entry, quoted=key in _QUOTED) for entry in value[:12]]
            items.append({"label": label, "text": "", "chips": [c for c in chips if c["text"]]})
        elif isinstance(value, dict):
            parts = [f"{k.replace('_', ' ')}: {_plain(v)}" for k, v in list(value.items())[:8]]
            items.append({"label": label, "text": "; ".join(parts), "chips": []})
        else:
            items.append({"label": label, "text": str(value)[:300], "chips": []})
    return items


def evidence_topic_slugs(evidence) -> set[str]:
    """Topic slugs an evidence dict points at (to look their names up in one query)."""
    if not isinstance(evidence, dict):
        return set()
    slugs = set()
    for key in _TOPIC_KEYS:
        value = evidence.get(key)
        for slug in value if isinstance(value, list | tuple) else [value]:
            if isinstance(slug, str):
                slugs.add(slug)
    return slugs


def _number(value: float) -> str:
    return f"{value:.2f}" if isinstance(value, float) else f"{value:,}"


def _plain(value) -> str:
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, list | tuple):
        return ", ".join(_plain(v) for v in value[:6])
    return str(value)[:120]


def _topic_chip(slug, names: dict[str, str]) -> dict:
    slug = str(slug)
    href = reverse("topic-detail", args=[slug]) if re.fullmatch(r"[-a-zA-Z0-9_]+", slug) else ""
    return {"text": names.get(slug, slug)[:200], "note": "", "href": href, "quoted": False}


def _chip(entry, *, quoted: bool) -> dict:
    """One matched phrase or example paper: its text, a small note (where it matched, how often,
    how similar), and a link when it names a paper."""
    text, note, href = "", "", ""
    if isinstance(entry, dict):
        for key in _TEXT_KEYS:
            if isinstance(entry.get(key), str | int) and str(entry[key]).strip():
                text = str(entry[key])
                break
        notes = []
        if entry.get("where"):
            notes.append(str(entry["where"]))
        if isinstance(entry.get("count"), int) and entry["count"] > 1:
            notes.append(f"×{entry['count']}")
        for key in ("similarity", "score"):
            if isinstance(entry.get(key), int | float):
                notes.append(f"{key} {_number(float(entry[key]))}")
        note = ", ".join(notes)
        paper_id = next((str(entry[k]) for k in _ID_KEYS if entry.get(k)), "")
        if _ARXIV_LIKE.match(paper_id):
            href = reverse("paper-detail", args=[paper_id])
        if not text:  # a shape we do not know: show it whole rather than hide it
            text = "; ".join(f"{k}: {_plain(v)}" for k, v in list(entry.items())[:6])
            note = ""
    elif isinstance(entry, list | tuple) and entry:
        text = str(entry[0])
        note = ", ".join(_plain(v) for v in entry[1:3])
    elif entry is not None:
        text = _number(entry) if isinstance(entry, float) else str(entry)
    text = text[:200]
    if not href and _ARXIV_LIKE.match(text):
        href = reverse("paper-detail", args=[text])
    return {"text": text, "note": note[:80], "href": href, "quoted": quoted and not href}


# --- Pages ----------------------------------------------------------------------------------------


def _version_rows(paper: Paper) -> list[dict]:
    rows = []
    for entry in paper.versions or []:
        if not isinstance(entry, dict):
            continue
        when = entry.get("date")
        parsed: date | None = None
        if isinstance(when, str):
            parsed = parse_datetime(when)
            if parsed is None:
                try:
                    parsed = date.fromisoformat(when[:10])
                except ValueError:
                    parsed = None
        rows.append(
            {
                "version": entry.get("version"),
                "date": parsed,
                "date_text": "" if parsed else str(when or ""),
                "size": entry.get("size", ""),
                "is_datetime": isinstance(parsed, datetime),
            }
        )
    return rows


@require_safe
def paper_detail(request: HttpRequest, raw_id: str) -> HttpResponse:
    try:
        parsed = parse_arxiv_id(raw_id)
    except InvalidArxivId:
        raise Http404(f"“{raw_id[:80]}” is not an arXiv identifier.") from None
    if raw_id != parsed.canonical:
        return redirect("paper-detail", parsed.canonical, permanent=True)
    paper = paper_get(arxiv_id=parsed.canonical)
    if paper is None:
        raise Http404(f"We do not have arXiv:{parsed.canonical} yet.")
    tags = list(paper.tags.all())
    slugs = set().union(*(evidence_topic_slugs(tag.evidence) for tag in tags))
    names = dict(Topic.objects.filter(slug__in=slugs).values_list("slug", "name")) if slugs else {}
    for tag in tags:
        tag.why = evidence_items(tag.evidence, topic_names=names)
        tag.reason = reason_line(tag.evidence, topic_names=names)
        tag.percent = round(max(0.0, min(1.0, tag.confidence)) * 100)
    doi = (paper.doi or "").strip()
    license_url = paper.license if paper.license.startswith(("http://", "https://")) else ""
    return render(
        request,
        "papers/paper_detail.html",
        {
            "paper": paper,
            "tags": tags,
            "authors": _author_rows(paper),
            "versions": _version_rows(paper),
            "doi_url": f"https://doi.org/{doi}" if doi else "",
            "license_url": license_url,
            "license_name": license_name(paper.license),
        },
    )


def license_name(license_text: str) -> str:
    """A short name for the licence URLs arXiv uses ("CC BY 4.0"), or the text as given."""
    text = (license_text or "").strip()
    if match := re.search(r"creativecommons\.org/licenses/([a-z\-]+)/([\d.]+)", text):
        return f"CC {match[1].upper()} {match[2]}"
    if match := re.search(r"creativecommons\.org/publicdomain/zero/([\d.]+)", text):
        return f"CC0 {match[1]}"
    if "arxiv.org/licenses/nonexclusive-distrib" in text:
        return "arXiv non-exclusive distribution licence"
    return text


def _author_rows(paper: Paper) -> list[dict]:
    affiliations = paper.affiliations or []
    rows = []
    for index, name in enumerate(paper.authors or []):
        affiliation = affiliations[index] if index < len(affiliations) else None
        if isinstance(affiliation, list):
            affiliation = "; ".join(str(a) for a in affiliation if a)
        rows.append({"name": str(name), "affiliation": str(affiliation or "")})
    return rows


def search_query(request: HttpRequest) -> str:
    """The `q` parameter, or a BadPageRequest saying what is wrong with it."""
    query = request.GET.get("q", "")
    if len(query) > SEARCH_MAX_LENGTH:
        raise BadPageRequest(
            f"That search is {len(query):,} characters long; searches can be at most "
            f"{SEARCH_MAX_LENGTH} characters. Try a few distinctive words from the title or "
            "abstract.",
            title="That search is too long",
        )
    # Control characters (a NUL byte, ...) are not text anyone searches for, and PostgreSQL and
    # the Atom feed refuse them.
    return " ".join(CONTROL_CHARACTERS.sub(" ", query).split())


def search_papers(query: str) -> QuerySet[Paper] | None:
    """Papers matching the query, or None when it has no word we can search for."""
    if connection.vendor != "postgresql" and not search_terms(query):
        return None
    if not re.search(r"\w\w", query):
        return None
    return paper_list(query=query)


@require_safe
def search(request: HttpRequest) -> HttpResponse:
    from topics.selectors import topic_list

    try:
        query = search_query(request)
        papers = search_papers(query) if query else None
        page = newest_first_page(papers, request.GET.get("cursor")) if papers is not None else None
    except BadPageRequest as error:
        return bad_request_page(request, error)
    topics = topic_list(query=query)[:TOPIC_MATCHES_SHOWN] if query else []
    return render(
        request,
        "papers/search.html",
        {
            "query": query,
            "page": page,
            "topics": topics,
            "too_short": bool(query) and papers is None,
            "base_query": urlencode({"q": query}) if query else "",
            "feed_url": f"{reverse('search-feed')}?{urlencode({'q': query})}"
            if query and papers is not None
            else "",
        },
    )
