"""paper_lookup_json: the batch lookup's entries, pasted from Paper.tags_json without model
instances, must be exactly what the API's documented LookupPaperOutput serializer makes of the
same papers loaded as models, whether the stored JSON is built or not yet (NULL)."""

from __future__ import annotations

import json

import pytest

from papers.models import Paper
from papers.selectors import paper_lookup_json, papers_by_ids
from papers.serializers import LookupPaperOutput
from papers.tests.factories import paper_create
from topics.services.chips import paper_chips_refresh
from topics.tests.factories import area_create, tag_create, topic_create

pytestmark = pytest.mark.django_db

IDS = ["2503.00042", "2503.00043", "2503.99999"]


@pytest.fixture
def tagged():
    area = area_create()
    topic = topic_create(parent=area, slug="policy-gradient", name="Policy Gradient")
    retired = topic_create(parent=area, slug="retired", name="Retired", active=False)
    other_area = area_create(slug="cv", name="Computer Vision", code="CV")
    paper = paper_create(arxiv_id="2503.00042", title='A "tagged" paper – ünïcode $\\alpha$')
    tag_create(paper=paper, topic=topic, rank=2, score=0.7, chip_order=0.6543)
    tag_create(paper=paper, topic=area, rank=1, score=0.9)
    tag_create(paper=paper, topic=retired, rank=3, score=0.4)
    tag_create(paper=paper, topic=other_area, rank=4, score=0.3, source="user")
    untagged = paper_create(arxiv_id="2503.00043", version=3)  # no tags
    paper_chips_refresh(paper_ids=[untagged.pk])  # as the tagger does: "[]"
    return paper


def entries(**kwargs) -> dict[str, dict]:
    return {k: json.loads(v) for k, v in paper_lookup_json(**kwargs).items()}


def test_entries_equal_the_serializer_output_of_the_models(tagged, django_assert_num_queries):
    models = papers_by_ids(arxiv_ids=IDS)
    with django_assert_num_queries(1):
        rows = entries(arxiv_ids=IDS)

    assert set(rows) == {"2503.00042", "2503.00043"}
    for arxiv_id, row in rows.items():
        assert row == LookupPaperOutput(models[arxiv_id]).data
    assert [t["slug"] for t in rows["2503.00042"]["tags"]] == ["policy-gradient", "rl", "cv"]
    assert [t["shown"] for t in rows["2503.00042"]["tags"]] == [True, False, False]
    # The chip's confidence is the chip-order model's P; a tag it did not rank shows its score.
    assert [t["confidence"] for t in rows["2503.00042"]["tags"]] == [0.6543, 0.9, 0.3]
    assert rows["2503.00043"]["tags"] == []


def test_entries_not_built_yet_come_from_the_stored_tags(tagged):
    models = papers_by_ids(arxiv_ids=IDS)
    Paper.objects.update(tags_json=None)

    rows = entries(arxiv_ids=IDS)

    for arxiv_id, row in rows.items():
        assert row == LookupPaperOutput(models[arxiv_id]).data
    assert rows["2503.00042"]["tags"][0]["confidence"] == 0.6543


def test_a_paper_never_tagged_costs_one_query_more(tagged, django_assert_num_queries):
    Paper.objects.filter(arxiv_id="2503.00043").update(tags_json=None)

    with django_assert_num_queries(2):
        assert entries(arxiv_ids=IDS)["2503.00043"]["tags"] == []


def test_no_known_ids_is_one_query(django_assert_num_queries):
    with django_assert_num_queries(1):
        assert paper_lookup_json(arxiv_ids=["2503.99999"]) == {}
