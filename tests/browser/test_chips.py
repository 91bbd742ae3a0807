"""Chips in the browser (issue 13): paper rows show the most specific topics, never an area,
never a parent a chip implies, in the order the API gives."""

from __future__ import annotations

import pytest

from tests.browser.test_topic_page import topic_page_with_realistic_papers

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_paper_row_shows_no_area_chip_and_the_api_order(open_page, client):
    from playwright.sync_api import expect

    data = topic_page_with_realistic_papers()
    page = open_page("/topics/policy-gradient/")
    rows = page.locator("[data-keynav-item]")
    expect(rows).to_have_count(8)

    for n in range(8):
        hrefs = (
            rows.nth(n)
            .locator("ul.tags a.tag:not(.tag-more)")
            .evaluate_all("links => links.map(a => a.getAttribute('href'))")
        )
        assert hrefs, f"row {n} shows no chip"
        assert "/topics/rl/" not in hrefs  # the area: tagged on every paper, never a chip
        paper = data["papers"][n]
        api = client.get(f"/api/v1/papers/{paper.arxiv_id}").json()["tags"]
        chips = [f"/topics/{t['slug']}/" for t in api if t["shown"]]
        assert hrefs == chips[: len(hrefs)]  # the API's display order, first few
        if n % 3 == 0:  # these papers carry a subtopic: its parent is implied, not a chip
            assert "/topics/policy-gradient/" not in hrefs
            assert hrefs[0] in ("/topics/actor-critic/", "/topics/trust-region/")
