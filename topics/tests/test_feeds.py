"""Atom feeds of a topic and of a search, read back the way a feed reader reads them."""

from __future__ import annotations

from datetime import date

import feedparser
import pytest

from papers.tests.factories import paper_create
from topics.models import Topic
from topics.tests.factories import area_create, tag_create, topic_page_scenario

pytestmark = pytest.mark.django_db


def parse(response) -> feedparser.FeedParserDict:
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    feed = feedparser.parse(response.content)
    assert not feed.bozo, feed.get("bozo_exception")
    assert feed.version == "atom10"
    return feed


class TestTopicFeed:
    def test_entries_titles_links_and_dates(self, client):
        scenario = topic_page_scenario(papers=8)
        feed = parse(client.get("/topics/policy-gradient/feed/"))
        assert feed.feed.title == "Policy Gradient · Paperscope"
        assert feed.feed.link == "http://testserver/topics/policy-gradient/"
        assert "RL: Reinforcement Learning" in feed.feed.subtitle
        assert feed.feed.updated_parsed[:3] == (2025, 3, 3)  # the newest entry's date
        assert len(feed.entries) == 8
        papers = scenario["papers"]
        for entry, paper in zip(feed.entries, papers, strict=True):  # newest first
            assert entry.title == paper.title
            assert entry.link == f"http://testserver/papers/{paper.arxiv_id}/"
            assert entry.id == f"https://arxiv.org/abs/{paper.arxiv_id}"
            assert entry.updated_parsed[:3] == paper.announced.timetuple()[:3]
            assert entry.published_parsed[:3] == paper.announced.timetuple()[:3]
            assert entry.author == "Ada Lovelace, Alan Turing, Grace Hopper +2"
            assert {"Policy Gradient", "Offline RL"} <= {t.term for t in entry.tags}
        summary = feed.entries[0].summary
        assert "learned value baseline" in summary
        assert "https://arxiv.org/abs/" in summary

    def test_abstracts_with_markup_are_escaped_text(self, client):
        area = area_create()
        paper = paper_create(title="Bounds for $a<b$ & more", abstract="Show <b>that</b> x<y.")
        tag_create(paper=paper, topic=area)
        feed = parse(client.get("/topics/rl/feed/"))
        entry = feed.entries[0]
        assert entry.title == "Bounds for $a<b$ & more"
        assert "&lt;b&gt;that&lt;/b&gt;" in entry.summary
        assert "<b>" not in entry.summary

    def test_an_undated_paper_still_has_a_valid_date(self, client):
        area = area_create()
        tag_create(paper=paper_create(announced=None), topic=area)
        feed = parse(client.get("/topics/rl/feed/"))
        assert feed.entries[0].updated_parsed is not None

    def test_unknown_topic_feed_is_a_404(self, client):
        assert client.get("/topics/nope/feed/").status_code == 404

    def test_the_topic_page_links_its_feed(self, client):
        topic_page_scenario(papers=1)
        html = client.get("/topics/policy-gradient/").content.decode()
        head = html[: html.index("</head>")]
        assert (
            '<link rel="alternate" type="application/atom+xml" '
            'title="Policy Gradient: newest papers (Atom)" href="/topics/policy-gradient/feed/">'
        ) in head
        area_head = client.get("/areas/rl/").content.decode().split("</head>")[0]
        assert 'type="application/atom+xml"' in area_head
        assert 'href="/topics/rl/feed/"' in area_head


class TestSearchFeed:
    def test_entries_match_the_search(self, client):
        topic_page_scenario(papers=4)
        paper_create(title="Unrelated graph paper", abstract="Graphs.", announced=date(2025, 3, 4))
        feed = parse(client.get("/search/feed/", {"q": "sparse-reward policy"}))
        assert feed.feed.title == "“sparse-reward policy” · Paperscope search"
        assert feed.feed.link == "http://testserver/search/?q=sparse-reward+policy"
        assert [e.title for e in feed.entries] == [
            f"Sparse-reward policy learning, study {i}" for i in range(4)
        ]
        assert all(e.link.startswith("http://testserver/papers/2503.") for e in feed.entries)
        assert all(e.updated_parsed for e in feed.entries)

    def test_no_matches_is_an_empty_valid_feed(self, client):
        topic_page_scenario(papers=1)
        feed = parse(client.get("/search/feed/", {"q": "zebrafish"}))
        assert feed.entries == []

    def test_a_10kb_query_is_a_400(self, client):
        response = client.get("/search/feed/", {"q": "y" * 10_240})
        assert response.status_code == 400
        assert "That search is too long" in response.content.decode()

    def test_a_missing_query_is_a_400(self, client):
        response = client.get("/search/feed/")
        assert response.status_code == 400
        assert "needs a search" in response.content.decode()

    def test_the_search_page_links_its_feed(self, client):
        topic_page_scenario(papers=1)
        head = client.get("/search/", {"q": "policy"}).content.decode().split("</head>")[0]
        assert 'type="application/atom+xml"' in head
        assert 'href="/search/feed/?q=policy"' in head


class TestFeedCaching:
    def test_a_feed_is_cached_for_five_minutes_and_says_so(self, client):
        from django.core.cache import cache

        topic_page_scenario()
        first = client.get("/topics/policy-gradient/feed/")
        assert "max-age=300" in first["Cache-Control"]
        # A paper tagged meanwhile shows after the cache expires (here: is cleared), not before.
        newest = paper_create(title="A brand-new policy gradient paper", announced=date(2026, 1, 5))
        tag_create(paper=newest, topic=Topic.objects.get(slug="policy-gradient"))

        assert client.get("/topics/policy-gradient/feed/").content == first.content
        cache.clear()
        titles = [e.title for e in parse(client.get("/topics/policy-gradient/feed/")).entries]
        assert titles[0] == "A brand-new policy gradient paper"

    def test_search_feeds_are_cached_per_query(self, client):
        topic_page_scenario()
        one = parse(client.get("/search/feed/", {"q": "sparse-reward policy"}))
        other = parse(client.get("/search/feed/", {"q": "zebrafish"}))
        assert one.entries
        assert not other.entries
