"""A new reader's first visit, end to end in headless Chromium with scripts on, clicking and
typing only: sign up, pick topics, follow one more from its topic page, triage in the reading
view with J/K/Enter/S/X, save to a second list, open the API docs. Once at 1440x900 and once on a
390-px phone (touch, no hover), where no page may scroll sideways.

Every page fails the test on a console error, a failed request of our own or a Content-Security-
Policy violation. Screenshots of the topic page, the reading view, a paper page and the feed go
to docs/screenshots/ (desktop and mobile), for review.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from accounts.models import Follow, Hidden, ListItem
from accounts.tests.factories import PASSWORD
from papers.clients.gate import LocalRequestGate
from papers.clients.http import ArxivHttp
from papers.clients.openalex import OpenAlexClient
from papers.services.enrich import enrich_papers
from tests.browser.test_topic_page import PAPERS, topic_page_with_realistic_papers
from tests.chromium import watch_strictly
from tests.fake_openalex import FakeOpenAlex

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
INSTITUTIONS = ["MIT", "ETH Zürich", "University of Tokyo", "Mila", "Tsinghua University"]
# Controls that must offer a target of at least 24 x 24 px (WCAG 2.5.8).
TARGETS = (
    ".button, button:not(.visually-hidden), .tag, .site-nav a, .row-save-button, summary, "
    ".breadcrumb a, .kbd-hint, .pager a, .footer-links a"
)


@pytest.fixture
def papers_with_institutions():
    """The realistic topic page's papers, enriched from a fake OpenAlex the way a harvest is."""
    data = topic_page_with_realistic_papers()
    with FakeOpenAlex() as openalex:
        for n, (_, authors, _) in enumerate(PAPERS):
            paper = data["papers"][n]
            openalex.add_work(
                paper.arxiv_id,
                authors=[(a, [INSTITUTIONS[(n + i) % 5]]) for i, a in enumerate(authors)],
                cited_by_count=3 * n,
            )
        http = ArxivHttp(LocalRequestGate(0.0), user_agent="Paperscope/test", timeout=2.0)
        enrich_papers(client=OpenAlexClient(http, openalex.url))
        http.close()
    return data


class Visit:
    """One person's browser: every page checked for errors, sideways scroll and small targets."""

    def __init__(self, chromium, base: str, *, mobile: bool) -> None:
        self.base = base
        self.mobile = mobile
        size = {"width": 390, "height": 844} if mobile else {"width": 1440, "height": 900}
        self.context = chromium.new_context(
            viewport=size, is_mobile=mobile, has_touch=mobile, reduced_motion="reduce"
        )
        self.page = watch_strictly(self.context.new_page(), base)
        self.label = "mobile" if mobile else "desktop"

    def check(self) -> None:
        page = self.page
        page.wait_for_load_state()
        width = page.evaluate("[document.scrollingElement.scrollWidth, innerWidth]")
        assert width[0] <= width[1], f"{page.url} scrolls sideways: {width}"
        small = page.evaluate(
            """(selector) => Array.from(document.querySelectorAll(selector))
                .filter(el => el.offsetParent !== null)
                .filter(el => !el.closest('[hidden], dialog:not([open])'))
                .map(el => [el.textContent.trim().slice(0, 30), el.getBoundingClientRect()])
                .filter(([, r]) => r.width > 0 && (r.height < 23.5 || r.width < 23.5))
                .map(([text, r]) => `${text} ${Math.round(r.width)}x${Math.round(r.height)}`)""",
            TARGETS,
        )
        assert small == [], f"targets under 24 px on {page.url}: {small}"
        self.assert_clean()

    def assert_clean(self) -> None:
        page = self.page
        assert page.errors == [], page.errors
        assert page.csp_violations == [], page.csp_violations
        assert page.console_errors == [], page.console_errors
        assert page.failed_requests == [], page.failed_requests

    def shot(self, name: str, *, full_page: bool = True) -> None:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(
            path=str(SCREENSHOTS / f"{name}-{self.label}.png"), full_page=full_page
        )

    def close(self) -> None:
        self.assert_clean()
        self.context.close()


def selected_title(page) -> str:
    row = page.locator("[data-keynav-item].is-selected .paper-title")
    return row.inner_text().strip() if row.count() else ""


def journey(visit: Visit, username: str) -> None:
    from playwright.sync_api import expect

    page, base = visit.page, visit.base
    page.goto(f"{base}/topics/policy-gradient/")
    visit.check()
    if visit.mobile:
        expect(page.locator(".kbd-hint")).to_be_hidden()  # no keyboard hints on a touch screen
    # Anonymous: S says how to save instead of doing nothing.
    page.keyboard.press("j")
    page.keyboard.press("s")
    expect(page.locator("[data-toast]")).to_contain_text("Sign in to save")

    # Sign up.
    page.get_by_role("link", name="Sign up").first.click()
    page.locator("#id_username").fill(username)
    page.locator("#id_email").fill(f"{username}@example.org")
    page.locator("#id_password1").fill(PASSWORD)
    page.locator("#id_password2").fill(PASSWORD)
    page.locator("form.account-form button[type=submit]").click()
    expect(page).to_have_url(f"{base}/welcome/")
    visit.check()
    visit.shot("welcome")

    # Pick topics: one from the area's rising topics, one found by typing.
    page.get_by_label("RL from Human Feedback").check()
    page.locator("#welcome-q").fill("reason")
    page.locator("#welcome-q").press("Enter")
    expect(page.locator(".topic-pick").first).to_contain_text("Topics matching “reason”")
    visit.check()
    page.locator(".topic-pick").first.get_by_label("LLM Reasoning").check()
    expect(page.get_by_label("RL from Human Feedback")).to_be_checked()  # kept across the search
    page.get_by_role("button", name="Follow these and show my feed").click()
    expect(page).to_have_url(f"{base}/feed/")
    expect(page.locator("main")).to_contain_text("Following 2 topics")
    rows = page.locator("[data-keynav-item]")
    expect(rows).to_have_count(6)  # the papers of RLHF and LLM Reasoning, none empty
    visit.check()

    # Follow one more from its topic page: the button flips in place, the feed fills.
    rows.first.locator(".tags a", has_text="Policy Gradient Methods").click()
    expect(page).to_have_url(f"{base}/topics/policy-gradient/")
    follow = page.locator("[data-follow-form] button")
    expect(follow).to_have_text("Follow")
    button, text = follow.bounding_box(), page.locator(".topic-head .description").bounding_box()
    assert button["y"] + button["height"] + 8 <= text["y"]  # Follow does not touch the text
    follow.click()
    expect(follow).to_have_text("Following")
    expect(page).to_have_url(f"{base}/topics/policy-gradient/")
    assert Follow.objects.filter(user__username=username).count() == 3
    visit.check()
    if not visit.mobile:
        page.keyboard.press("j")  # the selection and its pane, for the screenshot
    visit.shot("topic")

    page.locator(".site-nav").get_by_role("link", name="Feed", exact=True).click()
    expect(page).to_have_url(f"{base}/feed/")
    expect(rows).to_have_count(8)
    visit.check()
    if visit.mobile:
        expect(page.locator(".key-hints")).to_be_hidden()
    visit.shot("feed")

    # The reading view: J/K move the selection, the pane follows, S saves, X hides.
    pane = page.locator("[data-reader-pane]")
    page.keyboard.press("j")
    page.keyboard.press("j")
    page.keyboard.press("k")
    first = selected_title(page)
    assert first == PAPERS[0][0]
    expect(pane).to_be_visible()
    expect(pane.locator(".detail-title")).to_have_text(first)
    expect(pane).to_contain_text("Policy gradient methods remain the workhorse")
    expect(pane.locator(".chip-reasons .reason").first).not_to_be_empty()
    expect(pane.get_by_role("link", name="PDF")).to_have_attribute("href", re.compile(r"/pdf/"))
    expect(pane).to_contain_text("MIT")  # institutions from OpenAlex
    page.keyboard.press("s")
    expect(rows.nth(0).locator(".row-save-button")).to_have_text("Saved ✓")
    assert ListItem.objects.filter(reading_list__user__username=username).count() == 1
    visit.shot("reading-view", full_page=False)
    page.keyboard.press("j")
    hidden_title = selected_title(page)
    page.keyboard.press("x")
    expect(rows.nth(1).locator("[data-unhide-form]")).to_be_visible()
    expect(rows.nth(2)).to_have_class(re.compile(r"is-selected"))  # X moved on
    assert Hidden.objects.filter(user__username=username, paper__title=hidden_title).exists()
    # Typing in the search box is not navigation.
    page.locator("#site-search-q").fill("jjkx")
    expect(rows.nth(2)).to_have_class(re.compile(r"is-selected"))
    page.locator("#site-search-q").fill("")
    rows.nth(2).locator(".paper-meta time").first.click()  # a click selects a row too
    if visit.mobile:
        expect(pane).to_be_visible()  # the sheet
        visit.shot("reading-view-sheet", full_page=False)
        page.get_by_role("button", name="Close the selected paper").click()
        expect(pane).to_be_hidden()
    opened = selected_title(page)
    assert "?p=" in page.url  # the address keeps the selection
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/papers/[\d.]+/$"))
    expect(page.locator("h1")).to_have_text(opened)
    expect(page.locator(".paper-chips .reason").first).not_to_be_empty()  # chips beside the title
    expect(page.locator("#why-topics")).not_to_have_attribute("open", "")
    page.get_by_text("Why these topics?").click()
    expect(page.locator("#why-topics .tag-details")).to_be_visible()
    expect(page.locator(".paper-side")).to_contain_text("Cited by")  # from OpenAlex
    visit.check()
    visit.shot("paper")
    page.go_back()
    expect(page).to_have_url(re.compile(r"/feed/\?p="))
    # Back returns to it (the hidden paper has left the feed, so look it up by title).
    expect(page.locator("[data-keynav-item].is-selected .paper-title")).to_have_text(opened)

    # Save to a list: a second list, then a paper saved into it from its page.
    page.get_by_role("link", name="Lists").click()
    page.get_by_label("Name").fill("Group meeting")
    page.get_by_role("button", name="Create list").click()
    expect(page.locator("main")).to_contain_text("Group meeting")
    visit.check()
    page.goto(f"{base}/feed/")
    rows.nth(3).locator(".paper-title a").click()
    page.locator(".paper-actions select").select_option(label="Group meeting")
    page.locator(".paper-actions").get_by_role("button", name="Save").click()
    expect(page.locator(".paper-actions [data-saved=true]")).to_be_visible()
    assert ListItem.objects.filter(reading_list__name="Group meeting").count() == 1
    saved_title = page.locator("h1").inner_text()
    page.locator(".site-nav").get_by_role("link", name="Lists", exact=True).click()
    page.get_by_role("link", name="Group meeting").click()
    page.keyboard.press("j")  # the reading view on a list too
    expect(page.locator("[data-reader-pane] .detail-title")).to_have_text(saved_title)
    visit.check()

    # Search by typing, into the same reading view.
    page.locator("#site-search-q").fill("policy gradient")
    page.locator("#site-search-q").press("Enter")
    expect(page).to_have_url(re.compile(r"/search/\?q=policy"))
    page.locator("main").click(position={"x": 2, "y": 2})  # out of the search box
    page.keyboard.press("j")
    expect(page.locator("[data-reader-pane] .detail-title")).not_to_be_empty()
    visit.check()
    # Every other page a reader meets, at this width: no sideways scroll, no small targets.
    for path in ("/", "/areas/rl/", "/account/", "/lists/", "/search/?q=reinforcement"):
        page.goto(f"{base}{path}")
        visit.check()

    # The API docs render the schema from our own files.
    page.locator(".site-nav").get_by_role("link", name="API").click()
    expect(page).to_have_url(f"{base}/api/docs/")
    page.get_by_text("/api/v1/papers/lookup", exact=True).wait_for()
    width = page.evaluate("[document.scrollingElement.scrollWidth, innerWidth]")
    assert width[0] <= width[1], f"the API docs scroll sideways: {width}"
    visit.assert_clean()


def test_a_new_reader_on_a_desktop(chromium, live_server, papers_with_institutions):
    visit = Visit(chromium, live_server.url, mobile=False)
    journey(visit, "deskreader")
    visit.close()


def test_a_new_reader_on_a_phone(chromium, live_server, papers_with_institutions):
    visit = Visit(chromium, live_server.url, mobile=True)
    journey(visit, "phonereader")
    visit.close()
