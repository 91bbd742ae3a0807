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


@pytest.mark.parametrize("width", [1280, 390])
def test_a_tag_the_chip_order_holds_back_is_not_a_chip_and_the_paper_page_says_why(
    open_page, width
):
    from playwright.sync_api import expect

    from papers.tests.factories import paper_create
    from topics.tests.factories import area_create, tag_create, topic_create

    area = area_create()
    offline = topic_create(parent=area, slug="offline-rl", name="Offline RL")
    pg = topic_create(parent=area, slug="policy-gradient", name="Policy Gradient")
    paper = paper_create(arxiv_id="2503.00079", title="Conservative offline policy updates")
    tag_create(paper=paper, topic=offline, score=0.6, chip_order=0.8)
    tag_create(paper=paper, topic=pg, score=0.9, chip_order=0.3)  # likely not its own topic

    page = open_page("/papers/2503.00079/", width=width, height=844 if width < 500 else 900)

    chips = page.locator(".paper-chips a.tag")
    expect(chips).to_have_count(1)
    expect(chips.first).to_contain_text("Offline RL")
    page.get_by_text("Why these topics?").click()
    held = page.locator('#why-topics .tag-detail[data-shown="false"]')
    expect(held).to_have_count(1)
    expect(held).to_contain_text("Policy Gradient")
    expect(held).to_contain_text("more likely not the paper's own topic")
    expect(held.get_by_role("link", name="Policy Gradient")).to_be_visible()
    # Each tag's bar and number are its confidence: the chip-order model's P, not the score.
    chip = page.locator('#why-topics .tag-detail[data-shown="true"]')
    expect(chip.locator(".score-value")).to_have_text("Confidence 0.80")
    expect(held.locator(".score-value")).to_have_text("Confidence 0.30")
    expect(chip.locator(".score-bar rect")).to_have_attribute("width", "80")
