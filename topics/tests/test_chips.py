"""Chips (issue 13): the display rule, the stored order and flags, and what pages show.

A paper's chips are its most specific topics, the most defining first; areas are never chips;
implied ancestors stay stored (the paper is on their topic pages and in their counts) with a
score of their own, but are not chips."""

from __future__ import annotations

import json
import random

import pytest

from papers.models import Paper
from papers.tests.factories import paper_create
from topics.models import PaperTopic
from topics.services.chips import paper_chips_refresh
from topics.services.tagging import papers_tag
from topics.tagger.chips import MAX_CHIPS, MIN_CHIP_ORDER, ChipTag, chips_arrange, tag_confidence
from topics.tests.factories import area_create, tag_create, topic_create
from topics.tests.learning_setup import PPO_PAPER

pytestmark = pytest.mark.django_db


# --- the rule ------------------------------------------------------------------------------------
TREE = {"rl": (), "pg": ("rl",), "ppo": ("pg", "rl"), "offline": ("rl",), "ml": ()}


def tag(key: str, score: float) -> ChipTag:
    return ChipTag(key, TREE[key], not TREE[key], score, len(TREE[key]))


def test_chips_are_the_most_specific_non_area_tags_best_first():
    placed = chips_arrange([tag("rl", 0.99), tag("pg", 0.9), tag("ppo", 0.6), tag("offline", 0.7)])

    assert [(p.key, p.shown, p.implied) for p in placed] == [
        ("offline", True, False),
        ("ppo", True, False),
        ("pg", False, True),
        ("rl", False, True),
    ]


def test_an_area_is_never_a_chip_even_alone_or_best_scored():
    assert [p.shown for p in chips_arrange([tag("rl", 0.99)])] == [False]
    assert [p.shown for p in chips_arrange([tag("ml", 0.99), tag("rl", 0.9)])] == [False, False]


def test_random_tag_sets_never_show_an_area_or_an_implied_topic_and_at_most_seven():
    rng = random.Random(13)
    tree = {"a0": (), "a1": ()}
    for n in range(60):  # a random forest three levels deep under two areas
        parent = rng.choice(list(tree))
        tree[f"t{n}"] = (parent, *tree[parent])
    for _ in range(300):
        keys = rng.sample(list(tree), rng.randint(1, 25))
        tags = [ChipTag(k, tree[k], not tree[k], rng.random(), len(tree[k])) for k in keys]
        placed = chips_arrange(tags)
        ancestors = {a for k in keys for a in tree[k]}
        assert sorted(p.key for p in placed) == sorted(keys)  # nothing dropped
        shown = [p.key for p in placed if p.shown]
        assert len(shown) <= MAX_CHIPS
        assert not any(not tree[k] or k in ancestors for k in shown)
        assert [p.key for p in placed[: len(shown)]] == shown  # chips lead
        assert all(p.implied == (p.key in ancestors) for p in placed)


def test_the_chip_order_reorders_the_chips_but_not_which_topics_are_chips():
    # Eight specific tags: the seven best scored are the chips; the chip-order model's values
    # order those seven, and a tag past the limit stays off however high its order would be.
    tree = {"a": ()} | {f"t{n}": ("a",) for n in range(8)}
    tags = [
        ChipTag(f"t{n}", tree[f"t{n}"], False, 0.9 - n / 10, 1, order=0.5 + n / 20)
        for n in range(8)
    ]
    placed = chips_arrange([*tags, ChipTag("a", (), True, 0.95, 0)])

    assert [p.key for p in placed if p.shown] == ["t6", "t5", "t4", "t3", "t2", "t1", "t0"]
    assert [p.key for p in placed if not p.shown] == ["t7", "a"]
    # without orders, the same tags are in score order
    plain = chips_arrange([ChipTag(t.key, t.ancestors, False, t.score, 1) for t in tags])
    assert [p.key for p in plain if p.shown] == [f"t{n}" for n in range(7)]


def test_a_chip_the_order_model_finds_unlikely_stays_a_tag_but_is_not_shown():
    tree = {"a": ()} | {k: ("a",) for k in ("t0", "t1", "t2", "t3", "mine")}
    placed = chips_arrange(
        [
            ChipTag("t0", tree["t0"], False, 0.95, 1, order=MIN_CHIP_ORDER - 0.01),
            ChipTag("t1", tree["t1"], False, 0.9, 1, order=0.8),
            ChipTag("t2", tree["t2"], False, 0.7, 1, order=MIN_CHIP_ORDER),
            ChipTag("t3", tree["t3"], False, 0.6, 1, order=0.1),
            ChipTag("mine", tree["mine"], False, 0.4, 1),  # a person's tag: no order, shown
            ChipTag("a", (), True, 0.99, 0),
        ]
    )

    assert [(p.key, p.shown, p.implied) for p in placed] == [
        ("t1", True, False),
        ("t2", True, False),  # at the bar: shown
        ("mine", True, False),
        ("t0", False, False),  # the best scored, but more likely not the paper's topic
        ("t3", False, False),
        ("a", False, True),
    ]


def test_the_first_chip_is_shown_however_unlikely_the_order_model_finds_it():
    tree = {"a": ()} | {k: ("a",) for k in ("t0", "t1")}
    placed = chips_arrange(
        [
            ChipTag("t0", tree["t0"], False, 0.9, 1, order=0.2),
            ChipTag("t1", tree["t1"], False, 0.6, 1, order=0.3),
        ]
    )

    assert [(p.key, p.shown) for p in placed] == [("t1", True), ("t0", False)]


# --- stored by the tagging service ---------------------------------------------------------------
def test_tagging_stores_display_order_flags_and_the_lookup_json(topics):
    stored = paper_create(title=PPO_PAPER[0], abstract=PPO_PAPER[1])

    papers_tag(paper_ids=[stored.pk])

    rows = list(PaperTopic.objects.filter(paper=stored).select_related("topic").order_by("rank"))
    assert [r.rank for r in rows] == list(range(1, len(rows) + 1))
    chips = [r for r in rows if r.shown]
    assert rows[: len(chips)] == chips
    assert chips
    assert not any(r.topic.parent_id is None for r in chips)
    by_slug = {r.topic.slug: r for r in rows}
    # PPO implies Policy Gradient and RL: stored (topic pages, counts), implied, not chips,
    # and scored by the model for themselves, not copied from PPO.
    ppo = by_slug["proximal-policy-optimization"]
    for parent in ("policy-gradient", "rl"):
        assert (by_slug[parent].shown, by_slug[parent].implied) == (False, True)
        assert by_slug[parent].score != ppo.score
    stored.refresh_from_db()
    assert json.loads(stored.tags_json) == [
        {
            "slug": r.topic.slug,
            "name": r.topic.name,
            "area": r.topic.area.slug,
            "score": r.score,
            "confidence": r.chip_order if r.chip_order is not None else r.score,
            "rank": r.rank,
            "source": r.source,
            "shown": r.shown,
            "implied": r.implied,
        }
        for r in rows
    ]


def test_refresh_rebuilds_order_and_json_after_a_topic_is_retired():
    area = area_create()
    pg = topic_create(parent=area, slug="policy-gradient", name="Policy Gradient")
    offline = topic_create(parent=area, slug="offline-rl", name="Offline RL")
    stored = paper_create()
    tag_create(paper=stored, topic=pg, score=0.9)
    tag_create(paper=stored, topic=offline, score=0.5)
    tag_create(paper=stored, topic=area, score=0.95)
    pg.active = False
    pg.save(update_fields=["active"])

    paper_chips_refresh(paper_ids=[stored.pk])

    stored = Paper.objects.get(pk=stored.pk)
    assert [t["slug"] for t in json.loads(stored.tags_json)] == ["offline-rl", "rl"]
    assert [t.topic.slug for t in stored.chips] == ["offline-rl"]


def migration_scene(name: str):
    """A data migration's module and the topics its tests tag: the RL area, Policy Gradient and
    Offline RL under it."""
    from importlib import import_module

    area = area_create()
    pg = topic_create(parent=area, slug="policy-gradient", name="Policy Gradient")
    offline = topic_create(parent=area, slug="offline-rl", name="Offline RL")
    return import_module(f"topics.migrations.{name}"), area, pg, offline


def test_the_migration_holds_back_stored_chips_below_the_bar_and_leaves_other_papers_alone():
    from django.apps import apps

    migration, _, pg, offline = migration_scene("0008_chips_likely_only")
    before, other = paper_create(), paper_create()
    for paper, low in ((before, 0.3), (other, 0.6)):
        tag_create(paper=paper, topic=pg, score=0.9, chip_order=0.8)
        tag_create(paper=paper, topic=offline, score=0.5, chip_order=low)
    # as stored by the rule before this migration: both chips shown
    PaperTopic.objects.update(shown=True)
    stale = Paper.objects.get(pk=before.pk).tags_json.replace('"shown":false', '"shown":true')
    Paper.objects.filter(pk=before.pk).update(tags_json=stale)
    other_json = Paper.objects.get(pk=other.pk).tags_json

    migration.arrange(apps, None)

    rows = PaperTopic.objects.filter(paper=before).order_by("rank")
    assert [(r.topic.slug, r.rank, r.shown) for r in rows] == [
        ("policy-gradient", 1, True),
        ("offline-rl", 2, False),
    ]
    assert [t["shown"] for t in json.loads(Paper.objects.get(pk=before.pk).tags_json)] == [
        True,
        False,
    ]
    assert list(PaperTopic.objects.filter(paper=other).values_list("shown", flat=True)) == [
        True,
        True,
    ]
    assert Paper.objects.get(pk=other.pk).tags_json == other_json


def test_a_tags_confidence_is_the_chip_order_models_where_it_ranked_the_tag_else_the_score():
    assert tag_confidence(0.9, 0.35) == 0.35
    assert tag_confidence(0.6, 0.8) == 0.8
    assert tag_confidence(0.6, None) == 0.6


def test_the_confidence_migration_rebuilds_every_tagged_papers_json_and_keeps_order_and_flags():
    from django.apps import apps

    migration, area, pg, offline = migration_scene("0009_tags_confidence")
    tagged, untagged = paper_create(), paper_create()
    tag_create(paper=tagged, topic=pg, score=0.9, chip_order=0.81234567)
    tag_create(paper=tagged, topic=offline, score=0.5, chip_order=0.2)
    tag_create(paper=tagged, topic=area, score=0.95)
    fields = ("topic__slug", "rank", "shown", "implied")
    before = list(PaperTopic.objects.filter(paper=tagged).order_by("rank").values_list(*fields))
    # tags_json as stored before this migration: no confidence
    built = json.loads(Paper.objects.get(pk=tagged.pk).tags_json)
    stale = [{k: v for k, v in t.items() if k != "confidence"} for t in built]
    Paper.objects.filter(pk=tagged.pk).update(tags_json=json.dumps(stale))

    migration.rebuild(apps, None)

    rows = PaperTopic.objects.filter(paper=tagged).order_by("rank")
    assert list(rows.values_list(*fields)) == before
    assert rows.get(topic=pg).chip_order == 0.8123  # rounded, as tagging stores it
    tags = json.loads(Paper.objects.get(pk=tagged.pk).tags_json)
    assert [(t["slug"], t["confidence"]) for t in tags] == [
        ("policy-gradient", 0.8123),
        ("offline-rl", 0.2),
        ("rl", 0.95),
    ]
    assert Paper.objects.get(pk=untagged.pk).tags_json == untagged.tags_json


def test_after_a_move_the_ancestor_a_chip_implied_stays_a_tag_until_the_paper_is_tagged_again():
    from topics.models import Topic

    area = area_create()  # rl
    pg = topic_create(parent=area, slug="policy-gradient", name="Policy Gradient")
    ppo = topic_create(parent=pg, slug="ppo", name="Proximal Policy Optimization")
    offline = topic_create(parent=area, slug="offline-rl", name="Offline RL")
    trust = topic_create(parent=area, slug="trust-region", name="Trust Region Methods")
    stored = paper_create()
    tag_create(paper=stored, topic=ppo, score=0.8, chip_order=0.9)
    tag_create(paper=stored, topic=offline, score=0.6, chip_order=0.7)
    tag_create(paper=stored, topic=pg, score=0.85)  # implied by PPO: the model did not rank it
    tag_create(paper=stored, topic=area, score=0.95)
    tag_create(paper=stored, topic=trust, score=1.0, source="user")  # a person's: never ranked
    # An editor moves PPO out from under Policy Gradient; its papers are queued for tagging.
    Topic.objects.filter(pk=ppo.pk).update(parent=area, depth=pg.depth)

    paper_chips_refresh(paper_ids=[stored.pk])

    rows = {r.topic.slug: r for r in PaperTopic.objects.filter(paper=stored)}
    chips = [r.topic.slug for r in sorted(rows.values(), key=lambda r: r.rank) if r.shown]
    assert chips == ["trust-region", "ppo", "offline-rl"]
    assert (rows["policy-gradient"].shown, rows["policy-gradient"].implied) == (False, False)
    assert rows["policy-gradient"].chip_order is None  # nothing made up is stored
    tags = json.loads(Paper.objects.get(pk=stored.pk).tags_json)
    assert [t["slug"] for t in tags if t["shown"]] == chips


# --- pages ---------------------------------------------------------------------------------------
@pytest.fixture
def implied_scene():
    area = area_create()  # rl
    pg = topic_create(parent=area, slug="policy-gradient", name="Policy Gradient")
    ppo = topic_create(parent=pg, slug="ppo", name="Proximal Policy Optimization")
    stored = paper_create(arxiv_id="2503.00077", title="Clipping in PPO, revisited")
    tag_create(paper=stored, topic=area, score=0.97)
    tag_create(paper=stored, topic=pg, score=0.93)
    tag_create(paper=stored, topic=ppo, score=0.81)
    return stored


def chip_hrefs(html: str) -> list[str]:
    import re

    tags = re.findall(r'<ul class="tags" aria-label="Topics">(.*?)</ul>', html, re.S)
    return [h for block in tags for h in re.findall(r'<a class="tag[^"]*" href="([^"]+)"', block)]


def test_the_parent_topic_page_lists_the_paper_but_its_row_shows_only_the_chip(
    client, implied_scene
):
    html = client.get("/topics/policy-gradient/").content.decode()

    assert "Clipping in PPO, revisited" in html  # an implied ancestor keeps the paper
    assert chip_hrefs(html) == ["/topics/ppo/"]  # neither the parent nor the area is a chip


def test_search_and_paper_page_show_the_same_chips_first(client, implied_scene):
    search = client.get("/search/", {"q": "clipping"}).content.decode()
    assert chip_hrefs(search) == ["/topics/ppo/"]

    detail = client.get("/papers/2503.00077/").content.decode()
    order = [detail.index(f'href="/topics/{slug}/"') for slug in ("ppo", "policy-gradient")]
    assert order == sorted(order)  # the chip first, then what it implies
    assert detail.count('data-shown="true"') == 1


def test_stored_chip_orders_decide_order_and_chips_when_the_tags_are_arranged_again():
    area = area_create()
    pg = topic_create(parent=area, slug="policy-gradient", name="Policy Gradient")
    offline = topic_create(parent=area, slug="offline-rl", name="Offline RL")
    mine = topic_create(parent=area, slug="model-based-rl", name="Model-Based RL")
    stored = paper_create()
    tag_create(paper=stored, topic=pg, score=0.9, chip_order=0.3)
    tag_create(paper=stored, topic=offline, score=0.5, chip_order=0.8)
    tag_create(paper=stored, topic=mine, score=0.6, source=PaperTopic.Source.USER)

    paper_chips_refresh(paper_ids=[stored.pk])

    rows = PaperTopic.objects.filter(paper=stored).order_by("rank")
    # the model's chips by their chip order, a person's tag (no order) by its score; the
    # model's chip it finds unlikely (0.3) stays a tag after the chips, not shown
    assert [(r.topic.slug, r.shown) for r in rows] == [
        ("offline-rl", True),
        ("model-based-rl", True),
        ("policy-gradient", False),
    ]
    stored.refresh_from_db()
    assert [t["slug"] for t in json.loads(stored.tags_json)][0] == "offline-rl"


def test_the_paper_page_says_why_a_tag_held_back_by_the_chip_order_is_not_a_chip(client):
    area = area_create()
    pg = topic_create(parent=area, slug="policy-gradient", name="Policy Gradient")
    offline = topic_create(parent=area, slug="offline-rl", name="Offline RL")
    stored = paper_create(arxiv_id="2503.00078")
    tag_create(paper=stored, topic=pg, score=0.9, chip_order=0.3)
    tag_create(paper=stored, topic=offline, score=0.5, chip_order=0.8)

    detail = client.get("/papers/2503.00078/").content.decode()

    held = detail[detail.index('data-shown="false"') :]
    assert "Policy Gradient" in held[: held.index("</li>")]
    assert "more likely not the paper's own topic" in held[: held.index("</li>")]
    assert detail.count('data-shown="true"') == 1
