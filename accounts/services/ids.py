"""arXiv ids as the accounts services take them: any form in, canonical out, unknown ones queued."""

from __future__ import annotations

from papers.arxiv_ids import InvalidArxivId, parse_arxiv_id
from papers.models import Paper
from papers.services import lookup


def canonical_id(text) -> str:
    """The canonical id (no version) of any accepted form; InvalidInput with the reason if not."""
    from accounts.errors import InvalidInput

    try:
        return parse_arxiv_id(text).canonical
    except InvalidArxivId as exc:
        raise InvalidInput(str(exc), code="invalid_arxiv_id") from None


def canonical_ids(texts: list) -> list[str]:
    """Canonical ids in input order without duplicates; InvalidInput naming every bad one."""
    from accounts.errors import InvalidInput

    good: list[str] = []
    bad: list[str] = []
    for text in texts:
        try:
            good.append(parse_arxiv_id(text).canonical)
        except InvalidArxivId:
            bad.append(str(text)[:60])
    if bad:
        shown = ", ".join(repr(b) for b in bad[:10]) + (" …" if len(bad) > 10 else "")
        raise InvalidInput(
            f"Not arXiv ids: {shown}. Nothing was saved.", code="invalid_arxiv_id", invalid_ids=bad
        )
    return list(dict.fromkeys(good))


def papers_by_arxiv_id(arxiv_ids: list[str]) -> dict[str, Paper]:
    return {p.arxiv_id: p for p in Paper.objects.filter(arxiv_id__in=arxiv_ids)}


def queue_unknown(arxiv_ids: list[str], known: dict[str, Paper]) -> list[str]:
    """Queue ids we have no paper for yet for an on-demand fetch; return them."""
    missing = [arxiv_id for arxiv_id in arxiv_ids if arxiv_id not in known]
    if missing:
        # Through the module, so that one patch of lookup.pending_register covers every caller.
        lookup.pending_register(arxiv_ids=missing)
    return missing
