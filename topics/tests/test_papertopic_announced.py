"""PaperTopic.announced, the copy of the paper's date that the newest-first topic lists read
through an index: database triggers (topics migration 0002) keep it equal to the paper's,
however the rows are written. On SQLite a rebuilt table loses its triggers; these tests are the
alarm for that."""

from __future__ import annotations

from datetime import date

import pytest
from django.db import connection, transaction

from papers.models import Paper
from papers.tests.factories import paper_create
from topics.models import PaperTopic
from topics.selectors import topic_related
from topics.tests.factories import area_create, tag_create, topic_create

pytestmark = pytest.mark.django_db


def stored(tag: PaperTopic) -> date | None:
    return PaperTopic.objects.values_list("announced", flat=True).get(pk=tag.pk)


@pytest.fixture
def topic():
    return topic_create(parent=area_create(), slug="policy-gradient", name="Policy Gradient")


def test_a_new_tag_gets_its_papers_date(topic):
    tag = tag_create(paper=paper_create(announced=date(2025, 3, 4)), topic=topic)
    assert stored(tag) == date(2025, 3, 4)


def test_bulk_created_tags_get_their_papers_dates(topic):
    papers = [paper_create(announced=date(2025, 3, day)) for day in (3, 4)] + [
        paper_create(announced=None)
    ]
    PaperTopic.objects.bulk_create(
        [PaperTopic(paper=p, topic=topic, score=0.5, rank=1) for p in papers],
        ignore_conflicts=True,
    )
    assert sorted(
        PaperTopic.objects.values_list("announced", flat=True), key=lambda d: d or date.min
    ) == [None, date(2025, 3, 3), date(2025, 3, 4)]


def test_saving_a_tag_again_keeps_the_date(topic):
    tag = tag_create(paper=paper_create(announced=date(2025, 3, 4)), topic=topic)
    tag.score = 0.3
    tag.save()  # the instance still holds announced=None: the database must not take it
    assert stored(tag) == date(2025, 3, 4)


def test_a_papers_new_date_reaches_its_tags(topic):
    paper = paper_create(announced=None)
    tag = tag_create(paper=paper, topic=topic)
    paper.announced = date(2025, 4, 1)
    paper.save()
    assert stored(tag) == date(2025, 4, 1)
    Paper.objects.filter(pk=paper.pk).update(announced=date(2025, 4, 2))
    assert stored(tag) == date(2025, 4, 2)
    Paper.objects.filter(pk=paper.pk).update(announced=None)
    assert stored(tag) is None


def test_a_tag_written_before_its_paper_gets_the_date(topic):
    # Foreign keys are checked at commit, so fixtures may bring a tag before its paper.
    with transaction.atomic():
        tag = PaperTopic.objects.create(paper_id=987654, topic=topic, score=0.5, rank=1)
        paper_create(id=987654, announced=date(2025, 5, 6))
    assert stored(tag) == date(2025, 5, 6)


def test_the_triggers_exist():
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        else:
            cursor.execute("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal")
        names = {row[0] for row in cursor.fetchall()}
    assert {"papers_paper_announced_to_tags", "papers_paper_announced_to_new_tags"} <= names
    assert any(name.startswith("topics_papertopic_copy_announced") for name in names)


def test_related_topics_come_from_the_newest_papers(topic):
    area = topic.area
    old, new = (topic_create(parent=area, slug=s, name=s) for s in ("old-one", "new-one"))
    for day in range(1, 4):
        paper = paper_create(announced=date(2025, 1, day))
        tag_create(paper=paper, topic=topic)
        tag_create(paper=paper, topic=old)
    for day in range(1, 3):
        paper = paper_create(announced=date(2025, 6, day))
        tag_create(paper=paper, topic=topic)
        tag_create(paper=paper, topic=new)
    assert [t.slug for t in topic_related(topic=topic, sample=2)] == ["new-one"]
    assert [t.slug for t in topic_related(topic=topic)] == ["old-one", "new-one"]
