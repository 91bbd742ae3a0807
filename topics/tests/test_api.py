"""Behaviour of the public topics API: /api/v1/topics, /topics/{slug} and /topics/{slug}/papers.

Counts, momentum and weekly series are computed by the stats service (topic_stats_recompute)
from papers these tests create, and every expected number is derived from that fixture data.
Bad input (unknown filters, malformed cursors) is covered by tests/test_hostile_input.py.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import date, timedelta

import pytest

from accounts.models import Follow
from accounts.tests.factories import user_create
from papers.tests.factories import paper_create
from topics.models import Topic
from topics.momentum import SERIES_WEEKS, WINDOW_DAYS, week_start
from topics.services.stats import topic_stats_recompute
from topics.tests.factories import area_create, tag_create, topic_create

pytestmark = pytest.mark.django_db

END = date(2025, 3, 7)  # a Friday: the newest announcement in every test below
# arXiv's announcement days, newest first: weekdays (a test may leave some out, as a holiday).
WEEKDAYS = [END - timedelta(days=n) for n in range(200) if (END - timedelta(days=n)).weekday() < 5]


# --- helpers -------------------------------------------------------------------------------


def get_json(client, url, status=200, **headers):
    response = client.get(url, headers=headers)
    assert response.status_code == status, response.content
    return response.json()


def tagged_paper(*topics, announced=END, **extra):
    """A paper tagged with these topics, ranked in the order given (rank 1, 2, ...)."""
    paper = paper_create(announced=announced, **extra)
    for rank, topic in enumerate(topics, start=1):
        tag_create(paper=paper, topic=topic, rank=rank, score=round(0.9 - rank / 10, 2))
    return paper


def slugs(refs):
    return [ref["slug"] for ref in refs]


def walk_pages(client, url, max_pages=50):
    """Follow `next` links from url; the arXiv ids of each page, in order."""
    pages = []
    while url:
        assert len(pages) < max_pages, "the next links never end"
        body = get_json(client, url)
        pages.append([paper["arxiv_id"] for paper in body["results"]])
        url = body["next"]
    return pages


@pytest.fixture
def tree():
    """Two areas; in RL a topic with aliases, an active child, a retired child and a grandchild."""
    rl = area_create(slug="rl", name="Reinforcement Learning", code="RL", position=1)
    cv = area_create(slug="cv", name="Computer Vision", code="CV", position=2)
    pg = topic_create(
        parent=rl,
        slug="policy-gradient",
        name="Policy Gradient",
        description="Methods that follow the gradient of expected return.",
        aliases=["PG", "Score-Function Estimators"],
    )
    actor_critic = topic_create(parent=pg, slug="actor-critic", name="Actor-Critic Methods")
    topic_create(parent=pg, slug="retired-child", name="Retired Child", active=False)
    a2c = topic_create(parent=actor_critic, slug="a2c", name="Advantage Actor-Critic")
    offline = topic_create(parent=rl, slug="offline-rl", name="Offline RL")
    bandits = topic_create(parent=rl, slug="bandits", name="Bandits")
    detection = topic_create(parent=cv, slug="object-detection", name="Object Detection")
    return {
        "rl": rl,
        "cv": cv,
        "pg": pg,
        "actor_critic": actor_critic,
        "a2c": a2c,
        "offline": offline,
        "bandits": bandits,
        "detection": detection,
    }


# --- one topic -----------------------------------------------------------------------------


def test_detail_names_area_ancestors_active_children_description_and_aliases(client, tree):
    body = get_json(client, "/api/v1/topics/actor-critic")

    assert body["slug"] == "actor-critic"
    assert body["name"] == "Actor-Critic Methods"
    assert body["area"] == {"slug": "rl", "name": "Reinforcement Learning"}
    assert body["parent"] == {"slug": "policy-gradient", "name": "Policy Gradient"}
    assert slugs(body["ancestors"]) == ["rl", "policy-gradient"]
    assert slugs(body["children"]) == ["a2c"]
    assert body["is_area"] is False

    parent = get_json(client, "/api/v1/topics/policy-gradient")
    assert slugs(parent["children"]) == ["actor-critic"]  # the retired child is left out
    assert parent["description"] == "Methods that follow the gradient of expected return."
    assert parent["aliases"] == ["PG", "Score-Function Estimators"]


def test_detail_counts_followers(client, tree):
    for _ in range(3):
        Follow.objects.create(user=user_create(), topic=tree["pg"])
    Follow.objects.create(user=user_create(), topic=tree["offline"])

    body = get_json(client, "/api/v1/topics/policy-gradient")

    assert body["followers"] == 3


def announce_every(days: list[date]) -> None:
    """One untagged paper on each of these days, so that each is an announcement day."""
    for day in days:
        paper_create(announced=day)


def test_detail_momentum_counts_the_last_28_announcement_days_and_the_28_before(client, tree):
    # A holiday (no announcement) inside the recent window: the window reaches one day further.
    holiday = WEEKDAYS[10]
    days = [day for day in WEEKDAYS[:70] if day != holiday]
    announce_every(days)
    recent_days, previous_days = days[:WINDOW_DAYS], days[WINDOW_DAYS : 2 * WINDOW_DAYS]
    recent_tagged = [0, 0, 1, 5, 12, 20, WINDOW_DAYS - 1]  # indexes into days
    previous_tagged = [WINDOW_DAYS, 33, 40, 2 * WINDOW_DAYS - 1]
    outside_tagged = [2 * WINDOW_DAYS, 65]
    for index in recent_tagged + previous_tagged + outside_tagged:
        tagged_paper(tree["pg"], announced=days[index])
    topic_stats_recompute()

    momentum = get_json(client, "/api/v1/topics/policy-gradient")["momentum"]

    recent, previous = len(recent_tagged), len(previous_tagged)
    all_recent = len(recent_days) + recent  # one untagged paper a day, plus the tagged ones
    assert momentum["window_end"] == END.isoformat()
    assert momentum["window_start"] == recent_days[-1].isoformat()
    assert momentum["window_days"] == WINDOW_DAYS == 28
    assert momentum["recent_count"] == recent
    assert momentum["previous_count"] == previous
    assert previous_days[-1] == days[2 * WINDOW_DAYS - 1]
    assert momentum["change"] == pytest.approx((recent - previous) / previous, abs=1e-4)
    assert momentum["share"] == pytest.approx(recent / all_recent, abs=1e-6)
    assert momentum["low_count"] is False
    assert momentum["sentence"].startswith(
        f"{recent} papers in the last 28 announcement days, up 75% on the 28 before."
    )


def test_momentum_flags_low_counts_and_has_no_change_without_earlier_papers(client, tree):
    announce_every(WEEKDAYS[:60])
    for index in [0, 5, 9]:
        tagged_paper(tree["bandits"], announced=WEEKDAYS[index])
    for index in [0, 30]:
        tagged_paper(tree["offline"], announced=WEEKDAYS[index])
    topic_stats_recompute()

    bandits = get_json(client, "/api/v1/topics/bandits")["momentum"]
    offline = get_json(client, "/api/v1/topics/offline-rl")["momentum"]

    assert (bandits["recent_count"], bandits["previous_count"]) == (3, 0)
    assert bandits["change"] is None  # no earlier papers: no percentage
    assert bandits["low_count"] is True
    assert (offline["recent_count"], offline["previous_count"]) == (1, 1)
    assert offline["low_count"] is True
    assert "too few to call a trend" in offline["sentence"]


def test_a_young_database_has_one_short_window_and_no_previous_one(client, tree):
    # Ten announcement days in all: the recent window holds them all, the previous is empty.
    for day in WEEKDAYS[:10]:
        tagged_paper(tree["pg"], announced=day)
    topic_stats_recompute()

    momentum = get_json(client, "/api/v1/topics/policy-gradient")["momentum"]

    assert (momentum["recent_count"], momentum["previous_count"]) == (10, 0)
    assert momentum["window_start"] == WEEKDAYS[9].isoformat()
    assert momentum["share"] == 1.0


def test_weekly_series_has_26_consecutive_weeks_whose_counts_match_the_papers(client, tree):
    first_week = week_start(END) - timedelta(weeks=SERIES_WEEKS - 1)
    days = [END, END, END - timedelta(days=3), END - timedelta(weeks=2), END - timedelta(weeks=9)]
    days += [first_week, first_week + timedelta(days=4), first_week - timedelta(days=1)]
    for day in days:
        tagged_paper(tree["pg"], announced=day)
    tagged_paper(tree["offline"], announced=END - timedelta(weeks=1))  # another topic's week
    topic_stats_recompute()

    weekly = get_json(client, "/api/v1/topics/policy-gradient")["weekly"]

    assert len(weekly) >= 26
    weeks = [date.fromisoformat(row["week"]) for row in weekly]
    assert weeks[-1] == week_start(END)
    assert weeks == [weeks[0] + timedelta(weeks=n) for n in range(len(weeks))]
    assert all(week.weekday() == 0 for week in weeks)
    expected = Counter(week_start(day) for day in days if day >= weeks[0])
    assert [row["count"] for row in weekly] == [expected.get(week, 0) for week in weeks]
    assert sum(row["count"] for row in weekly) == len(days) - 1  # one paper precedes the series


def test_related_topics_are_ordered_by_shared_papers_without_areas_or_ancestors(client, tree):
    rl, pg, actor_critic = tree["rl"], tree["pg"], tree["actor_critic"]
    offline, bandits = tree["offline"], tree["bandits"]
    for _ in range(3):
        tagged_paper(pg, rl, offline)
    tagged_paper(pg, rl, actor_critic)
    tagged_paper(pg, actor_critic, bandits)
    tagged_paper(tree["detection"], bandits)  # no policy-gradient paper: not related to it

    related = get_json(client, "/api/v1/topics/policy-gradient")["related"]
    assert slugs(related) == ["offline-rl", "actor-critic", "bandits"]

    # actor-critic shares papers with its parent policy-gradient: an ancestor is never related.
    related = get_json(client, "/api/v1/topics/actor-critic")["related"]
    assert slugs(related) == ["bandits"]


def test_unknown_or_retired_topic_is_a_json_404(client, tree):
    for url in [
        "/api/v1/topics/no-such-topic",
        "/api/v1/topics/retired-child",
        "/api/v1/topics/no-such-topic/papers",
        "/api/v1/topics/retired-child/papers",
    ]:
        response = client.get(url)
        assert response.status_code == 404, url
        assert response["Content-Type"].startswith("application/json")
        assert response.json()["code"] == "not_found"


def test_detail_has_an_etag_and_if_none_match_gives_a_bodiless_304(client, tree):
    first = client.get("/api/v1/topics/policy-gradient")
    etag = first["ETag"]
    assert re.fullmatch(r'"[^"]+"', etag)

    again = client.get("/api/v1/topics/policy-gradient", headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == etag

    listed = client.get(
        "/api/v1/topics/policy-gradient", headers={"If-None-Match": f'"other", {etag}'}
    )
    assert listed.status_code == 304

    tree["pg"].description = "A new description."
    tree["pg"].save()
    changed = client.get("/api/v1/topics/policy-gradient", headers={"If-None-Match": etag})
    assert changed.status_code == 200
    assert changed["ETag"] != etag
    assert changed.json()["description"] == "A new description."


# --- the list ------------------------------------------------------------------------------


def test_list_search_finds_a_topic_by_alias_or_name_case_insensitively(client, tree):
    by_alias = get_json(client, "/api/v1/topics?q=score-FUNCTION")["results"]
    assert slugs(by_alias) == ["policy-gradient"]

    by_name = get_json(client, "/api/v1/topics?q=actor-critic")["results"]
    assert sorted(slugs(by_name)) == ["a2c", "actor-critic"]

    assert get_json(client, "/api/v1/topics?q=nothing-matches")["results"] == []


def test_list_area_filter_keeps_only_that_areas_active_topics(client, tree):
    results = get_json(client, "/api/v1/topics?area=cv")["results"]
    assert sorted(slugs(results)) == ["cv", "object-detection"]

    rl = get_json(client, "/api/v1/topics?area=rl")["results"]
    assert {topic["area"]["slug"] for topic in rl} == {"rl"}
    assert "retired-child" not in slugs(rl)
    assert "object-detection" not in slugs(rl)


def test_list_sorts_by_name_by_default(client, tree):
    results = get_json(client, "/api/v1/topics")["results"]
    names = [topic["name"] for topic in results]
    assert names == sorted(names, key=str.lower)
    assert len(results) == Topic.objects.filter(active=True).count()
    assert "retired-child" not in slugs(results)


def test_list_sort_size_orders_by_paper_count_and_momentum_by_recent_papers(client, tree):
    announce_every(WEEKDAYS[:60])
    old = WEEKDAYS[40]  # in the previous momentum window
    papers_per_topic = {  # topic: (recent papers, older papers)
        tree["bandits"]: (1, 4),
        tree["offline"]: (3, 0),
        tree["detection"]: (2, 1),
    }
    for topic, (recent, older) in papers_per_topic.items():
        for _ in range(recent):
            tagged_paper(topic, announced=END)
        for _ in range(older):
            tagged_paper(topic, announced=old)
    topic_stats_recompute()

    by_size = slugs(get_json(client, "/api/v1/topics?sort=size&area=rl")["results"])
    assert by_size[:2] == ["bandits", "offline-rl"]  # 5 papers, then 3

    by_size = slugs(get_json(client, "/api/v1/topics?sort=size")["results"])
    assert by_size[:3] == ["bandits", "object-detection", "offline-rl"]  # 5, 3 (name), 3

    by_momentum = slugs(get_json(client, "/api/v1/topics?sort=momentum")["results"])
    assert by_momentum[:3] == ["offline-rl", "object-detection", "bandits"]  # 3, 2, 1 recent


# --- a topic's papers ----------------------------------------------------------------------


def test_topic_papers_are_newest_first_and_carry_their_ranked_tags(client, tree):
    pg, offline = tree["pg"], tree["offline"]
    older = tagged_paper(pg, offline, announced=END - timedelta(days=9))
    newest = tagged_paper(offline, pg, announced=END)
    middle = tagged_paper(pg, announced=END - timedelta(days=2))
    tagged_paper(offline, announced=END)  # not a policy-gradient paper

    body = get_json(client, "/api/v1/topics/policy-gradient/papers")

    ids = [paper["arxiv_id"] for paper in body["results"]]
    assert ids == [newest.arxiv_id, middle.arxiv_id, older.arxiv_id]
    first = body["results"][0]
    assert [tag["slug"] for tag in first["tags"]] == ["offline-rl", "policy-gradient"]
    assert [tag["rank"] for tag in first["tags"]] == [1, 2]
    assert first["tags"][1]["name"] == "Policy Gradient"
    assert all("policy-gradient" in slugs(paper["tags"]) for paper in body["results"])
    assert body["next"] is None


def test_topic_papers_next_cursor_walks_every_paper_exactly_once(client, tree):
    days = [0, 0, 0, 1, 2, 2, 5, 8, 8]  # ties on a date must not lose or repeat papers
    papers = [tagged_paper(tree["pg"], announced=END - timedelta(days=d)) for d in days]
    tagged_paper(tree["offline"], announced=END)

    pages = walk_pages(client, "/api/v1/topics/policy-gradient/papers?limit=2")

    assert all(len(page) <= 2 for page in pages)
    walked = [arxiv_id for page in pages for arxiv_id in page]
    assert sorted(walked) == sorted(paper.arxiv_id for paper in papers)
    assert len(walked) == len(set(walked))
    dates = {paper.arxiv_id: paper.announced for paper in papers}
    assert [dates[i] for i in walked] == sorted(dates.values(), reverse=True)


def test_topic_papers_walk_reaches_undated_papers_last(client, tree):
    dated = [tagged_paper(tree["pg"], announced=END - timedelta(days=d)) for d in (0, 1, 2)]
    undated = [tagged_paper(tree["pg"], announced=None) for _ in range(2)]

    pages = walk_pages(client, "/api/v1/topics/policy-gradient/papers?limit=2")

    walked = [arxiv_id for page in pages for arxiv_id in page]
    assert walked[:3] == [paper.arxiv_id for paper in dated]
    assert sorted(walked[3:]) == sorted(paper.arxiv_id for paper in undated)


def test_list_pages_with_limit_and_offset_and_walks_every_topic_once(client, tree):
    everything = get_json(client, "/api/v1/topics")
    active = Topic.objects.filter(active=True).count()
    assert everything["count"] == len(everything["results"]) == active
    assert everything["next"] is None
    assert everything["previous"] is None

    seen, firsts, url = [], [], "/api/v1/topics?limit=3"
    while url:
        page = get_json(client, url)
        assert page["count"] == everything["count"]
        assert len(page["results"]) <= 3
        firsts.append(page)
        seen += slugs(page["results"])
        url = page["next"]
    assert seen == slugs(everything["results"])  # each once, in the same order
    assert firsts[0]["previous"] is None
    back = get_json(client, firsts[1]["previous"])
    assert slugs(back["results"]) == slugs(firsts[0]["results"])


@pytest.mark.parametrize(
    ("query", "field"), [("limit=0", "limit"), ("limit=1001", "limit"), ("offset=-1", "offset")]
)
def test_list_refuses_a_page_size_or_offset_out_of_range(client, tree, query, field):
    body = get_json(client, f"/api/v1/topics?{query}", status=400)
    assert list(body["errors"]) == [field]
