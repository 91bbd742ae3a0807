"""Chips on arXiv abstract pages: the right tags, links and ids, from one lookup."""

from __future__ import annotations

import pytest

from tests.extension import data
from tests.extension.support import fixture_html

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def chips(page, selector=".paperscope-bar"):
    page.wait_for_selector(f"{selector} .paperscope-chip", timeout=20000)
    return page.eval_on_selector_all(
        f"{selector} .paperscope-chip",
        "nodes => nodes.map(n => ({text: n.textContent, href: n.href, title: n.title}))",
    )


def test_it_shows_tag_chips_under_the_title_linking_to_topic_pages(
    extension, arxiv, topics, live_server
):
    # Chips ranked by the chip-order model: each chip's confidence is that model's P(right).
    data.tagged_paper("0906.5132", [(topics["gnn"], 0.91, 0.77), (topics["rl"], 0.42, 0.61)])
    page = extension.context.new_page()
    page.goto(
        arxiv.serve("/abs/0906.5132", fixture_html("abs_0906.5132_newstyle_with_html_link.html"))
    )
    found = chips(page)
    assert [c["text"] for c in found] == ["Graph neural networks", "Reinforcement learning"]
    assert found[0]["href"] == f"{live_server.url}/topics/graph-neural-networks/"
    assert "confidence 0.77" in found[0]["title"]
    assert "confidence 0.61" in found[1]["title"]
    # Right after the title, outside it (MathJax rewrites the title).
    assert (
        page.evaluate("document.querySelector('h1.title').nextElementSibling.className")
        == "paperscope-bar"
    )
    assert page.locator("h1.title .paperscope-chip").count() == 0


@pytest.mark.parametrize(
    ("fixture", "path", "arxiv_id"),
    [
        ("abs_0906.5132_newstyle_with_html_link.html", "/abs/0906.5132", "0906.5132"),
        ("abs_2101.10016v3_versioned_url.html", "/abs/2101.10016v3", "2101.10016"),
        (
            "abs_2101.10016_newstyle_8_versions_latest_withdrawn.html",
            "/abs/2101.10016",
            "2101.10016",
        ),
        ("abs_hep-th_9901001_oldstyle.html", "/abs/hep-th/9901001", "hep-th/9901001"),
        ("abs_hep-th_9901001_oldstyle.html", "/abs/hep-th/9901001v1", "hep-th/9901001"),
    ],
)
def test_it_reads_the_id_of_every_abstract_url_form(
    extension, arxiv, topics, fixture, path, arxiv_id
):
    data.tagged_paper(arxiv_id, [(topics["kilonovae"], 0.8)])
    page = extension.context.new_page()
    page.goto(arxiv.serve(path, fixture_html(fixture)))
    assert [c["text"] for c in chips(page)] == ["Kilonovae & r-process"]
    assert page.get_attribute(".paperscope-bar", "data-paperscope-id") == arxiv_id


def test_it_shows_tagging_while_the_server_fetches_an_unknown_paper(extension, arxiv, topics):
    page = extension.context.new_page()
    page.goto(
        arxiv.serve("/abs/0906.5132", fixture_html("abs_0906.5132_newstyle_with_html_link.html"))
    )
    status = page.wait_for_selector(".paperscope-status--pending", timeout=20000)
    assert status.text_content() == "tagging…"
    # The on-demand fetch completes on the server; the page asks again by itself.
    data.tagged_paper("0906.5132", [(topics["gnn"], 0.7)])
    assert [c["text"] for c in chips(page)] == ["Graph neural networks"]
    assert page.locator(".paperscope-status--pending").count() == 0


def test_it_renders_a_topic_name_as_text_never_as_html(extension, arxiv, topics):
    data.tagged_paper("0906.5132", [(topics["xss"], 0.9)])
    page = extension.context.new_page()
    page.goto(
        arxiv.serve("/abs/0906.5132", fixture_html("abs_0906.5132_newstyle_with_html_link.html"))
    )
    assert [c["text"] for c in chips(page)] == ["<img src=x onerror=window.__pwned=1>"]
    assert page.locator(".paperscope-bar img").count() == 0
    page.wait_for_timeout(300)
    assert page.evaluate("window.__pwned") is None


def test_it_leaves_pdf_pages_alone(extension, arxiv, topics):
    data.tagged_paper("0906.5132", [(topics["gnn"], 0.9)])
    page = extension.context.new_page()
    page.goto(arxiv.serve("/pdf/0906.5132", "<html><body><h1 class='title'>x</h1></body></html>"))
    page.wait_for_timeout(800)
    assert page.locator(".paperscope-bar").count() == 0
    assert page.evaluate("document.documentElement.dataset.paperscope") is None
