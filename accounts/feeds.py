"""Private Atom feeds behind secret URLs: the person's feed, and each reading list.

Feed readers cannot sign in, so the URL is the credential (services.private_feeds): it is
never cached by shared caches, never indexed, and never sent on as a Referer.
"""

from __future__ import annotations

from django.db.models import Prefetch
from django.http import Http404
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from accounts import selectors
from accounts.models import PrivateFeed
from accounts.services.alerts import change_lines
from accounts.services.private_feeds import (
    private_feed_path,
    private_feed_resolve,
    private_feed_touch,
)
from papers.models import Paper
from papers.selectors import tags_prefetch
from topics.feeds import PaperFeed

LIST_FEED_ITEMS = 100


def private_feed(request, token: str):
    """GET /feed/private/<token>/: the feed a secret token names, or 404."""
    feed = private_feed_resolve(token)
    if feed is None:
        raise Http404("No such feed: the address is wrong, or was regenerated or turned off.")
    view = ListFeed() if feed.reading_list_id else PersonalFeed()
    response = view(request, feed=feed)
    response["Cache-Control"] = "private, max-age=300"
    response["X-Robots-Tag"] = "noindex, nofollow"
    response["Referrer-Policy"] = "no-referrer"
    private_feed_touch(feed)
    return response


class PrivateFeedBase(PaperFeed):
    def get_object(self, request, feed: PrivateFeed) -> PrivateFeed:
        return feed

    def feed_url(self, feed: PrivateFeed) -> str:
        return private_feed_path(feed)

    def item_title(self, paper: Paper) -> str:
        title = super().item_title(paper)
        return f"[Withdrawn] {title}" if paper.withdrawn else title


class PersonalFeed(PrivateFeedBase):
    def title(self, feed: PrivateFeed) -> str:
        return f"{feed.user.get_username()}'s feed · Paperscope"

    def subtitle(self, feed: PrivateFeed) -> str:
        return "Newest arXiv papers in the topics you follow, minus the ones you hid."

    def link(self, feed: PrivateFeed) -> str:
        return reverse("accounts-feed")

    def items(self, feed: PrivateFeed) -> list[Paper]:
        return self.newest(selectors.feed_for_user(user=feed.user))


class ListFeed(PrivateFeedBase):
    def title(self, feed: PrivateFeed) -> str:
        return f"{feed.reading_list.name} · {feed.user.get_username()} · Paperscope"

    def subtitle(self, feed: PrivateFeed) -> str:
        return "Papers saved in this reading list, most recently saved first."

    def link(self, feed: PrivateFeed) -> str:
        return reverse("accounts-list-detail", args=[feed.reading_list_id])

    def items(self, feed: PrivateFeed) -> list[Paper]:
        items = list(
            feed.reading_list.items.filter(paper__isnull=False)
            .select_related("paper")
            .prefetch_related(Prefetch("paper__tags", queryset=tags_prefetch().queryset))
            .order_by("-added_at", "-id")[:LIST_FEED_ITEMS]
        )
        papers = []
        for item in items:
            paper = item.paper
            paper.saved_item = item
            paper.changes = change_lines(paper=paper, item=item)
            papers.append(paper)
        return papers

    def item_description(self, paper: Paper) -> str:
        parts = []
        if paper.changes:
            parts.append(
                format_html(
                    "<p><strong>{}</strong></p>",
                    format_html_join(" · ", "{}", ((change.text,) for change in paper.changes)),
                )
            )
        if paper.saved_item.note:
            parts.append(format_html("<p>Your note: {}</p>", paper.saved_item.note))
        return "".join(str(part) for part in parts) + super().item_description(paper)

    def item_pubdate(self, paper: Paper):
        return paper.saved_item.added_at

    def item_updateddate(self, paper: Paper):
        return max(paper.saved_item.added_at, paper.modified_at)
