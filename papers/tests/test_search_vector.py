"""search_filter on PostgreSQL reads the stored, indexed search_vector column (papers migration
0003); on SQLite it matches terms. Both must find the same papers for plain words."""

from __future__ import annotations

import pytest
from django.db import connection

from papers.models import Paper
from papers.search import search_filter
from papers.tests.factories import paper_create

pytestmark = pytest.mark.django_db

postgres_only = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the search_vector column is PostgreSQL's"
)


@pytest.fixture
def papers():
    return {
        "title": paper_create(title="Sparse rewards in robot grasping", abstract="Nothing else."),
        "abstract": paper_create(title="A study", abstract="We train transformers on proteins."),
        "neither": paper_create(title="Graph colouring", abstract="Planar graphs, four colours."),
    }


def found(query: str) -> set[str]:
    return set(search_filter(Paper.objects.all(), query).values_list("title", flat=True))


def test_title_and_abstract_words_are_found(papers):
    assert found("grasping") == {"Sparse rewards in robot grasping"}
    assert found("transformers proteins") == {"A study"}
    assert found("colouring grasping") == set()


@postgres_only
def test_words_are_stemmed_and_websearch_syntax_works(papers):
    assert found("grasp") == {"Sparse rewards in robot grasping"}
    assert found('"robot grasping" -colouring') == {"Sparse rewards in robot grasping"}


@postgres_only
def test_the_vector_follows_edits(papers):
    paper = papers["neither"]
    paper.abstract = "Now about reinforcement learning."
    paper.save()
    assert found("reinforcement") == {"Graph colouring"}


@postgres_only
def test_it_works_inside_a_subquery(papers):
    matching = search_filter(Paper.objects.all(), "proteins").values("id")
    assert list(Paper.objects.filter(id__in=matching).values_list("title", flat=True)) == [
        "A study"
    ]


@postgres_only
def test_the_query_uses_the_stored_column():
    sql = str(search_filter(Paper.objects.all(), "proteins").query)
    assert '"search_vector" @@' in sql
    assert "to_tsvector" not in sql
