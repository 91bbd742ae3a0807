"""Hybrid retrieval over a topic's papers: the right papers, one passage per paper first, newest
first on ties, and a full-text index the database keeps in step (FTS5 here, PostgreSQL's
tsvector when DATABASE_URL points at PostgreSQL)."""

from __future__ import annotations

import pytest

from ask.models import Passage
from ask.selectors import DISTINCT_FIRST, passages_search, query_terms, topic_paper_ids
from ask.services.passages import ABSTRACT_WINDOW, passages_index_papers
from ask.text import sentences
from papers.models import Paper

pytestmark = pytest.mark.django_db

# Read from the abstracts: these two say they do credit assignment for multi-turn LLM agents.
CREDIT_AGENTS = {"2505.11821", "2505.10978"}
# Unrelated to agents or credit assignment (video prediction, egocentric perception, Markov
# games dynamics, quantum trading).
UNRELATED = {"2506.21552", "2506.21080", "2506.21079", "2506.20930"}
QUESTION = "Which papers address credit assignment in multi-turn agent training?"


def _index(agent_topic) -> list[int]:
    ids = topic_paper_ids(topic_id=agent_topic["topic"].id)
    passages_index_papers(papers=Paper.objects.filter(id__in=ids))
    return ids


@pytest.mark.parametrize("method", ["hybrid", "embedding", "fulltext"])
def test_it_finds_the_papers_on_credit_assignment(agent_topic, method):
    hits = passages_search(question=QUESTION, paper_ids=_index(agent_topic), method=method)
    top = [h.arxiv_id for h in hits[:5]]
    assert top[0] == "2505.11821"
    assert set(top) >= CREDIT_AGENTS


def test_the_hybrid_keeps_unrelated_papers_out_of_the_first_five(agent_topic):
    hits = passages_search(question=QUESTION, paper_ids=_index(agent_topic))
    assert not {h.arxiv_id for h in hits[:5]} & UNRELATED


def test_it_indexes_overlapping_abstract_windows_once(agent_topic):
    ids = _index(agent_topic)
    count = Passage.objects.count()
    assert passages_index_papers(papers=Paper.objects.filter(id__in=ids)) == 0
    assert Passage.objects.count() == count
    paper = agent_topic["papers"]["2505.10978"]
    rows = list(
        Passage.objects.filter(paper=paper).order_by("position").values_list("kind", "text")
    )
    assert {kind for kind, _ in rows} == {"abstract"}  # the title is context, not a passage
    sentences_ = sentences(paper.abstract)
    assert len(rows) == len(sentences_) - ABSTRACT_WINDOW + 1
    assert rows[0][1] == " ".join(sentences_[:ABSTRACT_WINDOW])
    assert rows[1][1].startswith(sentences_[1])


def test_a_paper_without_abstract_is_found_by_its_title(agent_topic):
    from papers.tests.factories import paper_create
    from topics.tests.factories import tag_create

    paper = paper_create(arxiv_id="2502.00003", title="Wombat burrow mechanics", abstract="")
    tag_create(paper=paper, topic=agent_topic["topic"])
    hits = passages_search(question="wombat burrows", paper_ids=_index(agent_topic))
    assert (hits[0].arxiv_id, hits[0].kind) == ("2502.00003", "title")


def test_the_first_passages_come_from_distinct_papers(agent_topic):
    hits = passages_search(
        question="credit assignment advantage", paper_ids=_index(agent_topic), limit=10
    )
    firsts = [h.paper_id for h in hits[:DISTINCT_FIRST]]
    assert len(set(firsts)) == len(firsts)
    assert len({h.paper_id for h in hits}) < len(hits)  # later ones may repeat a paper


def test_ties_go_to_the_newer_paper(agent_topic):
    from datetime import date

    from papers.tests.factories import paper_create
    from topics.tests.factories import tag_create

    topic = agent_topic["topic"]
    old = paper_create(
        arxiv_id="2401.00001", title="Zebra gradients", abstract="", announced=date(2024, 1, 2)
    )
    new = paper_create(
        arxiv_id="2501.00001", title="Zebra gradients", abstract="", announced=date(2025, 1, 2)
    )
    for paper in (old, new):
        tag_create(paper=paper, topic=topic)
    hits = passages_search(question="zebra gradients", paper_ids=_index(agent_topic))
    assert [h.arxiv_id for h in hits[:2]] == ["2501.00001", "2401.00001"]


def test_the_full_text_index_follows_deletes_and_edits(agent_topic):
    ids = _index(agent_topic)
    assert passages_search(question="anchor state grouping", paper_ids=ids, method="fulltext")
    Passage.objects.filter(paper=agent_topic["papers"]["2505.10978"]).delete()
    hits = passages_search(question="anchor state grouping", paper_ids=ids, method="fulltext")
    assert "2505.10978" not in {h.arxiv_id for h in hits}
    passage = Passage.objects.filter(kind="abstract").first()
    passage.text = "Quokka habitats are the unique subject of this sentence."
    passage.save(update_fields=["text"])
    [hit] = passages_search(question="quokka habitats", paper_ids=ids, method="fulltext")
    assert hit.id == passage.id


@pytest.mark.parametrize(
    "question",
    [
        'credit" OR "x',
        "NEAR(credit assignment)",
        "credit*",
        "title:credit",
        "a AND NOT b",
        "'; DROP TABLE ask_passage; --",
        "ümlaut ∑ 漢字",
    ],
)
def test_search_syntax_in_a_question_is_only_words(agent_topic, question):
    ids = _index(agent_topic)
    hits = passages_search(question=question, paper_ids=ids, method="fulltext")
    assert isinstance(hits, list)
    assert Passage.objects.exists()
    assert all(t.isalnum() for t in query_terms(question))
