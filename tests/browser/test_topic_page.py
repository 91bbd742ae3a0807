"""The topic page in headless Chromium: keyboard navigation, the help overlay, abstracts, and
screenshots at phone and desktop widths in light and dark mode (test-artifacts/)."""

from __future__ import annotations

import re
from datetime import date, timedelta

import pytest

from papers.tests.factories import paper_create
from topics.tests.factories import (
    area_create,
    momentum_create,
    tag_create,
    topic_create,
    weeks_create,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NEWEST = date(2025, 3, 6)

PAPERS = [
    (
        "Group Relative Policy Optimization Without a Critic: Variance, Bias and Stability",
        ["Mei Tanaka", "Jonas Richter", "Priya Raman", "Olu Adeyemi", "Sara Lindqvist"],
        "cs.LG",
    ),
    (
        "Trust-Region Policy Gradients for Long-Horizon Robotic Manipulation",
        ["Lucas Moreau", "Hannah Becker"],
        "cs.RO",
    ),
    (
        "On the Sample Complexity of Natural Policy Gradient in Linear MDPs",
        ["Wei Zhang", "Ana Costa", "David Cohen"],
        "stat.ML",
    ),
    (
        "Off-Policy Actor-Critic with Learned Importance Weights",
        ["Fatima Al-Sayed", "Tom Eriksen", "Kenji Watanabe", "Laura Rossi"],
        "cs.LG",
    ),
    (
        "REINFORCE Revisited: Baselines, Control Variates and What Actually Matters",
        ["Noah Williams", "Chiara Bianchi", "Ravi Patel", "Eva Novak", "Ming Li", "Ines Duarte"],
        "cs.LG",
    ),
    (
        "Policy Mirror Descent for Constrained Reinforcement Learning",
        ["Sofia Marin", "Daniel Park"],
        "math.OC",
    ),
    (
        "Entropy-Regularized Policy Gradients in Multi-Agent Games",
        ["Ahmed Hassan", "Julia Schmidt", "Pedro Alves"],
        "cs.MA",
    ),
    (
        "Scaling Policy Gradient Fine-Tuning of Language Models with Verifiable Rewards",
        ["Emma Johansson", "Arjun Mehta", "Yuki Sato", "Lena Fischer"],
        "cs.CL",
    ),
]

ABSTRACT = (
    "Policy gradient methods remain the workhorse of reinforcement learning, yet their variance "
    "makes long-horizon problems expensive. We analyse the estimator used in {topic} and show that "
    "a simple group-normalised baseline removes most of the variance without a learned critic. "
    "Across continuous-control benchmarks and reasoning tasks the method matches or improves on "
    "strong baselines while using a third of the samples, and an ablation isolates the effect of "
    "each component. Code and trained policies are released."
)


def topic_page_with_realistic_papers() -> dict:
    area = area_create(
        slug="rl",
        code="RL",
        name="Reinforcement Learning",
        description="Reinforcement learning studies agents that learn by trial and error.",
    )
    topic = topic_create(
        parent=area,
        slug="policy-gradient",
        name="Policy Gradient Methods",
        description=(
            "Policy gradient methods optimise a parameterised policy directly by ascending an "
            "estimate of the gradient of expected return. Common approaches include REINFORCE "
            "with baselines, actor-critic methods, trust-region and proximal updates, and "
            "critic-free group-relative estimators used to fine-tune language models. Work is "
            "evaluated on continuous-control suites such as MuJoCo and on reasoning benchmarks "
            "with verifiable rewards. The central challenge is reducing gradient variance "
            "without adding bias."
        ),
        aliases=["PG", "REINFORCE", "PPO", "GRPO"],
        categories=["cs.LG", "cs.AI", "stat.ML"],
    )
    children = [
        topic_create(parent=topic, slug="actor-critic", name="Actor-Critic Methods"),
        topic_create(parent=topic, slug="trust-region", name="Trust-Region Methods"),
    ]
    others = [
        topic_create(parent=area, slug="offline-rl", name="Offline RL"),
        topic_create(parent=area, slug="rlhf", name="RL from Human Feedback"),
        topic_create(parent=area, slug="multi-agent-rl", name="Multi-Agent RL"),
        topic_create(parent=area, slug="robot-learning", name="Robot Learning"),
        topic_create(parent=area, slug="llm-reasoning", name="LLM Reasoning"),
    ]
    papers = []
    for i, (title, authors, category) in enumerate(PAPERS):
        paper = paper_create(
            title=title,
            authors=authors,
            primary_category=category,
            categories=f"{category} cs.AI",
            announced=NEWEST - timedelta(days=i),
            abstract=ABSTRACT.format(topic=title.split(":")[0].lower()),
        )
        tag_create(paper=paper, topic=topic, score=0.9 - i * 0.03, rank=1)
        for rank, other in enumerate(others[i % 3 : i % 3 + 1 + i % 4], start=2):
            tag_create(paper=paper, topic=other, score=0.6 - rank * 0.05, rank=rank)
        if i % 3 == 0:
            tag_create(paper=paper, topic=children[i % 2], score=0.7, rank=6)
        tag_create(paper=paper, topic=area, score=0.95, rank=9)
        papers.append(paper)
    last_week = NEWEST - timedelta(days=NEWEST.weekday())
    counts = [
        4,
        6,
        5,
        7,
        6,
        8,
        7,
        9,
        8,
        7,
        10,
        9,
        11,
        10,
        12,
        9,
        13,
        12,
        14,
        11,
        15,
        16,
        19,
        23,
        21,
        8,
    ]
    weeks_create(topic=topic, counts=counts, last_week=last_week)
    momentum_create(topic=topic, recent=63, previous=16, total_recent=15000, window_end=NEWEST)
    # Neighbours for the home page: a few trending topics and a second area.
    figures = {"rlhf": (48, 30), "offline-rl": (22, 25), "llm-reasoning": (95, 51)}
    figures |= {"multi-agent-rl": (5, 3), "robot-learning": (17, 17)}
    for other in others:
        recent, previous = figures[other.slug]
        momentum_create(topic=other, recent=recent, previous=previous, window_end=NEWEST)
        weeks_create(
            topic=other,
            counts=[max(1, recent // 4 + (i * 7) % 5 - 2) for i in range(26)],
            last_week=last_week,
        )
    momentum_create(topic=area, recent=410, previous=380, window_end=NEWEST)
    area_create(slug="cv", code="CV", name="Computer Vision", position=1)
    return {"area": area, "topic": topic, "papers": papers}


def selected_index(page) -> int:
    return page.evaluate(
        "Array.from(document.querySelectorAll('[data-keynav-item]'))"
        ".findIndex(el => el.getAttribute('aria-current') === 'true')"
    )


def test_keyboard_moves_the_selection_and_enter_opens_the_paper(open_page, live_server, artifacts):
    from playwright.sync_api import expect

    data = topic_page_with_realistic_papers()
    page = open_page("/topics/policy-gradient/")
    rows = page.locator("[data-keynav-item]")
    expect(rows).to_have_count(8)
    assert selected_index(page) == -1

    page.keyboard.press("j")
    expect(rows.nth(0)).to_have_attribute("aria-current", "true")
    expect(rows.nth(0)).to_have_class(re.compile(r"\bis-selected\b"))
    page.keyboard.press("j")
    page.keyboard.press("j")
    assert selected_index(page) == 2
    expect(rows.nth(0)).not_to_have_class(re.compile(r"\bis-selected\b"))
    page.keyboard.press("k")
    assert selected_index(page) == 1
    expect(rows.nth(1)).to_have_class(re.compile(r"\bis-selected\b"))
    assert page.locator(".is-selected").count() == 1
    # The selected paper's title link has the focus, so screen readers announce it.
    assert page.evaluate("document.activeElement.closest('[data-keynav-item]') !== null")

    # K at the top and J at the bottom stay put.
    for _ in range(3):
        page.keyboard.press("k")
    assert selected_index(page) == 0
    for _ in range(12):
        page.keyboard.press("j")
    assert selected_index(page) == 7
    page.keyboard.press("k")
    assert selected_index(page) == 6

    # Typing in the search box is not navigation.
    page.locator("#site-search-q").focus()
    page.keyboard.type("jk")
    assert selected_index(page) == 6
    page.locator("#site-search-q").fill("")

    # ? shows the shortcuts; Esc closes them.
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("?")
    help_dialog = page.locator("#keyboard-help")
    expect(help_dialog).to_be_visible()
    expect(help_dialog).to_contain_text("Next paper")
    page.screenshot(path=str(artifacts / "topic-1280-light-help.png"))
    page.keyboard.press("Escape")
    expect(help_dialog).to_be_hidden()

    # Enter opens the selected paper's page.
    page.keyboard.press("k")
    assert selected_index(page) == 5
    page.keyboard.press("Enter")
    expect(page).to_have_url(f"{live_server.url}/papers/{data['papers'][5].arxiv_id}/")
    expect(page.locator("h1")).to_have_text(PAPERS[5][0])
    assert page.errors == []


def test_enter_opens_the_selection_when_focus_is_elsewhere(open_page, live_server):
    from playwright.sync_api import expect

    data = topic_page_with_realistic_papers()
    page = open_page("/topics/policy-gradient/")
    page.locator("[data-keynav-item] > article > .paper-meta").nth(
        3
    ).click()  # not a link: selects the row
    assert selected_index(page) == 3
    page.keyboard.press("Enter")
    expect(page).to_have_url(f"{live_server.url}/papers/{data['papers'][3].arxiv_id}/")


def test_the_reading_view_shows_the_selection_beside_the_list(open_page, live_server):
    from playwright.sync_api import expect

    data = topic_page_with_realistic_papers()
    page = open_page("/topics/policy-gradient/", width=1440, height=900)
    pane = page.locator("[data-reader-pane]")
    expect(pane).to_be_visible()
    expect(pane).to_contain_text(PAPERS[0][0])  # a preview of the first paper before any key
    page.keyboard.press("j")
    page.keyboard.press("j")
    paper = data["papers"][1]
    expect(pane).to_contain_text(PAPERS[1][0])
    expect(pane).to_contain_text("the method matches or improves")  # the abstract
    expect(pane.get_by_role("link", name="PDF")).to_have_attribute(
        "href", f"https://arxiv.org/pdf/{paper.arxiv_id}v1"
    )
    expect(pane.get_by_role("link", name="arXiv", exact=True)).to_have_attribute(
        "href", f"https://arxiv.org/abs/{paper.arxiv_id}"
    )
    expect(pane.get_by_role("link", name="Open paper")).to_be_visible()
    expect(pane.get_by_role("link", name="Ask")).to_be_visible()
    assert page.url.endswith(f"?p={paper.arxiv_id}")  # the address keeps the selection
    page.keyboard.press("Enter")
    expect(page).to_have_url(f"{live_server.url}/papers/{paper.arxiv_id}/")
    page.go_back()
    expect(page.locator("[data-keynav-item]").nth(1)).to_have_class(re.compile(r"is-selected"))
    expect(pane).to_contain_text(PAPERS[1][0])
    assert page.errors == []


def test_on_a_phone_the_pane_is_a_sheet(open_page):
    from playwright.sync_api import expect

    topic_page_with_realistic_papers()
    page = open_page("/topics/policy-gradient/", width=390, height=844)
    pane = page.locator("[data-reader-pane]")
    expect(pane).to_be_hidden()
    page.locator("[data-keynav-item] > article > .paper-meta").nth(2).click()
    expect(pane).to_be_visible()
    expect(pane).to_contain_text(PAPERS[2][0])
    box = pane.bounding_box()
    assert box["y"] + box["height"] <= 844 + 1
    assert box["y"] > 200
    page.get_by_role("button", name="Close the selected paper").click()
    expect(pane).to_be_hidden()
    assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")
    assert page.errors == []


def test_the_help_button_shows_the_shortcuts(open_page):
    from playwright.sync_api import expect

    topic_page_with_realistic_papers()
    page = open_page("/topics/policy-gradient/")
    page.get_by_role("button", name="Shortcuts").click()
    expect(page.locator("#keyboard-help")).to_be_visible()
    page.get_by_role("button", name="Close").click()
    expect(page.locator("#keyboard-help")).to_be_hidden()


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_screenshots_at_phone_and_desktop_widths(open_page, artifacts, width, scheme):
    data = topic_page_with_realistic_papers()
    height = 844 if width < 600 else 900
    page = open_page("/topics/policy-gradient/", width=width, height=height, color_scheme=scheme)
    # No sideways scrolling at any width.
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.keyboard.press("j")
    page.keyboard.press("j")
    page.evaluate("window.scrollTo(0, 0)")
    path = artifacts / f"topic-{width}-{scheme}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 10_000
    # The paper page and home page too, for review of the whole look.
    page.goto(page.url.split("/topics/")[0] + f"/papers/{data['papers'][0].arxiv_id}/")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.screenshot(path=str(artifacts / f"paper-{width}-{scheme}.png"), full_page=True)
    page.goto(page.url.split("/papers/")[0] + "/")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.screenshot(path=str(artifacts / f"home-{width}-{scheme}.png"), full_page=True)
    assert page.errors == []
