"""What a row of a paper list and the reading view's detail pane show, computed once per page.

The row is compact (date, category, title, "Author, Author, Author +N", "Institution ·
Institution +N", a few chips); the detail pane (a server-rendered block the reading view's script
moves into view) has every chip with its one-line reason, more authors and institutions.
No queries: tags and their topics come prefetched (papers.selectors.tags_prefetch), and topic
names for "implied by" reasons in one query per page.
"""

from __future__ import annotations

from papers.models import Paper
from papers.reasons import evidence_topic_slugs, reason_line

TAGS_SHOWN = 4
AUTHORS_SHOWN = 3
AFFILIATIONS_SHOWN = 2
DETAIL_AUTHORS = 12
DETAIL_AFFILIATIONS = 6


def affiliation_names(paper: Paper) -> list[str]:
    """Distinct institutions in author order, whether stored per author as a string or a list."""
    seen: dict[str, None] = {}
    for entry in paper.affiliations or []:
        values = entry if isinstance(entry, list) else [entry]
        for value in values:
            if isinstance(value, str) and value.strip():
                seen.setdefault(value.strip(), None)
    return list(seen)


def decorate_rows(papers: list[Paper]) -> list[Paper]:
    """Set on each paper what its row and detail pane show (see the module docstring)."""
    from topics.models import Topic

    all_tags = {paper.pk: list(paper.tags.all()) for paper in papers}
    slugs = set().union(
        set(), *(evidence_topic_slugs(t.evidence) for ts in all_tags.values() for t in ts)
    )
    names = dict(Topic.objects.filter(slug__in=slugs).values_list("slug", "name")) if slugs else {}
    for paper in papers:
        # The chips in display order (Paper.chips, from the prefetched tags).
        tags = paper.chips
        for tag in tags:
            tag.reason = reason_line(tag.evidence, topic_names=names)
        paper.all_tags = tags
        paper.matched = []  # the feed marks the tags of followed topics (feed_decorate)
        paper.shown_tags = tags[:TAGS_SHOWN]
        paper.more_tags = len(tags) - len(paper.shown_tags)
        authors = [a for a in (paper.authors or []) if isinstance(a, str)]
        paper.shown_authors = authors[:AUTHORS_SHOWN]
        paper.more_authors = len(authors) - len(paper.shown_authors)
        paper.detail_authors = authors[:DETAIL_AUTHORS]
        paper.more_detail_authors = len(authors) - len(paper.detail_authors)
        institutions = affiliation_names(paper)
        paper.shown_affiliations = institutions[:AFFILIATIONS_SHOWN]
        paper.more_affiliations = len(institutions) - len(paper.shown_affiliations)
        paper.detail_affiliations = institutions[:DETAIL_AFFILIATIONS]
        paper.more_detail_affiliations = len(institutions) - len(paper.detail_affiliations)
    return papers
