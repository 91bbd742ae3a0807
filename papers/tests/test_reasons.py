"""One-line reasons for chips, from the evidence the tagger stores, and where the paper page
shows them (beside the title; the diagnostic table folded behind "Why these topics?")."""

from __future__ import annotations

import pytest

from papers.reasons import reason_line
from papers.tests.factories import paper_create
from topics.tests.factories import area_create, tag_create, topic_create


def test_the_title_comes_first_then_the_neighbours():
    evidence = {
        "phrases": [
            {"text": "reward model", "where": "abstract", "count": 3},
            {"text": "agentic RL", "where": "title", "count": 1},
        ],
        "neighbours": {"carry": 17, "of": 20},
        "similarity": 0.7,
    }
    assert reason_line(evidence) == "Title says “agentic RL”; 17 of its 20 nearest papers carry it"


def test_an_abstract_phrase_says_how_often():
    evidence = {"phrases": [{"text": "GRPO", "where": "abstract", "count": 4}]}
    assert reason_line(evidence) == "Abstract says “GRPO” 4×"


def test_implied_tags_name_the_subtopic_and_examples_fill_in():
    evidence = {"implied_by": "offline-rl", "examples": [{"id": "2501.1", "title": "CQL at scale"}]}
    assert reason_line(evidence, topic_names={"offline-rl": "Offline RL"}) == (
        "Implied by its subtopic Offline RL; close to “CQL at scale”"
    )


def test_weak_evidence_falls_back_to_categories_and_says_low_confidence():
    evidence = {"similarity": 0.1, "categories": ["cs.RO"], "low_confidence": True}
    assert reason_line(evidence) == "Listed in cs.RO (low confidence)"
    assert reason_line({}) == ""
    assert reason_line(None) == ""
    assert reason_line({"similarity": 0.62}) == "Abstract reads like the topic’s description"


@pytest.mark.django_db
def test_the_paper_page_puts_chips_with_reasons_beside_the_title(client):
    area = area_create(slug="rl", code="RL", name="Reinforcement Learning")
    topic = topic_create(slug="agentic-rl", name="Agentic RL", parent=area)
    paper = paper_create(title="Agentic RL for tool use")
    evidence = {"phrases": [{"text": "agentic RL", "where": "title", "count": 1}]}
    tag_create(paper=paper, topic=topic, evidence=evidence)
    html = client.get(f"/papers/{paper.arxiv_id}/").content.decode()
    head, rest = html.split('<details class="why-topics" id="why-topics">')
    assert 'class="chip-reasons paper-chips"' in head
    assert 'Agentic RL</a> <span class="reason">Title says “agentic RL”</span>' in head
    assert "<summary>Why these topics?" in rest
    assert "Matched phrases" in rest  # the diagnostic table, folded


@pytest.mark.django_db
def test_the_title_chips_are_the_papers_chips_not_its_implied_area(client):
    area = area_create(slug="rl", code="RL", name="Reinforcement Learning")
    topic = topic_create(slug="agentic-rl", name="Agentic RL", parent=area)
    paper = paper_create(title="Agentic RL for tool use")
    tag_create(paper, topic, rank=1)
    tag_create(paper, area, rank=2, evidence={"implied_by": "agentic-rl"})
    html = client.get(f"/papers/{paper.arxiv_id}/").content.decode()
    head = html.split('<details class="why-topics"')[0]
    chips = head.split('class="chip-reasons paper-chips"')[1].split("</ul>")[0]
    assert ">Agentic RL</a>" in chips
    assert ">Reinforcement Learning</a>" not in chips  # the area line, not a chip
