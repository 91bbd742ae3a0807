"""What one digest says: the papers that arrived in the person's followed (unmuted) topics in a
window of time, grouped by topic, and the news about papers they saved; and the email that says
it (plain text and HTML, with List-Unsubscribe).

Reads only: sending and its bookkeeping live in services.delivery.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse

from accounts.models import Follow, Hidden, ListItem, PaperAlert
from accounts.services.alerts import alert_text, alerts_for_user, doi_url
from accounts.services.signed_links import absolute, save_link_url, unsubscribe_url
from papers.models import Paper
from papers.paging import newest_first
from papers.selectors import tags_prefetch
from topics.models import PaperTopic, Topic

if TYPE_CHECKING:
    from django.contrib.auth.models import User

SHOWN_AUTHORS = 6
SHOWN_TAGS = 5


@dataclass
class DigestPaper:
    paper: Paper
    tags: list[str]
    saved: bool
    save_url: str

    @property
    def title(self) -> str:
        return " ".join(self.paper.title.split())

    @property
    def authors(self) -> str:
        names = self.paper.authors or []
        shown = ", ".join(names[:SHOWN_AUTHORS])
        more = len(names) - SHOWN_AUTHORS
        return shown + (f" +{more}" if more > 0 else "") if names else "Unknown authors"

    @property
    def url(self) -> str:
        return absolute(reverse("paper-detail", args=[self.paper.arxiv_id]))

    @property
    def abs_url(self) -> str:
        return self.paper.abs_url

    @property
    def revised(self) -> bool:
        """First seen here at a later version: a replacement more than a brand-new paper."""
        return self.paper.version > 1


@dataclass
class DigestGroup:
    topic: Topic
    papers: list[DigestPaper]
    more: int = 0  # new papers left out of the mail for length

    @property
    def more_url(self) -> str:
        return absolute(reverse("accounts-feed")) + f"?topic={self.topic.slug}"

    @property
    def count(self) -> int:
        return len(self.papers) + self.more


@dataclass
class DigestAlert:
    paper: Paper
    lines: list[str]
    doi_url: str = ""

    @property
    def title(self) -> str:
        return " ".join(self.paper.title.split())

    @property
    def url(self) -> str:
        return absolute(reverse("paper-detail", args=[self.paper.arxiv_id]))


@dataclass
class Digest:
    user: User
    window_start: datetime
    window_end: datetime
    groups: list[DigestGroup] = field(default_factory=list)
    alerts: list[DigestAlert] = field(default_factory=list)
    alert_ids: list[int] = field(default_factory=list)
    arxiv_ids: list[str] = field(default_factory=list)  # every new paper, shown or not

    @property
    def is_empty(self) -> bool:
        return not self.arxiv_ids and not self.alert_ids

    @property
    def paper_count(self) -> int:
        return len(self.arxiv_ids)

    @property
    def subject(self) -> str:
        parts = []
        if self.arxiv_ids:
            names = [group.topic.name for group in self.groups]
            shown = ", ".join(names[:2]) + (f" and {len(names) - 2} more" if len(names) > 2 else "")
            count = len(self.arxiv_ids)
            parts.append(f"{count} new paper{'s' if count != 1 else ''} in {shown}")
        if self.alerts:
            count = len(self.alerts)
            parts.append(f"{count} saved paper{'s' if count != 1 else ''} updated")
        return "; ".join(parts) + " · Paperscope"


def digest_compose(*, user, window_start: datetime, window_end: datetime) -> Digest:
    """The digest of papers that arrived in (window_start, window_end] and were tagged with one
    of the person's followed, unmuted topics, minus the papers they hid; each paper once, under
    its best-ranked followed topic. Plus every alert not yet in a sent digest."""
    digest = Digest(user=user, window_start=window_start, window_end=window_end)
    topics = {
        follow.topic_id: follow.topic
        for follow in Follow.objects.filter(
            user=user, digest_muted=False, topic__active=True
        ).select_related("topic", "topic__area")
    }
    if topics:
        _add_papers(digest, topics)
    _add_alerts(digest)
    return digest


def _add_papers(digest: Digest, topics: dict[int, Topic]) -> None:
    user = digest.user
    rows = (
        PaperTopic.objects.filter(
            topic_id__in=list(topics),
            paper__created_at__gt=digest.window_start,
            paper__created_at__lte=digest.window_end,
            paper__tagged_at__isnull=False,
        )
        .exclude(paper_id__in=Hidden.objects.filter(user=user).values("paper_id"))
        .values_list("paper_id", "topic_id", "rank", "score")
    )
    best: dict[int, tuple] = {}
    for paper_id, topic_id, rank, score in rows:
        key = (rank, -score, topics[topic_id].name, topic_id)
        if paper_id not in best or key < best[paper_id]:
            best[paper_id] = key
    if not best:
        return
    papers = list(
        newest_first(Paper.objects.filter(id__in=list(best))).prefetch_related(tags_prefetch())
    )
    saved = set(
        ListItem.objects.filter(
            reading_list__user=user, arxiv_id__in=[p.arxiv_id for p in papers]
        ).values_list("arxiv_id", flat=True)
    )
    by_topic: dict[int, list[Paper]] = {}
    for paper in papers:
        by_topic.setdefault(best[paper.id][3], []).append(paper)
    limit = settings.DIGEST_MAX_PAPERS_PER_TOPIC
    for topic_id in sorted(by_topic, key=lambda pk: topics[pk].name.lower()):
        members = by_topic[topic_id]
        digest.groups.append(
            DigestGroup(
                topic=topics[topic_id],
                papers=[_digest_paper(paper, user, saved) for paper in members[:limit]],
                more=max(0, len(members) - limit),
            )
        )
        digest.arxiv_ids.extend(paper.arxiv_id for paper in members)


def _digest_paper(paper: Paper, user, saved: set[str]) -> DigestPaper:
    is_saved = paper.arxiv_id in saved
    return DigestPaper(
        paper=paper,
        tags=[tag.topic.name for tag in paper.chips[:SHOWN_TAGS]],
        saved=is_saved,
        save_url="" if is_saved else save_link_url(user_id=user.pk, arxiv_id=paper.arxiv_id),
    )


def _add_alerts(digest: Digest) -> None:
    # Alerts are not windowed: every one not yet in a sent digest goes into this one.
    alerts = alerts_for_user(user=digest.user).filter(delivery__isnull=True)
    by_paper: dict[int, DigestAlert] = {}
    order = {kind: n for n, kind in enumerate(PaperAlert.Kind.values)}
    for alert in sorted(alerts, key=lambda a: (a.paper.arxiv_id, order[a.kind])):
        entry = by_paper.setdefault(alert.paper_id, DigestAlert(paper=alert.paper, lines=[]))
        entry.lines.append(alert_text(alert))
        if alert.kind == PaperAlert.Kind.DOI:
            entry.doi_url = doi_url(alert.value)
        digest.alert_ids.append(alert.pk)
    digest.alerts = list(by_paper.values())


# --- the email ---------------------------------------------------------------------------


def digest_context(digest: Digest) -> dict:
    user = digest.user
    return {
        "digest": digest,
        "user": user,
        "site_url": settings.DIGEST_BASE_URL.rstrip("/"),
        "account_url": absolute(reverse("accounts-account")) + "#digest",
        "feed_url": absolute(reverse("accounts-feed")),
        "lists_url": absolute(reverse("accounts-lists")),
        "unsubscribe_url": unsubscribe_url(user_id=user.pk),
        "save_days": settings.DIGEST_SAVE_LINK_DAYS,
    }


def digest_render(digest: Digest) -> tuple[str, str]:
    """(plain text, HTML) of a digest."""
    context = digest_context(digest)
    text = render_to_string("accounts/emails/digest.txt", context)
    html = render_to_string("accounts/emails/digest.html", context)
    return text, html


def digest_message(*, digest: Digest, to: str, message_key: str) -> EmailMultiAlternatives:
    """The email of a digest. `message_key` makes the Message-ID, the same for every attempt
    at one delivery: a copy sent twice has one identity, which many mail clients collapse."""
    text, html = digest_render(digest)
    unsubscribe = unsubscribe_url(user_id=digest.user.pk)
    domain = urlsplit(settings.DIGEST_BASE_URL).hostname or "localhost"
    sender_domain = settings.DEFAULT_FROM_EMAIL.rpartition("@")[2].strip("> ") or domain
    message = EmailMultiAlternatives(
        subject=digest.subject,
        body=text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[to],
        headers={
            "Message-ID": f"<digest.{message_key}@{sender_domain}>",
            "List-Id": f"Paperscope digest <digest.{domain}>",
            # RFC 2369 and RFC 8058: mail clients show an unsubscribe button that POSTs here.
            "List-Unsubscribe": f"<{unsubscribe}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )
    message.attach_alternative(html, "text/html")
    return message
