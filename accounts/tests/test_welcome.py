"""The topic picker after sign-up: areas with their rising topics, a search, one button."""

from __future__ import annotations

import pytest

from accounts.models import Follow
from accounts.tests.factories import user_create
from topics.tests.factories import area_create, momentum_create, topic_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_in(client):
    user = user_create("newcomer")
    client.force_login(user)
    return user


@pytest.fixture
def taxonomy():
    rl = area_create(slug="rl", code="RL", name="Reinforcement Learning")
    cv = area_create(slug="cv", code="CV", name="Computer Vision", position=1)
    agentic = topic_create(parent=rl, slug="agentic-rl", name="Agentic RL")
    quiet = topic_create(parent=rl, slug="bandits", name="Bandits")
    diffusion = topic_create(parent=cv, slug="video-diffusion", name="Video Diffusion")
    momentum_create(topic=agentic, recent=40, previous=10)
    momentum_create(topic=quiet, recent=3, previous=1)
    momentum_create(topic=diffusion, recent=30, previous=12)
    return {"agentic": agentic, "diffusion": diffusion, "quiet": quiet}


def test_it_offers_each_area_with_its_rising_topics(client, signed_in, taxonomy):
    html = client.get("/welcome/").content.decode()
    assert "RL: Reinforcement Learning" in html
    assert "CV: Computer Vision" in html
    assert 'value="agentic-rl"' in html
    assert "40 papers in 4 weeks, rising" in html
    assert 'value="video-diffusion"' in html
    assert 'value="bandits"' in html  # a quiet area still offers what it has
    assert "3 papers in 4 weeks</span>" in html


def test_searching_finds_topics_by_name(client, signed_in, taxonomy):
    html = client.get("/welcome/", {"q": "diffusion"}).content.decode()
    results = html.split("Topics matching")[1].split("</fieldset>")[0]
    assert 'value="video-diffusion"' in results
    assert 'value="agentic-rl"' not in results


def test_ticking_topics_follows_them_and_opens_the_feed(client, signed_in, taxonomy):
    response = client.post("/welcome/", {"topic": ["agentic-rl", "video-diffusion", "nope"]})
    assert response.status_code == 302
    assert response["Location"] == "/feed/"
    assert set(Follow.objects.values_list("topic__slug", flat=True)) == {
        "agentic-rl",
        "video-diffusion",
    }
    feed = client.get("/feed/").content.decode()
    assert "Following 2 topics" in feed


def test_nothing_ticked_says_so_and_anonymous_people_sign_in_first(client, taxonomy):
    assert client.get("/welcome/")["Location"].startswith("/accounts/login/")
    client.force_login(user_create("someone"))
    response = client.post("/welcome/", {}, follow=True)
    assert "Tick at least one topic" in response.content.decode()


def test_searching_keeps_what_is_ticked(client, signed_in, taxonomy):
    html = client.post(
        "/welcome/", {"find": "1", "q": "diffusion", "topic": ["agentic-rl"]}
    ).content.decode()
    assert 'value="agentic-rl" id="pick-agentic-rl" checked>' in html
    assert 'value="video-diffusion" id="pick-video-diffusion-q">' in html
    assert not Follow.objects.exists()  # searching follows nothing yet
