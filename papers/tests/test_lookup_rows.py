"""paper_lookup_rows: the batch lookup's rows without model instances must be exactly what the
API's documented LookupPaperOutput serializer makes of the same papers loaded as models."""

from __future__ import annotations

import pytest

from papers.selectors import paper_lookup_rows, papers_by_ids
from papers.serializers import LookupPaperOutput
from papers.tests.factories import paper_create
from topics.tests.factories import area_create, tag_create, topic_create

pytestmark = pytest.mark.django_db


def test_rows_equal_the_serializer_output_of_the_models(django_assert_num_queries):
    area = area_create()
    topic = topic_create(parent=area, slug="policy-gradient", name="Policy Gradient")
    retired = topic_create(parent=area, slug="retired", name="Retired", active=False)
    other_area = area_create(slug="cv", name="Computer Vision", code="CV")
    tagged = paper_create(arxiv_id="2503.00042", title="A tagged paper")
    tag_create(paper=tagged, topic=topic, rank=2, score=0.7)
    tag_create(paper=tagged, topic=area, rank=1, score=0.9)
    tag_create(paper=tagged, topic=retired, rank=3, score=0.4)
    tag_create(paper=tagged, topic=other_area, rank=4, score=0.3, source="user")
    paper_create(arxiv_id="2503.00043", version=3)  # no tags
    ids = ["2503.00042", "2503.00043", "2503.99999"]
    models = papers_by_ids(arxiv_ids=ids)
    with django_assert_num_queries(3):
        rows = paper_lookup_rows(arxiv_ids=ids)
    assert set(rows) == {"2503.00042", "2503.00043"}
    for arxiv_id, row in rows.items():
        assert row == LookupPaperOutput(models[arxiv_id]).data
    assert [t["slug"] for t in rows["2503.00042"]["tags"]] == ["rl", "policy-gradient", "cv"]
    assert rows["2503.00043"]["tags"] == []


def test_no_known_ids_is_one_query(django_assert_num_queries):
    with django_assert_num_queries(1):
        assert paper_lookup_rows(arxiv_ids=["2503.99999"]) == {}
