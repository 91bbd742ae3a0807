"""The paper page and search page (server-rendered)."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

import pytest

from papers import views as paper_views
from papers.paging import cursor_decode, cursor_encode
from papers.tests.factories import paper_create
from papers.views import evidence_items
from topics.tests.factories import area_create, tag_create, topic_create, topic_page_scenario

pytestmark = pytest.mark.django_db


@pytest.fixture
def paper():
    area = area_create()
    topic = topic_create(parent=area, slug="policy-gradient", name="Policy Gradient")
    offline = topic_create(parent=area, slug="offline-rl", name="Offline RL")
    paper = paper_create(
        arxiv_id="2501.01234",
        title="Stable Policy Gradients from Offline Data",
        abstract="We propose a policy gradient method that learns from logged data.",
        authors=["Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra"],
        affiliations=["Analytical Engines Ltd", "", ["Bletchley Park", "NPL"], ""],
        primary_category="cs.LG",
        categories="cs.LG cs.AI stat.ML",
        version=2,
        versions=[
            {"version": 1, "date": "2025-01-02T10:00:00Z", "size": "812kb"},
            {"version": 2, "date": "2025-02-14T09:30:00Z", "size": "845kb"},
        ],
        comments="12 pages, 4 figures. Accepted at ICML 2025.",
        journal_ref="Proc. ICML 2025, pp. 1-12",
        doi="10.1234/example.5678",
        license="http://creativecommons.org/licenses/by/4.0/",
        announced=date(2025, 1, 6),
        updated=datetime(2025, 2, 14, 9, 30, tzinfo=UTC),
    )
    tag_create(
        paper=paper,
        topic=topic,
        score=0.87,
        rank=1,
        # The shape topics/tagger/engine.py writes, plus keys it may add later.
        evidence={
            "similarity": 0.612,
            "similarity_keywords": 0.48,
            "phrases": [
                {"text": "policy gradient", "where": "title", "kind": "name", "count": 2},
                {"text": "REINFORCE", "where": "abstract", "kind": "alias", "count": 1},
            ],
            "categories": ["cs.LG"],
            "examples": [
                {"id": "2412.00001", "title": "Variance-Reduced REINFORCE", "similarity": 0.72},
                {"id": "", "title": "A curated example without an id", "similarity": 0.7},
            ],
            "neighbours": ["2411.04321"],
            "calibrated_from": {"raw": 1.7, "model": "iso"},
            "mystery_key": "kept as text",
        },
    )
    tag_create(paper=paper, topic=offline, score=0.42, rank=2, evidence={})
    tag_create(
        paper=paper,
        topic=area,
        score=0.95,
        rank=3,
        evidence={"implied_by": "policy-gradient", "own_score": 0.41, "low_confidence": True},
    )
    return paper


class TestPaperPage:
    def test_it_shows_the_paper(self, client, paper):
        response = client.get("/papers/2501.01234/")
        assert response.status_code == 200
        html = response.content.decode()
        assert '<h1 id="paper-title">Stable Policy Gradients from Offline Data</h1>' in html
        assert "arXiv:2501.01234v2" in html
        assert "learns from logged data" in html
        for name in ("Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra"):
            assert name in html
        assert "(Analytical Engines Ltd)" in html
        assert "(Bletchley Park; NPL)" in html
        for category in ("cs.LG", "cs.AI", "stat.ML"):
            assert f'<span class="category">{category}</span>' in html
        assert "12 pages, 4 figures. Accepted at ICML 2025." in html
        assert "Proc. ICML 2025, pp. 1-12" in html
        assert '<a href="https://doi.org/10.1234/example.5678" rel="noopener">' in html
        assert (
            'href="http://creativecommons.org/licenses/by/4.0/" rel="noopener license">CC BY 4.0<'
            in html
        )

    def test_it_lists_versions_with_dates(self, client, paper):
        html = client.get("/papers/2501.01234/").content.decode()
        versions = html[html.index('class="versions"') :]
        assert versions.index(">v1<") < versions.index(">v2<")
        assert "2 Jan 2025" in versions
        assert "14 Feb 2025" in versions
        assert "(845kb)" in versions

    def test_it_links_arxiv_pdf_and_html_but_serves_no_pdf(self, client, paper):
        html = client.get("/papers/2501.01234/").content.decode()
        assert 'href="https://arxiv.org/abs/2501.01234"' in html
        assert 'href="https://arxiv.org/pdf/2501.01234v2"' in html
        assert 'href="https://arxiv.org/html/2501.01234v2"' in html

    def test_it_shows_every_tag_with_score_and_why(self, client, paper):
        html = client.get("/papers/2501.01234/").content.decode()
        topics = html[html.index('id="topics"') :]
        assert topics.index("Policy Gradient") < topics.index("Offline RL")
        assert ">0.87</span>" in topics
        assert ">0.42</span>" in topics
        assert ">0.95</span>" in topics
        assert "Matched phrases" in topics
        assert topics.index("Matched phrases") < topics.index("Similarity to the description")
        assert '“policy gradient” <span class="phrase-note">title, ×2</span>' in topics
        assert '“REINFORCE” <span class="phrase-note">abstract</span>' in topics
        assert "Similarity to the description" in topics
        assert "0.61" in topics
        assert "Similarity to the keywords" in topics
        assert "0.48" in topics
        assert "Matching arXiv categories" in topics
        assert "“cs.LG”" not in topics
        # Example papers are named by title and link to their pages when we know their id.
        assert '<a href="/papers/2412.00001/">Variance-Reduced REINFORCE</a>' in topics
        assert "similarity 0.72" in topics
        assert "A curated example without an id" in topics
        assert 'href="/papers/2411.04321/"' in topics
        assert "Mystery key" in topics
        assert "kept as text" in topics
        assert "raw: 1.70; model: iso" in topics
        assert "No explanation was recorded for this tag." in topics  # the empty evidence
        # implied_by names the subtopic and links to it.
        assert "Implied by the subtopic" in topics
        assert '<a href="/topics/policy-gradient/">Policy Gradient</a>' in topics
        assert "Score on its own" in topics
        assert "0.41" in topics
        assert "Low confidence" in topics

    def test_save_asks_an_anonymous_visitor_to_sign_in_and_come_back(self, client, paper):
        html = client.get("/papers/2501.01234/").content.decode()
        assert 'href="/accounts/login/?next=/papers/2501.01234/"' in html
        assert "Sign in to save papers to your lists" in html

    @pytest.mark.parametrize(
        "raw",
        [
            "2501.01234v2",
            "2501.01234v1",
            "arXiv:2501.01234",
            "https://arxiv.org/abs/2501.01234v2",
        ],
    )
    def test_other_id_forms_redirect_to_the_canonical_page(self, client, paper, raw):
        response = client.get(f"/papers/{raw}/")
        assert response.status_code == 301
        assert response["Location"] == "/papers/2501.01234/"

    def test_a_missing_trailing_slash_redirects(self, client, paper):
        response = client.get("/papers/2501.01234", follow=True)
        assert response.redirect_chain[-1][0].endswith("/papers/2501.01234/")
        assert response.status_code == 200

    def test_old_style_ids_work(self, client):
        paper_create(arxiv_id="hep-th/9901001", title="An old-style paper")
        assert "An old-style paper" in client.get("/papers/hep-th/9901001/").content.decode()
        response = client.get("/papers/hep-th.ZZ/9901001v3/")
        assert response.status_code in (301, 404)  # subject class dropped, or rejected
        response = client.get("/papers/hep-th/9901001v2/")
        assert response.status_code == 301
        assert response["Location"] == "/papers/hep-th/9901001/"

    def test_unknown_paper_is_a_404_page(self, client):
        response = client.get("/papers/2501.99999/")
        assert response.status_code == 404
        html = response.content.decode()
        assert "We do not have arXiv:2501.99999 yet." in html
        assert "We could not find that page" in html

    def test_malformed_id_is_a_404_page(self, client):
        response = client.get("/papers/not-an-id/")
        assert response.status_code == 404
        assert "is not an arXiv identifier" in response.content.decode()

    def test_a_long_author_list_folds(self, client):
        paper_create(arxiv_id="2501.00077", authors=[f"Author {i}" for i in range(45)])
        html = client.get("/papers/2501.00077/").content.decode()
        assert "25 more authors" in html
        assert "Author 44" in html

    def test_tex_and_html_in_titles_are_escaped(self, client):
        paper_create(arxiv_id="2501.00078", title="Bounds for $a<b$ and <b>bold</b> claims")
        html = client.get("/papers/2501.00078/").content.decode()
        assert "$a&lt;b$ and &lt;b&gt;bold&lt;/b&gt;" in html


class TestEvidence:
    def test_odd_shapes_do_not_break(self):
        assert evidence_items(None) == []
        assert evidence_items({}) == []
        assert evidence_items("a bare string")[0]["text"] == "a bare string"
        items = evidence_items(
            {"phrases": ["plain", ["pair", 0.5], None, {"weird": 1}], "flag": True, "n": 3}
        )
        labels = [item["label"] for item in items]
        assert labels == ["Matched phrases", "Flag", "N"]
        assert [chip["text"] for chip in items[0]["chips"]] == ["plain", "pair", "weird: 1"]
        assert items[1]["text"] == "yes"
        assert items[2]["text"] == "3"

    def test_topic_slugs_link_to_topics(self):
        items = evidence_items(
            {"implied_by": "policy-gradient"}, topic_names={"policy-gradient": "Policy Gradient"}
        )
        chip = items[0]["chips"][0]
        assert chip["href"] == "/topics/policy-gradient/"
        assert chip["text"] == "Policy Gradient"
        unnamed = evidence_items({"implied_by": ["gone-topic", "bad slug!"]})[0]["chips"]
        assert [(c["text"], c["href"]) for c in unnamed] == [
            ("gone-topic", "/topics/gone-topic/"),
            ("bad slug!", ""),
        ]


class TestLicenceNames:
    @pytest.mark.parametrize(
        ("text", "name"),
        [
            ("http://creativecommons.org/licenses/by-nc-sa/4.0/", "CC BY-NC-SA 4.0"),
            ("http://creativecommons.org/publicdomain/zero/1.0/", "CC0 1.0"),
            (
                "http://arxiv.org/licenses/nonexclusive-distrib/1.0/",
                "arXiv non-exclusive distribution licence",
            ),
            ("Some other licence", "Some other licence"),
            ("", ""),
        ],
    )
    def test_names(self, text, name):
        assert paper_views.license_name(text) == name


class TestCursor:
    def test_round_trip(self):
        paper = paper_create(announced=date(2025, 1, 2))
        cursor = cursor_encode(paper.announced, paper.pk)
        assert cursor_decode(cursor) == (date(2025, 1, 2), paper.pk)
        undated = paper_create(announced=None)
        assert cursor_decode(cursor_encode(undated.announced, undated.pk)) == (None, undated.pk)


class TestSearchPage:
    def test_it_finds_papers_and_topics(self, client):
        scenario = topic_page_scenario(papers=3)
        paper_create(title="Something else entirely", abstract="Unrelated words.")
        response = client.get("/search/", {"q": "sparse-reward policy"})
        assert response.status_code == 200
        html = response.content.decode()
        assert "Results for “sparse-reward policy”" in html
        assert html.count('class="paper-row"') == 3
        assert "Something else entirely" not in html
        assert 'value="sparse-reward policy"' in html
        assert "data-keynav" in html
        assert 'id="keyboard-help"' in html
        topics = client.get("/search/", {"q": "policy"}).content.decode()
        assert 'href="/topics/policy-gradient/"' in topics
        assert scenario["topic"].area_label in topics
        by_alias = client.get("/search/", {"q": "PG"}).content.decode()
        assert 'href="/topics/policy-gradient/"' in by_alias

    def test_it_links_its_feed(self, client):
        topic_page_scenario(papers=2)
        html = client.get("/search/", {"q": "policy learning"}).content.decode()
        assert (
            '<link rel="alternate" type="application/atom+xml" '
            'title="Papers matching “policy learning” (Atom)" '
            'href="/search/feed/?q=policy+learning">'
        ) in html

    def test_empty_and_too_short_queries(self, client):
        topic_page_scenario(papers=2)
        empty = client.get("/search/")
        assert empty.status_code == 200
        assert "Type a few words" in empty.content.decode()
        short = client.get("/search/", {"q": "a"})
        assert short.status_code == 200
        assert "at least two letters" in short.content.decode()
        assert 'class="paper-row"' not in short.content.decode()

    def test_no_results(self, client):
        topic_page_scenario(papers=2)
        html = client.get("/search/", {"q": "zebrafish"}).content.decode()
        assert "No papers match “zebrafish”" in html

    def test_a_10kb_query_is_a_400_page(self, client):
        response = client.get("/search/", {"q": "x" * 10_240})
        assert response.status_code == 400
        html = response.content.decode()
        assert "That search is too long" in html
        assert "10,240 characters" in html
        assert "at most 500" in html

    def test_a_malformed_cursor_is_a_400_page(self, client):
        topic_page_scenario(papers=2)
        response = client.get("/search/", {"q": "policy", "cursor": "!!!"})
        assert response.status_code == 400
        html = response.content.decode()
        assert "That page link is broken" in html
        assert 'href="/search/?q=policy"' in html  # start again, keeping the search

    def test_search_pages_through_results(self, client, monkeypatch):
        monkeypatch.setattr(paper_views, "PAGE_SIZE", 2)
        topic_page_scenario(papers=5)
        html = client.get("/search/", {"q": "policy"}).content.decode()
        assert html.count('class="paper-row"') == 2
        cursor = re.search(r'href="/search/\?q=policy&amp;cursor=([\w-]+)"', html).group(1)
        second = client.get("/search/", {"q": "policy", "cursor": cursor}).content.decode()
        assert "study 2" in second
        assert "study 0" not in second


class TestErrorPages:
    def test_an_unknown_address_is_the_404_page(self, client):
        response = client.get("/no/such/page/")
        assert response.status_code == 404
        html = response.content.decode()
        assert "There is nothing at this address." in html
        assert "Resolver404" not in html

    def test_the_400_and_500_pages_render_without_context(self):
        from django.template import loader

        assert "That request could not be read" in loader.get_template("400.html").render()
        assert "Something went wrong on our side" in loader.get_template("500.html").render()
