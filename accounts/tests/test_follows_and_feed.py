"""Follows in the shape the extension reads, and the feed: papers in followed topics, newest
first, with the tags that matched, cursor pages, and "not interested" that sticks."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from accounts.models import Follow, Hidden
from papers.tests.factories import paper_create
from topics.tests.factories import area_create, topic_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def topics():
    area = area_create("rl", "Reinforcement Learning", "RL")
    return {
        "offline": topic_create("offline-rl", name="Offline RL", parent=area),
        "bandits": topic_create("bandits", name="Bandits", parent=area),
        "other": topic_create("diffusion", name="Diffusion Models", parent=area),
    }


def test_following_is_idempotent_and_listed_like_the_extension_expects(me, topics):
    first = me.api("post", "/api/v1/me/follows", {"topic": "offline-rl"})
    again = me.api("post", "/api/v1/me/follows", {"topic": "offline-rl"})
    assert (first.status_code, again.status_code) == (201, 200)

    body = me.api("get", "/api/v1/me/follows").json()
    assert body["next"] is None
    assert [{k: r[k] for k in ("slug", "name", "area")} for r in body["results"]] == [
        {"slug": "offline-rl", "name": "Offline RL", "area": "rl"}
    ]
    assert Follow.objects.count() == 1


def test_unfollowing(me, topics):
    me.api("post", "/api/v1/me/follows", {"topic": "bandits"})
    assert me.api("delete", "/api/v1/me/follows/bandits").status_code == 204
    response = me.api("delete", "/api/v1/me/follows/bandits")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_an_unknown_or_retired_topic_is_a_clear_400(me, topics):
    topics["other"].active = False
    topics["other"].save()
    for slug in ("no-such-topic", "diffusion"):
        response = me.api("post", "/api/v1/me/follows", {"topic": slug})
        assert response.status_code == 400
        assert response.json()["code"] == "unknown_topic"
        assert slug in response.json()["detail"]
    assert Follow.objects.count() == 0


def _feed(me, query=""):
    return me.api("get", f"/api/v1/me/feed{query}").json()


def test_the_feed_has_followed_topics_newest_first_with_matched_tags(me, topics):
    day = date(2025, 3, 3)
    old = paper_create("2503.00001", announced=day, topics=[topics["offline"]])
    new = paper_create(
        "2503.00002",
        announced=day + timedelta(days=1),
        topics=[topics["bandits"], topics["offline"]],
    )
    paper_create("2503.00003", announced=day + timedelta(days=2), topics=[topics["other"]])
    for slug in ("offline-rl", "bandits"):
        me.api("post", "/api/v1/me/follows", {"topic": slug})

    body = _feed(me)

    assert [p["arxiv_id"] for p in body["results"]] == [new.arxiv_id, old.arxiv_id]
    assert [m["slug"] for m in body["results"][0]["matched"]] == ["bandits", "offline-rl"]
    assert {"arxiv_id", "version", "title", "authors", "primary_category", "tags"} <= set(
        body["results"][0]
    )
    assert body["results"][0]["saved"] is False


def test_a_feed_can_be_narrowed_to_one_topic(me, topics):
    paper_create("2503.00001", topics=[topics["offline"]])
    paper_create("2503.00002", topics=[topics["bandits"]])
    me.api("post", "/api/v1/me/follows", {"topic": "offline-rl"})
    me.api("post", "/api/v1/me/follows", {"topic": "bandits"})
    assert [p["arxiv_id"] for p in _feed(me, "?topic=bandits")["results"]] == ["2503.00002"]


def test_not_interested_hides_a_paper_for_good(me, topics):
    paper_create("2503.00001", topics=[topics["offline"]])
    paper_create("2503.00002", topics=[topics["offline"]])
    me.api("post", "/api/v1/me/follows", {"topic": "offline-rl"})

    assert me.api("post", "/api/v1/me/hidden", {"arxiv_id": "2503.00001v2"}).status_code == 201
    assert me.api("post", "/api/v1/me/hidden", {"arxiv_id": "2503.00001"}).status_code == 200
    assert [p["arxiv_id"] for p in _feed(me)["results"]] == ["2503.00002"]
    # Following one more topic that also tags it does not bring it back.
    topics["bandits"].paper_tags.create(paper_id=Hidden.objects.get().paper_id, score=0.9, rank=2)
    me.api("post", "/api/v1/me/follows", {"topic": "bandits"})
    assert [p["arxiv_id"] for p in _feed(me)["results"]] == ["2503.00002"]
    assert [h["arxiv_id"] for h in me.api("get", "/api/v1/me/hidden").json()["results"]] == [
        "2503.00001"
    ]

    assert me.api("delete", "/api/v1/me/hidden/2503.00001").status_code == 204
    assert len(_feed(me)["results"]) == 2


def test_saved_papers_are_marked_in_the_feed(me, topics):
    paper_create("2503.00001", topics=[topics["offline"]])
    me.api("post", "/api/v1/me/follows", {"topic": "offline-rl"})
    default = me.api("get", "/api/v1/me").json()["default_list"]
    me.api("post", f"/api/v1/me/lists/{default}/items", {"arxiv_id": "2503.00001"})
    assert _feed(me)["results"][0]["saved"] is True


def test_the_feed_pages_with_a_cursor(me, topics):
    start = date(2025, 1, 1)
    ids = [
        paper_create(
            f"2503.{n:05d}", announced=start + timedelta(days=n), topics=[topics["offline"]]
        ).arxiv_id
        for n in range(1, 8)
    ]
    me.api("post", "/api/v1/me/follows", {"topic": "offline-rl"})
    seen, url = [], "/api/v1/me/feed?limit=3"
    while url:
        body = me.api("get", url).json()
        seen += [p["arxiv_id"] for p in body["results"]]
        url = body["next"]
    assert seen == list(reversed(ids))


def test_an_empty_feed_without_follows(me, topics):
    paper_create("2503.00001", topics=[topics["offline"]])
    assert _feed(me)["results"] == []


def test_hiding_an_unknown_paper_is_a_400(me):
    response = me.api("post", "/api/v1/me/hidden", {"arxiv_id": "2503.99999"})
    assert response.status_code == 400
    assert response.json()["code"] == "unknown_paper"
