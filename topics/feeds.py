"""Atom feeds: the newest papers of a topic, and of a search."""

from __future__ import annotations

from datetime import UTC, datetime, time
from urllib.parse import urlencode

from django.contrib.syndication.views import Feed
from django.http import Http404
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.utils.html import format_html, format_html_join

from papers.models import Paper
from papers.paging import newest_first
from papers.views import BadPageRequest, bad_request_page, search_papers, search_query
from topics.models import Topic

FEED_ITEMS = 50
# Feed readers poll, most of them every few minutes, and a topic's newest papers change a few
# times a day (after each harvest): the answer is cached (per URL, in Redis in production) for
# this long and readers are told so (Cache-Control: max-age). The load test measured a feed at a
# tenth of all requests and a fifth of the web's CPU.
FEED_CACHE_SECONDS = 5 * 60


class PaperFeed(Feed):
    """What every paper feed shares: one entry per paper, linking to our page of it."""

    feed_type = Atom1Feed
    author_name = "Paperscope"

    def newest(self, papers) -> list[Paper]:
        return list(newest_first(papers)[:FEED_ITEMS])

    def item_title(self, paper: Paper) -> str:
        return " ".join(paper.title.split())

    def item_link(self, paper: Paper) -> str:
        return reverse("paper-detail", args=[paper.arxiv_id])

    def item_guid(self, paper: Paper) -> str:
        # Stable across instances and hosts, so a reader following two servers sees one entry.
        return paper.abs_url

    item_guid_is_permalink = False

    def item_description(self, paper: Paper) -> str:
        tags = paper.chips
        parts = [
            format_html(
                "<p>{} · {}</p>",
                paper.primary_category or "arXiv",
                ", ".join(paper.authors[:10]) + (" et al." if len(paper.authors) > 10 else ""),
            ),
            format_html("<p>{}</p>", paper.abstract),
        ]
        if tags:
            parts.append(
                format_html(
                    "<p>Topics: {}</p>",
                    format_html_join(", ", "{}", ((tag.topic.name,) for tag in tags)),
                )
            )
        parts.append(format_html('<p><a href="{}">arXiv abstract</a></p>', paper.abs_url))
        return "".join(str(part) for part in parts)

    def item_pubdate(self, paper: Paper) -> datetime:
        if paper.announced:
            return datetime.combine(paper.announced, time.min, tzinfo=UTC)
        return paper.submitted or paper.created_at

    def item_updateddate(self, paper: Paper) -> datetime:
        published = self.item_pubdate(paper)
        return max(published, paper.updated) if paper.updated else published

    def item_author_name(self, paper: Paper) -> str:
        shown = paper.authors[:3]
        more = len(paper.authors) - len(shown)
        return ", ".join(shown) + (f" +{more}" if more > 0 else "") or "Unknown authors"

    def item_categories(self, paper: Paper) -> list[str]:
        return [tag.topic.name for tag in paper.chips]


class TopicFeed(PaperFeed):
    def get_object(self, request, slug: str) -> Topic:
        topic = Topic.objects.select_related("area").filter(slug=slug, active=True).first()
        if topic is None:
            raise Http404(f"There is no topic “{slug}”.")
        return topic

    def title(self, topic: Topic) -> str:
        return f"{topic.name} · Paperscope"

    def subtitle(self, topic: Topic) -> str:
        return f"{topic.area_label}. Newest arXiv papers tagged {topic.name}."

    def link(self, topic: Topic) -> str:
        return reverse("topic-detail", args=[topic.slug])

    def feed_url(self, topic: Topic) -> str:
        return reverse("topic-feed", args=[topic.slug])

    def items(self, topic: Topic) -> list[Paper]:
        from topics.selectors import topic_papers_page

        # One range of the tag index on (topic, announced, paper): 1 ms for the largest area,
        # where joining all of its 210,000 tags to papers and sorting took 2 s (docs/load.md).
        papers, _ = topic_papers_page(topic=topic, size=FEED_ITEMS)
        return papers


class SearchFeed(PaperFeed):
    def __call__(self, request, *args, **kwargs):
        try:
            query = search_query(request)
            if not query:
                raise BadPageRequest(
                    "A search feed needs a search: add ?q= and a few words, "
                    "for example /search/feed/?q=diffusion+policy.",
                    title="Nothing to search for",
                )
        except BadPageRequest as error:
            return bad_request_page(request, error)
        return super().__call__(request, *args, **kwargs)

    def get_object(self, request) -> str:
        return search_query(request)

    def title(self, query: str) -> str:
        return f"“{query}” · Paperscope search"

    def subtitle(self, query: str) -> str:
        return f"Newest arXiv papers whose title or abstract matches “{query}”."

    def link(self, query: str) -> str:
        return f"{reverse('search')}?{urlencode({'q': query})}"

    def feed_url(self, query: str) -> str:
        return f"{reverse('search-feed')}?{urlencode({'q': query})}"

    def items(self, query: str) -> list[Paper]:
        papers = search_papers(query)
        return [] if papers is None else self.newest(papers)
