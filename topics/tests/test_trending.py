"""Home's trending topics: fine topics that rise, never areas or the merely big, never noise."""

from __future__ import annotations

import pytest

from topics.selectors import topic_list, trending_topics
from topics.tests.factories import area_create, momentum_create, topic_create

pytestmark = pytest.mark.django_db


def test_rising_leaves_first_and_neither_areas_nor_big_flat_topics_nor_noise():
    area = area_create(slug="rl", code="RL", name="Reinforcement Learning")
    broad = topic_create(parent=area, slug="policy-gradient", name="Policy Gradient")
    leaf = topic_create(parent=broad, slug="grpo", name="GRPO")
    fast_leaf = topic_create(parent=area, slug="agentic-rl", name="Agentic RL")
    noisy = topic_create(parent=area, slug="bandits", name="Bandits")
    falling = topic_create(parent=area, slug="offline-rl", name="Offline RL")
    momentum_create(topic=area, recent=900, previous=500)  # an area: never a trend
    momentum_create(topic=broad, recent=400, previous=200)  # rising but has a subtopic
    momentum_create(topic=leaf, recent=30, previous=20)
    momentum_create(topic=fast_leaf, recent=40, previous=10)
    momentum_create(topic=noisy, recent=4, previous=1)  # +300% from 1 to 4: the guard
    momentum_create(topic=falling, recent=100, previous=150)
    chosen = trending_topics(topics=topic_list(sort="momentum"), limit=12)
    assert [t.slug for t in chosen] == ["agentic-rl", "grpo", "policy-gradient"]
    assert [t.slug for t in trending_topics(topics=topic_list(), limit=1)] == ["agentic-rl"]
