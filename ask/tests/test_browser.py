"""Ask on a topic page in headless Chromium, at desktop width and at 390 px: type a question,
get cited passages (and, with the fake model, a streamed answer whose [n] link to them). Fails
on any JavaScript error, console error, failed request or Content-Security-Policy violation.
Hostile text in a paper's title stays text. Screenshots go to test-artifacts/."""

from __future__ import annotations

import os

import pytest

from papers.tests.factories import paper_create
from tests.chromium import ARTIFACTS, watch
from topics.tests.factories import tag_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

QUESTION = "Which papers address credit assignment in multi-turn agent training?"
HOSTILE_TITLE = 'Credit assignment <img src=x onerror="window.__xss=1"> in multi-turn agents'


@pytest.fixture
def open_topic(chromium, live_server, agent_topic):
    abstract = "Credit assignment for agents, told plainly in one sentence."
    paper = paper_create(arxiv_id="2401.00042", title=HOSTILE_TITLE, abstract=abstract)
    tag_create(paper=paper, topic=agent_topic["topic"])
    contexts, pages = [], []

    def opener(width: int, height: int = 900):
        context = chromium.new_context(viewport={"width": width, "height": height})
        contexts.append(context)
        page = watch(context.new_page())
        page.problems = []
        page.on("console", lambda m: m.type == "error" and page.problems.append(m.text))
        page.on("requestfailed", lambda r: page.problems.append(f"failed: {r.url}"))
        page.on(
            "response", lambda r: r.status >= 400 and page.problems.append(f"{r.status} {r.url}")
        )
        page.goto(f"{live_server.url}/topics/agentic-rl/")
        pages.append(page)
        return page

    yield opener
    for context in contexts:
        context.close()
    for page in pages:
        assert page.errors == []
        assert page.csp_violations == []
        assert page.problems == []


def _ask(page) -> None:
    page.fill("#ask-question", QUESTION)
    page.click(".ask-submit")
    page.wait_for_selector(".ask-paper")
    page.wait_for_selector(".ask-submit:not([disabled])")  # the whole answer is in


@pytest.mark.parametrize("width", [1280, 390])
def test_asking_on_a_topic_page_without_a_model(open_topic, width):
    page = open_topic(width)
    _ask(page)
    titles = page.locator(".ask-paper-title").all_inner_texts()
    assert (
        "Reinforcing Multi-Turn Reasoning in LLM Agents via Turn-Level Credit Assignment"
        in (titles[:3])
    )
    assert HOSTILE_TITLE in titles  # shown as text, not markup
    assert page.evaluate("window.__xss") is None
    assert page.locator(".ask-paper img").count() == 0
    assert page.locator(".ask-passage mark").count() >= 1
    assert "No language model is configured" in page.inner_text(".ask-status")
    hrefs = page.locator(".ask-paper-title").evaluate_all(
        "els => els.map(e => e.getAttribute('href'))"
    )
    assert "/papers/2505.11821/" in hrefs
    if width == 390:
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator(".ask").screenshot(path=str(ARTIFACTS / f"ask-topic-{width}.png"))


@pytest.mark.parametrize("width", [1280, 390])
def test_a_streamed_model_answer_links_its_citations(open_topic, fake_llm, width):
    page = open_topic(width)
    _ask(page)
    page.wait_for_selector(".ask-answer-text")
    answer = page.inner_text(".ask-answer-text")
    assert "[1]" in answer or "[2]" in answer
    link = page.locator(".ask-cite").first
    target = link.get_attribute("href")
    assert page.locator(target).count() == 1  # the cited passage is on the page
    link.click()
    assert page.evaluate("location.hash") == target
    assert page.inner_text(".ask-status").startswith("Passages from")
    page.locator(".ask").screenshot(path=str(ARTIFACTS / f"ask-topic-model-{width}.png"))


@pytest.mark.parametrize("width", [1280, 390])
def test_asking_on_a_paper_page_reads_its_full_text(chromium, live_server, agent_topic,
                                                     fake_fulltext, width):  # fmt: skip
    context = chromium.new_context(viewport={"width": width, "height": 900})
    page = watch(context.new_page())
    problems = []
    page.on("console", lambda m: m.type == "error" and problems.append(m.text))
    page.on("requestfailed", lambda r: problems.append(f"failed: {r.url}"))
    page.on("response", lambda r: r.status >= 400 and problems.append(f"{r.status} {r.url}"))
    page.goto(f"{live_server.url}/papers/2505.10978/")
    page.fill("#ask-question", "On which benchmarks is GiGPO evaluated?")
    page.click(".ask-submit")
    page.wait_for_selector(".ask-passage")
    page.wait_for_selector(".ask-submit:not([disabled])")
    wheres = page.locator(".ask-passage-where").all_inner_texts()
    assert any("4 Experimental Setup" in w for w in wheres)  # a section of the fetched HTML
    assert "ALFWorld" in page.inner_text(".ask-papers")
    assert page.locator(".ask-paper").count() == 1  # one paper: this one
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator(".ask").screenshot(path=str(ARTIFACTS / f"ask-paper-{width}.png"))
    context.close()
    assert page.errors == []
    assert page.csp_violations == []
    assert problems == []
