"""Saved-paper alerts: a new version, a journal reference, a DOI or a withdrawal of a paper
someone keeps in a list, measured against the paper as they saved it (ListItem.saved_*).

`alerts_record` runs after the harvester commits changed papers (the papers_updated signal);
it is idempotent, so a replayed signal or a re-imported file adds nothing.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from accounts.errors import NotFoundError
from accounts.models import ListItem, PaperAlert
from papers.models import Paper

Kind = PaperAlert.Kind


@dataclass(frozen=True)
class Change:
    """One piece of news about a saved paper, as the list page and the digest word it."""

    kind: str
    text: str
    url: str = ""


def changes_since_saved(*, paper: Paper | None, items: list[ListItem]) -> dict[str, tuple]:
    """{kind: (new value, what was saved)} for what changed since the earliest of `items`."""
    if paper is None or not items:
        return {}
    found: dict[str, tuple] = {}
    versions = [item.saved_version for item in items if item.saved_version]
    if versions and paper.version > min(versions):
        found[Kind.VERSION] = (str(paper.version), str(min(versions)))
    if paper.journal_ref and any(i.saved_journal_ref != paper.journal_ref for i in items):
        found[Kind.JOURNAL_REF] = (paper.journal_ref, items[0].saved_journal_ref)
    if paper.doi and any(i.saved_doi != paper.doi for i in items):
        found[Kind.DOI] = (paper.doi, items[0].saved_doi)
    if paper.withdrawn:
        found[Kind.WITHDRAWN] = ("", "")
    return found


def change_lines(*, paper: Paper | None, item: ListItem) -> list[Change]:
    """What the list page says under a saved paper: "v3 since you saved it", "Published in …"."""
    found = changes_since_saved(paper=paper, items=[item])
    lines = []
    if Kind.WITHDRAWN in found:
        lines.append(Change(Kind.WITHDRAWN, "Withdrawn by its authors"))
    if Kind.VERSION in found:
        version, saved = found[Kind.VERSION]
        lines.append(Change(Kind.VERSION, f"v{version} since you saved it (you saved v{saved})"))
    if Kind.JOURNAL_REF in found:
        lines.append(Change(Kind.JOURNAL_REF, f"Published in {found[Kind.JOURNAL_REF][0]}"))
    if Kind.DOI in found:
        doi = found[Kind.DOI][0]
        lines.append(Change(Kind.DOI, f"DOI {doi}", url=doi_url(doi)))
    return lines


def alert_text(alert: PaperAlert) -> str:
    if alert.kind == Kind.VERSION:
        saved = f" (you saved v{alert.previous})" if alert.previous else ""
        return f"v{alert.value} since you saved it{saved}"
    if alert.kind == Kind.JOURNAL_REF:
        return f"Published in {alert.value}"
    if alert.kind == Kind.DOI:
        return f"DOI {alert.value}"
    return "Withdrawn by its authors"


def doi_url(doi: str) -> str:
    first = doi.split()[0] if doi.split() else doi  # arXiv sometimes lists two DOIs
    return f"https://doi.org/{first}"


def alerts_record(*, arxiv_ids: list[str]) -> int:
    """Open or refresh alerts for everyone who saved one of these papers; returns rows written."""
    papers = {p.arxiv_id: p for p in Paper.objects.filter(arxiv_id__in=list(arxiv_ids))}
    if not papers:
        return 0
    saved: dict[tuple[int, str], list[ListItem]] = defaultdict(list)
    items = ListItem.objects.filter(arxiv_id__in=list(papers)).select_related("reading_list")
    for item in items:
        saved[(item.reading_list.user_id, item.arxiv_id)].append(item)
    written = 0
    now = timezone.now()
    for (user_id, arxiv_id), user_items in saved.items():
        paper = papers[arxiv_id]
        found = changes_since_saved(paper=paper, items=user_items)
        if not found:
            continue
        with transaction.atomic():
            existing = {
                a.kind: a
                for a in PaperAlert.objects.select_for_update().filter(user_id=user_id, paper=paper)
            }
            for kind, (value, previous) in found.items():
                alert = existing.get(kind)
                if alert is None:
                    PaperAlert.objects.create(
                        user_id=user_id,
                        paper=paper,
                        kind=kind,
                        value=value,
                        previous=previous,
                        created_at=now,
                    )
                elif alert.value != value:
                    # Newer news re-opens the alert: unseen, and due in the next digest.
                    PaperAlert.objects.filter(pk=alert.pk).update(
                        value=value,
                        previous=previous,
                        created_at=now,
                        delivery=None,
                        dismissed_at=None,
                    )
                else:
                    continue
                written += 1
    return written


def alerts_for_user(*, user, include_dismissed: bool = False):
    """The person's alerts about papers still in one of their lists, newest first."""
    still_saved = ListItem.objects.filter(reading_list__user=user).values("arxiv_id")
    alerts = PaperAlert.objects.filter(user=user, paper__arxiv_id__in=still_saved).select_related(
        "paper"
    )
    if not include_dismissed:
        alerts = alerts.filter(dismissed_at__isnull=True)
    return alerts.order_by("-created_at", "-id")


@transaction.atomic
def alert_dismiss(*, user, alert_id: int) -> PaperAlert:
    """Acknowledge one alert: it leaves the API and the digest, and the saved items take the
    paper's current value, so the list page stops showing it too."""
    alert = PaperAlert.objects.filter(user=user, pk=alert_id).select_related("paper").first()
    if alert is None:
        raise NotFoundError(f"No alert {alert_id}.")
    _acknowledge(user=user, paper=alert.paper, kinds=[alert.kind])
    alert.refresh_from_db()
    return alert


@transaction.atomic
def alerts_dismiss_paper(*, user, arxiv_id: str) -> int:
    """Acknowledge everything new about one saved paper (the list page's "Got it")."""
    paper = Paper.objects.filter(arxiv_id=arxiv_id).first()
    if paper is None:
        raise NotFoundError(f"No paper {arxiv_id}.")
    return _acknowledge(user=user, paper=paper, kinds=list(Kind.values))


def _acknowledge(*, user, paper: Paper, kinds: list[str]) -> int:
    items = ListItem.objects.filter(reading_list__user=user, arxiv_id=paper.arxiv_id)
    if Kind.VERSION in kinds:
        items.update(saved_version=paper.version)
    if Kind.JOURNAL_REF in kinds:
        items.update(saved_journal_ref=paper.journal_ref)
    if Kind.DOI in kinds:
        items.update(saved_doi=paper.doi)
    return PaperAlert.objects.filter(
        user=user, paper=paper, kind__in=kinds, dismissed_at__isnull=True
    ).update(dismissed_at=timezone.now())
