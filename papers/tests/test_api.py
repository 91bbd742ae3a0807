"""Behaviour of the public papers API: /api/v1/papers/{arxiv_id}, the filtered list and the batch
lookup the browser extension calls (with the on-demand fetch of ids we do not have yet).

Bad input in general (pathological ids and queries, huge bodies) is covered by
tests/test_hostile_input.py; here only the errors the API promises by name are checked.
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from unittest import mock

import pytest

from papers.apis import MAX_LOOKUP_IDS
from papers.models import PendingLookup
from papers.tests.factories import paper_create
from topics.tests.factories import area_create, tag_create, topic_create

pytestmark = pytest.mark.django_db

DAY = date(2025, 3, 7)


# --- helpers -------------------------------------------------------------------------------


def get_json(client, url, status=200, **headers):
    response = client.get(url, headers=headers)
    assert response.status_code == status, response.content
    return response.json()


def lookup(client, ids):
    return client.post(
        "/api/v1/papers/lookup", json.dumps({"ids": ids}), content_type="application/json"
    )


def ids_of(body):
    return [paper["arxiv_id"] for paper in body["results"]]


def walk_pages(client, url, max_pages=50):
    """Follow `next` links from url; the arXiv ids of each page, in order."""
    pages = []
    while url:
        assert len(pages) < max_pages, "the next links never end"
        body = get_json(client, url)
        pages.append(ids_of(body))
        url = body["next"]
    return pages


@pytest.fixture
def topics():
    area = area_create(slug="rl", name="Reinforcement Learning", code="RL")
    return {
        "area": area,
        "pg": topic_create(parent=area, slug="policy-gradient", name="Policy Gradient"),
        "offline": topic_create(parent=area, slug="offline-rl", name="Offline RL"),
        "retired": topic_create(parent=area, slug="retired", name="Retired", active=False),
    }


@pytest.fixture
def tagged(topics):
    """2501.01234 (version 2) with four tags written out of rank order, one on a retired topic."""
    paper = paper_create(arxiv_id="2501.01234", title="Stable Policy Gradients", version=2)
    tag_create(paper=paper, topic=topics["offline"], score=0.55, rank=2)
    tag_create(paper=paper, topic=topics["retired"], score=0.70, rank=1)
    tag_create(paper=paper, topic=topics["area"], score=0.95, rank=0)
    tag_create(paper=paper, topic=topics["pg"], score=0.87, rank=1)
    return paper


# --- one paper -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        "2501.01234",
        "2501.01234v2",
        "2501.01234v1",
        "arXiv:2501.01234v2",
        "10.48550/arXiv.2501.01234",
    ],
)
def test_detail_answers_any_form_of_a_new_style_id_with_the_canonical_paper(client, tagged, raw):
    body = get_json(client, f"/api/v1/papers/{raw}")

    assert body["arxiv_id"] == "2501.01234"
    assert body["version"] == 2  # the paper's latest version, whichever one was asked for
    assert body["title"] == "Stable Policy Gradients"


def test_detail_answers_old_style_ids_in_every_form(client):
    paper_create(arxiv_id="hep-th/9901001", title="Strings, old style", primary_category="hep-th")
    paper_create(arxiv_id="math/0309136", title="Knots, old style", primary_category="math.GT")

    for raw in ["hep-th/9901001", "hep-th/9901001v3", "arXiv:hep-th/9901001"]:
        assert get_json(client, f"/api/v1/papers/{raw}")["arxiv_id"] == "hep-th/9901001", raw
    # The subject class of an old id is not part of it.
    assert get_json(client, "/api/v1/papers/math.GT/0309136")["arxiv_id"] == "math/0309136"


def test_detail_lists_active_tags_in_display_order_with_flags_and_evidence(client, tagged):
    tags = get_json(client, "/api/v1/papers/2501.01234")["tags"]

    # Chips first, most defining first; the area (scored highest) last, never a chip.
    assert [tag["slug"] for tag in tags] == ["policy-gradient", "offline-rl", "rl"]
    assert [tag["rank"] for tag in tags] == [1, 2, 3]
    assert [(tag["shown"], tag["implied"]) for tag in tags] == [
        (True, False),
        (True, False),
        (False, True),
    ]
    assert tags[0]["name"] == "Policy Gradient"
    assert tags[0]["score"] == pytest.approx(0.87)
    assert tags[0]["area"] == "rl"
    assert tags[0]["evidence"]["phrases"][0]["text"] == "policy gradient"


def test_unknown_paper_is_a_json_404_naming_the_canonical_id(client, tagged):
    response = client.get("/api/v1/papers/arXiv:2502.00001v3")

    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body["code"] == "not_found"
    assert "2502.00001" in body["detail"]
    assert not PendingLookup.objects.exists()  # only the lookup queues fetches


def test_detail_has_an_etag_and_if_none_match_gives_a_bodiless_304(client, tagged):
    etag = client.get("/api/v1/papers/2501.01234")["ETag"]
    assert etag

    cached = client.get("/api/v1/papers/2501.01234v2", headers={"If-None-Match": etag})
    assert cached.status_code == 304
    assert cached.content == b""
    assert cached["ETag"] == etag

    tagged.title = "Stable Policy Gradients, revised"
    tagged.save()
    changed = client.get("/api/v1/papers/2501.01234", headers={"If-None-Match": etag})
    assert changed.status_code == 200
    assert changed["ETag"] != etag
    assert changed.json()["title"] == "Stable Policy Gradients, revised"


# --- the list ------------------------------------------------------------------------------


@pytest.fixture
def shelf(topics):
    """Six dated papers with different topics, categories and words, newest first."""
    pg, offline = topics["pg"], topics["offline"]
    rows = [
        ("Policy gradients for robots", "cs.LG", "cs.LG cs.RO", [pg]),
        ("Offline data for policies", "cs.LG", "cs.LG", [offline, pg]),
        ("Graph networks, no policy", "cs.AI", "cs.AI stat.ML", []),
        ("Robust offline estimates", "stat.ML", "stat.ML cs.LG", [offline]),
        ("Gradient noise in policy search", "cs.RO", "cs.RO", [pg]),
        ("An old policy gradient survey", "cs.LG", "cs.LG", [pg]),
    ]
    papers = []
    for age, (title, primary, categories, tags) in enumerate(rows):
        paper = paper_create(
            title=title,
            abstract="Plain words.",
            primary_category=primary,
            categories=categories,
            announced=DAY - timedelta(days=3 * age),
        )
        for rank, topic in enumerate(tags, start=1):
            tag_create(paper=paper, topic=topic, rank=rank)
        papers.append(paper)
    return papers


def test_list_is_newest_first_and_limit_pages_walk_every_paper_once(client, shelf):
    same_day = paper_create(announced=shelf[0].announced)  # a tie with the newest paper

    pages = walk_pages(client, "/api/v1/papers?limit=2")

    assert [len(page) for page in pages] == [2, 2, 2, 1]
    walked = [arxiv_id for page in pages for arxiv_id in page]
    assert sorted(walked) == sorted(p.arxiv_id for p in [*shelf, same_day])
    assert walked[2:] == [p.arxiv_id for p in shelf[1:]]


def test_list_topic_filter_keeps_only_papers_with_that_tag(client, shelf, topics):
    body = get_json(client, "/api/v1/papers?topic=offline-rl")

    assert ids_of(body) == [shelf[1].arxiv_id, shelf[3].arxiv_id]
    assert all("offline-rl" in [t["slug"] for t in paper["tags"]] for paper in body["results"])


def test_list_since_filter_keeps_papers_announced_on_or_after_the_date(client, shelf):
    since = shelf[2].announced

    body = get_json(client, f"/api/v1/papers?since={since.isoformat()}")

    assert ids_of(body) == [p.arxiv_id for p in shelf if p.announced >= since]
    assert len(ids_of(body)) == 3


def test_list_category_filter_matches_any_listed_category_exactly(client, shelf):
    robotics = get_json(client, "/api/v1/papers?category=cs.RO")
    assert ids_of(robotics) == [shelf[0].arxiv_id, shelf[4].arxiv_id]  # secondary and primary

    stats = get_json(client, "/api/v1/papers?category=stat.ML")
    assert ids_of(stats) == [shelf[2].arxiv_id, shelf[3].arxiv_id]

    assert get_json(client, "/api/v1/papers?category=cs.L")["results"] == []  # no prefixes


def test_list_query_needs_every_word_in_the_title_or_abstract(client, shelf):
    body = get_json(client, "/api/v1/papers?q=policy gradient")

    expected = [shelf[0], shelf[4], shelf[5]]  # "gradients" contains "gradient"
    assert ids_of(body) == [p.arxiv_id for p in expected]


def test_list_filters_combine_and_paginate(client, shelf):
    url = f"/api/v1/papers?topic=policy-gradient&category=cs.LG&since={shelf[4].announced}"

    pages = walk_pages(client, url + "&limit=1")

    assert pages == [[shelf[0].arxiv_id], [shelf[1].arxiv_id]]


def test_list_has_an_etag_and_honours_if_none_match(client, shelf):
    etag = client.get("/api/v1/papers?topic=policy-gradient").get("ETag")
    assert etag
    cached = client.get("/api/v1/papers?topic=policy-gradient", headers={"If-None-Match": etag})
    assert cached.status_code == 304


def test_list_walk_reaches_undated_papers(client):
    papers = [paper_create(announced=day) for day in (DAY, DAY, None, DAY - timedelta(days=1))]

    pages = walk_pages(client, "/api/v1/papers?limit=2")

    walked = [arxiv_id for page in pages for arxiv_id in page]
    assert sorted(walked) == sorted(p.arxiv_id for p in papers)


# --- the batch lookup ----------------------------------------------------------------------


def test_lookup_answers_known_papers_with_their_tags_in_display_order(client, tagged):
    response = lookup(client, ["arXiv:2501.01234v1"])

    assert response.status_code == 200
    body = response.json()
    assert body["pending"] == []
    assert body["not_found"] == []
    [paper] = body["papers"]
    assert paper["arxiv_id"] == "2501.01234"
    assert paper["title"] == "Stable Policy Gradients"
    assert paper["primary_category"] == "cs.LG"
    assert [(t["rank"], t["slug"], t["name"], t["shown"], t["implied"]) for t in paper["tags"]] == [
        (1, "policy-gradient", "Policy Gradient", True, False),
        (2, "offline-rl", "Offline RL", True, False),
        (3, "rl", "Reinforcement Learning", False, True),
    ]
    assert [t["score"] for t in paper["tags"]] == pytest.approx([0.87, 0.55, 0.95])
    assert [t["area"] for t in paper["tags"]] == ["rl", "rl", "rl"]
    assert [t["source"] for t in paper["tags"]] == ["model"] * 3
    assert not PendingLookup.objects.exists()  # a known paper is never queued


def test_lookup_lists_unknown_ids_once_and_stores_them_for_fetching(client, tagged):
    ids = ["2502.00007v2", "2501.01234", "hep-th/9901001", "arXiv:2502.00007", "2501.01234v2"]

    body = lookup(client, ids).json()

    assert [paper["arxiv_id"] for paper in body["papers"]] == ["2501.01234"]
    assert body["pending"] == ["2502.00007", "hep-th/9901001"]
    stored = PendingLookup.objects.order_by("arxiv_id").values_list("arxiv_id", "not_found")
    assert list(stored) == [("2502.00007", False), ("hep-th/9901001", False)]

    # Asking again keeps one row per id.
    assert lookup(client, ids).json()["pending"] == ["2502.00007", "hep-th/9901001"]
    assert PendingLookup.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_lookup_schedules_one_fetch_after_commit_when_fetching_on_demand(client, settings):
    settings.ARXIV_FETCH_ON_DEMAND = True
    with mock.patch("papers.tasks.fetch_pending_task.apply_async") as apply_async:
        assert lookup(client, ["2502.00007", "2502.00008"]).status_code == 200
        assert lookup(client, ["2502.00009"]).status_code == 200  # rides along with the first

    apply_async.assert_called_once()
    assert set(PendingLookup.objects.values_list("arxiv_id", flat=True)) == {
        "2502.00007",
        "2502.00008",
        "2502.00009",
    }


def test_lookup_reports_ids_arxiv_does_not_know_without_queueing_them_again(client):
    PendingLookup.objects.create(arxiv_id="2502.00404", not_found=True, attempts=1)

    body = lookup(client, ["2502.00404v1", "2502.00005"]).json()

    assert body["not_found"] == ["2502.00404"]
    assert body["pending"] == ["2502.00005"]
    assert PendingLookup.objects.get(arxiv_id="2502.00404").attempts == 1


def test_lookup_of_more_than_2000_ids_is_a_400_naming_the_limit(client):
    # The limit counts the ids as sent, duplicates included.
    response = lookup(client, ["2502.00001"] * (MAX_LOOKUP_IDS + 1))

    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "too_many_ids"
    assert str(MAX_LOOKUP_IDS) in body["detail"]
    assert not PendingLookup.objects.exists()


def test_lookup_with_a_malformed_id_is_a_400_naming_it_and_queues_nothing(client, tagged):
    response = lookup(client, ["2502.00007", "not-an-id", "2501.01234", "2513.00001"])

    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_arxiv_id"
    assert body["invalid_ids"] == ["not-an-id", "2513.00001"]
    assert "not-an-id" in body["detail"]
    assert "2513.00001" in body["detail"]
    assert not PendingLookup.objects.exists()
