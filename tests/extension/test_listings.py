"""Listing, search and full-text pages: one lookup per page, chips under every entry."""

from __future__ import annotations

import json
import re
import time

import pytest
from playwright.sync_api import expect

from tests.extension import data, pages
from tests.extension.support import fixture_html

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def count_lookups(extension, live_server) -> list[str]:
    calls = []

    def hit(route):
        calls.append(route.request.post_data)
        route.continue_()

    extension.context.route(f"{live_server.url}/api/v1/papers/lookup", hit)
    return calls


def listed_ids(html: str) -> list[str]:
    return re.findall(r'href ?="/abs/([^"]+)" title="Abstract"', html)


@pytest.mark.parametrize(
    ("fixture", "path"),
    [
        ("list_astro-ph.HE_new.html", "/list/astro-ph.HE/new"),
        ("list_astro-ph.SR_recent.html", "/list/astro-ph.SR/recent"),
        ("list_astro-ph_2006-02_month_oldstyle_ids.html", "/list/astro-ph/2006-02"),
        ("list_q-fin_new_archive_level.html", "/list/q-fin/new"),
    ],
)
def test_it_tags_every_entry_of_a_listing_with_one_lookup(
    extension, arxiv, topics, live_server, fixture, path
):
    html = fixture_html(fixture)
    ids = listed_ids(html)
    unique = list(dict.fromkeys(ids))
    data.tagged_papers_bulk(unique, [(topics["kilonovae"], 0.8), (topics["gnn"], 0.3)])
    calls = count_lookups(extension, live_server)
    page = extension.context.new_page()
    page.goto(arxiv.serve(path, html))
    page.wait_for_function("document.documentElement.dataset.paperscope === 'ready'", timeout=20000)
    bars = page.eval_on_selector_all(
        ".paperscope-bar",
        "n => n.map(b => [b.dataset.paperscopeId, b.querySelectorAll('.paperscope-chip').length])",
    )
    assert [b[0] for b in bars] == ids
    assert all(count == 2 for _, count in bars)
    # Each entry's Save button ends its chips bar.
    assert page.locator("dd .paperscope-bar > .paperscope-save").count() == len(ids)
    # Chips sit after the subjects line, never inside a MathJax element.
    assert page.locator(".mathjax .paperscope-bar").count() == 0
    assert len(calls) == 1


def test_it_tags_a_listing_of_two_thousand_entries_quickly(extension, arxiv, topics, live_server):
    ids = [f"2501.{n:05d}" for n in range(1, 2001)]
    data.tagged_papers_bulk(
        ids, [(topics["gnn"], 0.9), (topics["rl"], 0.5), (topics["kilonovae"], 0.2)]
    )
    calls = count_lookups(extension, live_server)
    page = extension.context.new_page()
    page.goto(arxiv.serve("/list/cs.LG/new", pages.listing(ids)), timeout=60000)
    started = time.monotonic()
    page.wait_for_function("document.documentElement.dataset.paperscope === 'ready'", timeout=30000)
    assert page.locator(".paperscope-bar[data-state=tagged]").count() == 2000
    assert page.locator(".paperscope-chip").count() == 6000
    assert len(calls) == 1
    assert time.monotonic() - started < 15


def test_it_asks_for_every_id_of_a_big_listing_before_rendering_it_whole(
    extension, arxiv, topics, live_server
):
    """Issue 17: the lookup leaves once the ids are read from the abstract links, before the
    entries are found around them; nothing is missed either way, and the Save buttons put in
    the same render pass work (here queued: the extension is not connected)."""
    ids = [f"2501.{n:05d}" for n in range(1, 2001)]
    data.tagged_papers_bulk(ids, [(topics["gnn"], 0.9), (topics["rl"], 0.5)])
    calls = count_lookups(extension, live_server)
    page = extension.context.new_page()
    page.goto(arxiv.serve("/list/cs.LG/new", pages.listing(ids)), timeout=60000)
    page.wait_for_function("document.documentElement.dataset.paperscope === 'ready'", timeout=30000)
    assert len(calls) == 1
    assert sorted(json.loads(calls[0])["ids"]) == ids
    bars = page.eval_on_selector_all(
        "dd .paperscope-bar",
        "n => n.map(b => [b.dataset.paperscopeId, b.querySelectorAll('.paperscope-chip').length])",
    )
    assert bars == [[arxiv_id, 2] for arxiv_id in ids]
    assert page.locator("dd .paperscope-bar > .paperscope-save[data-state=idle]").count() == 2000
    last = page.locator(f'dd .paperscope-bar > .paperscope-save[data-paperscope-id="{ids[-1]}"]')
    last.click()
    expect(last).to_have_attribute("data-state", "queued", timeout=20000)
    assert page.locator(".paperscope-save[data-state=queued]").count() == 1


def test_it_marks_papers_the_server_is_still_fetching(extension, arxiv, topics):
    html = fixture_html("list_q-fin_new_archive_level.html")
    ids = list(dict.fromkeys(listed_ids(html)))
    data.tagged_papers_bulk(ids[1:], [(topics["gnn"], 0.6)])
    page = extension.context.new_page()
    page.goto(arxiv.serve("/list/q-fin/new", html))
    page.wait_for_selector(
        f'.paperscope-bar[data-paperscope-id="{ids[0]}"][data-state=pending]', timeout=20000
    )
    assert page.locator(".paperscope-bar[data-state=tagged]").count() == len(ids) - 1
    data.tagged_paper(ids[0], [(topics["rl"], 0.6)])
    page.wait_for_selector(
        f'.paperscope-bar[data-paperscope-id="{ids[0]}"][data-state=tagged]', timeout=20000
    )


def test_it_tags_search_results(extension, arxiv, topics):
    ids = ["2501.00001", "2501.00002", "hep-th/9901001"]
    data.tagged_papers_bulk(ids, [(topics["gnn"], 0.6)])
    page = extension.context.new_page()
    page.goto(arxiv.serve("/search/?query=graphs&searchtype=all", pages.search_results(ids)))
    page.wait_for_function("document.documentElement.dataset.paperscope === 'ready'", timeout=20000)
    assert (
        page.eval_on_selector_all(
            "li.arxiv-result p.authors + .paperscope-bar", "n => n.map(b => b.dataset.paperscopeId)"
        )
        == ids
    )
    assert page.locator("li.arxiv-result .paperscope-bar > .paperscope-save").count() == 3


@pytest.mark.parametrize("late_header", [False, True])
def test_it_puts_chips_and_save_under_the_title_of_an_html_paper(
    extension, arxiv, topics, late_header
):
    data.tagged_paper("2501.00007", [(topics["gnn"], 0.6), (topics["rl"], 0.5)])
    page = extension.context.new_page()
    page.goto(
        arxiv.serve("/html/2501.00007v1", pages.latexml("2501.00007", late_header=late_header))
    )
    page.wait_for_selector(
        "h1.ltx_title_document + .paperscope-bar .paperscope-chip", timeout=20000
    )
    assert page.locator(".paperscope-bar .paperscope-chip").count() == 2
    assert page.locator(".paperscope-bar .paperscope-save").count() == 1
    if late_header:
        page.wait_for_selector("header.desktop_header", timeout=5000)
        page.wait_for_timeout(300)
        assert page.locator(".paperscope-bar").count() == 1


def test_it_tags_each_paper_of_a_conference_index_page(extension, arxiv, topics):
    ids = ["2401.00907", "2401.01640", "2312.03813"]
    data.tagged_papers_bulk(ids, [(topics["rl"], 0.6)])
    page = extension.context.new_page()
    page.goto(arxiv.serve("/html/2403.10561v1", pages.conference_index(ids)))
    page.wait_for_function("document.documentElement.dataset.paperscope", timeout=20000)
    page.wait_for_selector(
        ".paperscope-bar[data-paperscope-id='2312.03813'] .paperscope-chip", timeout=20000
    )
    listed = page.eval_on_selector_all(
        "dd .paperscope-bar", "n => n.map(b => b.dataset.paperscopeId)"
    )
    assert listed == ids
