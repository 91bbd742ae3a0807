"""The server-rendered topic, area and home pages, and the SVG chart they carry."""

from __future__ import annotations

import re
from datetime import date, timedelta
from html.parser import HTMLParser

import pytest

from papers import views as paper_views
from papers.tests.factories import paper_create
from topics.charts import sparkline, weekly_bar_chart
from topics.tests.factories import (
    area_create,
    momentum_create,
    tag_create,
    topic_create,
    topic_page_scenario,
)

pytestmark = pytest.mark.django_db


class Rows(HTMLParser):
    """Collects the titles of paper rows (h3.paper-title > a) in document order."""

    def __init__(self) -> None:
        super().__init__()
        self.titles: list[str] = []
        self._in_title = False

    def handle_starttag(self, tag, attrs):
        if tag == "h3" and ("class", "paper-title") in attrs:
            self._in_title = True
            self.titles.append("")

    def handle_endtag(self, tag):
        if tag == "h3":
            self._in_title = False

    def handle_data(self, data):
        if self._in_title:
            self.titles[-1] += data


def row_titles(html: str) -> list[str]:
    parser = Rows()
    parser.feed(html)
    return [title.strip() for title in parser.titles]


@pytest.fixture
def scenario():
    return topic_page_scenario(papers=8)


class TestTopicPage:
    def test_it_shows_what_the_topic_is(self, client, scenario):
        response = client.get("/topics/policy-gradient/")
        assert response.status_code == 200
        html = response.content.decode()
        assert 'href="/areas/rl/"' in html
        assert "RL: Reinforcement Learning" in html
        assert "<h1>Policy Gradient</h1>" in html
        assert "Policy gradient methods optimise a parameterised policy" in html
        assert "Also called" in html
        assert "PG" in html

    def test_it_shows_momentum_sentence_and_chart(self, client, scenario):
        html = client.get("/topics/policy-gradient/").content.decode()
        assert "63 papers in the last 28 announcement days, up 294% on the 28 before." in html
        assert "0.4% of all new papers." in html
        svg = re.search(r"<svg class=\"chart\".*?</svg>", html, re.S).group(0)
        assert 'role="img"' in svg
        assert '<title id="weekly-chart-title">Papers per week in Policy Gradient' in svg
        assert '<desc id="weekly-chart-desc">26 weeks from' in svg
        assert svg.count('class="chart-bar') == 26
        assert "Papers per week</text>" in svg  # axis title
        assert "Week of 3 Mar 2025: 8 papers" in svg  # the latest bar's tooltip

    def test_it_lists_children_and_related_topics(self, client, scenario):
        html = client.get("/topics/policy-gradient/").content.decode()
        assert "Subtopics" in html
        assert 'href="/topics/actor-critic/"' in html
        assert "Related topics" in html
        assert 'href="/topics/offline-rl/"' in html

    def test_latest_papers_newest_first_with_tags_and_authors(self, client, scenario):
        html = client.get("/topics/policy-gradient/").content.decode()
        assert re.search(r"Latest papers\s*<span class=\"count\">\(8\)</span>", html)
        titles = row_titles(html)
        assert titles == [f"Sparse-reward policy learning, study {i}" for i in range(8)]
        newest = scenario["papers"][0]
        assert f'href="/papers/{newest.arxiv_id}/"' in html
        assert '<time datetime="2025-03-03">3 Mar 2025</time>' in html
        assert '<span class="category" title="Primary arXiv category">cs.LG</span>' in html
        # The compact row: three authors, then "+2"; four of the six chips, then "+2" for the
        # rest. The area (tagged, scored highest) is no chip: it is the page's area line.
        row = html.split('<details class="row-more">')[0]
        assert "Ada Lovelace, Alan Turing, Grace Hopper" in row
        assert "Edsger Dijkstra" not in row
        assert ">+2</span>" in row
        assert ">+2</a>" in row
        assert 'href="/topics/rl/"' not in html
        assert 'class="tag tag-current" href="/topics/policy-gradient/"' in row
        assert 'href="/topics/offline-rl/"' in html
        # The detail (the reading view's pane; folded under the row without scripts): every
        # author, the abstract, the links.
        detail = html.split('<details class="row-more">')[1].split("</details>")[0]
        assert "Edsger Dijkstra" in detail
        assert "learned value baseline" in detail
        assert f'href="https://arxiv.org/pdf/{newest.arxiv_id}v1"' in detail
        assert "Sign in to save" in detail

    def test_it_has_keyboard_help_and_feed_link(self, client, scenario):
        html = client.get("/topics/policy-gradient/").content.decode()
        assert "data-keynav" in html
        assert 'id="keyboard-help"' in html
        assert (
            '<link rel="alternate" type="application/atom+xml" '
            'title="Policy Gradient: newest papers (Atom)" href="/topics/policy-gradient/feed/">'
        ) in html
        # Anonymous visitors are asked to sign in to follow, and come back here.
        assert 'href="/accounts/login/?next=/topics/policy-gradient/"' in html

    def test_it_has_landmarks(self, client, scenario):
        html = client.get("/topics/policy-gradient/").content.decode()
        for landmark in ("<header", "<main", "<footer", "<nav", 'role="search"', "<aside"):
            assert landmark in html
        assert '<html lang="en">' in html
        assert 'class="skip-link" href="#main"' in html

    def test_older_pages_follow_the_cursor(self, client, scenario, monkeypatch):
        monkeypatch.setattr(paper_views, "PAGE_SIZE", 3)
        first = client.get("/topics/policy-gradient/").content.decode()
        assert row_titles(first) == [f"Sparse-reward policy learning, study {i}" for i in range(3)]
        seen = row_titles(first)
        cursor = re.search(r'rel="next" href="/topics/policy-gradient/\?cursor=([\w-]+)"', first)
        while cursor:
            page = client.get("/topics/policy-gradient/", {"cursor": cursor.group(1)})
            assert page.status_code == 200
            html = page.content.decode()
            assert "Newest" in html
            seen += row_titles(html)
            cursor = re.search(r'rel="next" href="/topics/policy-gradient/\?cursor=([\w-]+)"', html)
        assert seen == [f"Sparse-reward policy learning, study {i}" for i in range(8)]

    def test_papers_without_a_date_come_last_and_page_correctly(self, client, monkeypatch):
        monkeypatch.setattr(paper_views, "PAGE_SIZE", 2)
        area = area_create()
        topic = topic_create(parent=area, slug="undated", name="Undated")
        for i, day in enumerate([date(2025, 1, 2), None, date(2025, 1, 3), None, None]):
            tag_create(paper=paper_create(title=f"Row {i}", announced=day), topic=topic)
        seen = []
        params: dict = {}
        while True:
            html = client.get("/topics/undated/", params).content.decode()
            seen += row_titles(html)
            cursor = re.search(r"cursor=([\w-]+)", html)
            if not cursor:
                break
            params = {"cursor": cursor.group(1)}
        assert seen[:2] == ["Row 2", "Row 0"]
        assert sorted(seen[2:]) == ["Row 1", "Row 3", "Row 4"]
        assert len(seen) == 5

    @pytest.mark.parametrize(
        "cursor", ["not-base64!", "AAAA", "x" * 500, "MjAyNS0xMy0wMXwx", "LXwtMQ", "%00"]
    )
    def test_a_malformed_cursor_is_a_400_page(self, client, scenario, cursor):
        response = client.get("/topics/policy-gradient/", {"cursor": cursor})
        assert response.status_code == 400
        html = response.content.decode()
        assert "That page link is broken" in html
        assert "cursor" in html
        assert "<main" in html  # the site's own page, not a bare error

    def test_unknown_topic_is_a_404_page(self, client, scenario):
        response = client.get("/topics/no-such-topic/")
        assert response.status_code == 404
        html = response.content.decode()
        assert "We could not find that page" in html
        assert "There is no topic “no-such-topic”." in html
        assert 'role="search"' in html

    def test_pages_only_answer_get_and_head(self, client, scenario):
        assert client.post("/topics/policy-gradient/").status_code == 405
        assert client.head("/topics/policy-gradient/").status_code == 200

    def test_a_retired_topic_is_a_404(self, client, scenario):
        scenario["child"].active = False
        scenario["child"].save()
        assert client.get("/topics/actor-critic/").status_code == 404

    def test_names_and_descriptions_are_escaped(self, client):
        area = area_create()
        topic_create(
            parent=area,
            slug="xss",
            name="<script>alert(1)</script>",
            description="<img src=x onerror=alert(2)>",
        )
        html = client.get("/topics/xss/").content.decode()
        assert "<script>alert(1)</script>" not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
        assert "<img src=x" not in html

    def test_a_topic_without_papers_or_momentum_still_renders(self, client):
        area = area_create()
        topic_create(parent=area, slug="quiet", name="Quiet Topic")
        response = client.get("/topics/quiet/")
        assert response.status_code == 200
        html = response.content.decode()
        assert "Momentum has not been computed for this topic yet." in html
        assert "No papers carry this topic yet." in html
        assert re.search(r"Latest papers\s*<span class=\"count\">\(0\)</span>", html)

    def test_a_series_of_zeros_draws_no_chart(self, client):
        area = area_create()
        topic = topic_create(parent=area, slug="quiet", name="Quiet Topic")
        paper_create(announced=date(2025, 3, 3))  # the corpus has papers, this topic none
        momentum_create(topic=topic, recent=0, previous=0)
        html = client.get("/topics/quiet/").content.decode()
        assert '<svg class="chart"' not in html
        assert "No papers in the last 26 weeks." in html

    def test_low_counts_say_how_few(self, client):
        area = area_create()
        topic = topic_create(parent=area, slug="tiny", name="Tiny Topic")
        momentum_create(topic=topic, recent=4, previous=1)
        html = client.get("/topics/tiny/").content.decode()
        sentence = "4 papers in the last 28 announcement days, 1 paper in the 28 before: too few"
        assert sentence in html
        assert "300%" not in html

    def test_the_page_makes_a_bounded_number_of_queries(
        self, client, scenario, django_assert_max_num_queries
    ):
        with django_assert_max_num_queries(14):
            client.get("/topics/policy-gradient/")


class TestAreaPage:
    def test_it_shows_the_area_and_its_topic_tree(self, client, scenario):
        response = client.get("/areas/rl/")
        assert response.status_code == 200
        html = response.content.decode()
        assert "<h1>Reinforcement Learning</h1>" in html
        assert "trial and error" in html
        tree = html[html.index('class="topic-tree"') :]
        assert tree.index("Policy Gradient") < tree.index("Actor-Critic Methods")
        assert 'class="topic-tree topic-tree-nested"' in tree  # the child sits under its parent
        assert "<strong>63</strong>" in tree
        assert "+294%" in tree
        assert "few papers" in tree  # Offline RL: 3 vs 1 is too few for a percentage
        assert 'href="/topics/rl/"' in html  # the area's own papers
        assert 'href="/topics/rl/feed/"' in html

    def test_unknown_area_is_a_404(self, client, scenario):
        assert client.get("/areas/nope/").status_code == 404

    def test_a_topic_is_not_an_area(self, client, scenario):
        response = client.get("/areas/policy-gradient/")
        assert response.status_code == 404
        assert "There is no area" in response.content.decode()


class TestHomePage:
    def test_it_shows_trending_topics_and_latest_papers(self, client, scenario):
        response = client.get("/")
        assert response.status_code == 200
        html = response.content.decode()
        trending = html[html.index('class="trend-grid"') : html.index("Latest papers")]
        # Rising topics only: areas are listed apart, and Offline RL's 3 papers (1 before) are
        # under the low-count guard, however big its percentage.
        assert "Policy Gradient" in trending
        assert "Offline RL" not in trending
        assert "Reinforcement Learning</a></h3>" not in trending
        # The count once, with the change and the earlier window.
        assert trending.count("63") == 1
        assert "+294%" in trending
        assert "16 in the 28 before" in trending
        assert 'class="sparkline"' in trending
        assert row_titles(html)[:3] == [
            f"Sparse-reward policy learning, study {i}" for i in range(3)
        ]
        assert 'href="/areas/rl/"' in html
        assert 'id="keyboard-help"' in html

    def test_an_empty_instance_explains_itself(self, client):
        html = client.get("/").content.decode()
        assert "No papers yet." in html
        assert "No topics loaded yet" in html

    def test_a_malformed_cursor_is_a_400(self, client, scenario):
        assert client.get("/", {"cursor": "###"}).status_code == 400


class TestCharts:
    def test_weekly_chart_is_accessible_and_escaped(self):
        weekly = [
            {"week": date(2025, 1, 6) + timedelta(weeks=i), "count": i % 4} for i in range(26)
        ]
        svg = str(weekly_bar_chart(weekly, title="Papers in <Topic & Co>", chart_id="c1"))
        assert svg.startswith('<svg class="chart"')
        assert 'aria-labelledby="c1-title c1-desc"' in svg
        assert '<title id="c1-title">Papers in &lt;Topic &amp; Co&gt;</title>' in svg
        assert svg.count("<rect") == 26
        assert svg.count("chart-bar-recent") == 4
        assert ">Feb</text>" in svg
        assert ">Jun</text>" in svg
        assert ">2025</text>" not in svg  # the series starts in January: no label for it
        assert 'text-anchor="end">0</text>' in svg  # count labels on the y axis
        assert '<desc id="c1-desc">26 weeks from 6 Jan 2025 to 30 Jun 2025' in svg

    def test_an_empty_series_draws_nothing(self):
        assert str(weekly_bar_chart([], title="x")) == ""
        assert str(sparkline([])) == ""

    def test_all_zero_weeks_do_not_divide_by_zero(self):
        weekly = [{"week": date(2025, 1, 6) + timedelta(weeks=i), "count": 0} for i in range(26)]
        svg = str(weekly_bar_chart(weekly, title="Quiet"))
        assert "0 papers in all" in svg
        assert 'aria-hidden="true"' in str(sparkline(weekly))
