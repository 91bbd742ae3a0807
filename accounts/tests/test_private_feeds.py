"""Private Atom feeds behind secret URLs (the personal feed and one per reading list): what a
feed reader (feedparser) sees, and that regenerating or turning a feed off stops the old URL."""

from __future__ import annotations

import re

import feedparser
import pytest
from django.test import Client

from accounts.models import PrivateFeed
from accounts.services import follows as follow_services
from accounts.services import lists as list_services
from accounts.services.private_feeds import private_feed_path, private_feeds_ensure
from accounts.services.signed_links import unsubscribe_token
from accounts.tests.factories import user_create
from papers.tests.factories import paper_create
from topics.tests.factories import topic_create

pytestmark = pytest.mark.django_db
FEED_URL = re.compile(r'value="(http://testserver/feed/private/[^"]+)"')


@pytest.fixture
def topic():
    return topic_create("offline-rl", name="Offline RL")


def feed_urls(client: Client) -> list[str]:
    return FEED_URL.findall(client.get("/account/").content.decode())


def read(url: str):
    """Fetch like a feed reader: no session, no cookies."""
    response = Client().get(url.removeprefix("http://testserver"))
    return response, feedparser.parse(response.content)


def test_the_personal_feed_is_a_secret_url_that_feed_readers_parse(owner_session, topic):
    owner = owner_session.user
    follow_services.follow_create(user=owner, topic_slug=topic.slug)
    papers = [paper_create(topics=[topic]) for _ in range(3)]
    gone = paper_create(topics=[topic], withdrawn=True, title="A paper its authors withdrew")
    hidden = paper_create(topics=[topic])
    follow_services.hidden_create(user=owner, arxiv_id=hidden.arxiv_id)

    personal, *lists = feed_urls(owner_session.client)
    response, parsed = read(personal)

    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    assert response["Cache-Control"] == "private, max-age=300"
    assert response["X-Robots-Tag"] == "noindex, nofollow"
    assert not parsed.bozo, parsed.get("bozo_exception")
    assert parsed.version == "atom10"
    assert parsed.feed.title == "owner's feed · Paperscope"
    ids = {entry.id for entry in parsed.entries}
    assert ids == {p.abs_url for p in [*papers, gone]}
    assert "[Withdrawn] A paper its authors withdrew" in {e.title for e in parsed.entries}
    assert all(entry.link.startswith("http://testserver/papers/") for entry in parsed.entries)
    assert len(lists) == 1  # the default list has its own feed too
    assert PrivateFeed.objects.get(user=owner, reading_list=None).last_read_at is not None


def test_a_list_feed_has_the_saved_papers_with_notes_and_news(owner, topic):
    later = list_services.reading_list_create(user=owner, name="Later")
    old = paper_create(title="An older version", version=1)
    list_services.list_item_save(
        user=owner, list_id=later.pk, arxiv_id=old.arxiv_id, note="re-read"
    )
    old.version, old.journal_ref = 3, "JMLR 26 (2025)"
    old.save()
    feed = next(f for f in private_feeds_ensure(user=owner) if f.reading_list_id == later.pk)

    response, parsed = read(private_feed_path(feed))

    assert response.status_code == 200
    assert not parsed.bozo
    assert parsed.feed.title == "Later · owner · Paperscope"
    [entry] = parsed.entries
    assert entry.title == "An older version"
    assert "v3 since you saved it (you saved v1)" in entry.summary
    assert "Published in JMLR 26 (2025)" in entry.summary
    assert "Your note: re-read" in entry.summary


def test_regenerating_or_turning_off_stops_the_old_url(owner_session):
    client = owner_session.client
    personal = feed_urls(client)[0]
    feed = PrivateFeed.objects.get(user=owner_session.user, reading_list=None)

    client.post(f"/account/feeds/{feed.pk}/", {"action": "regenerate"})
    new = feed_urls(client)[0]
    assert new != personal
    assert read(personal)[0].status_code == 404
    assert read(new)[0].status_code == 200

    client.post(f"/account/feeds/{feed.pk}/", {"action": "revoke"})
    assert read(new)[0].status_code == 404
    assert "Turn on with a new address" in client.get("/account/").content.decode()

    client.post(f"/account/feeds/{feed.pk}/", {"action": "regenerate"})
    again = feed_urls(client)[0]
    assert again not in (personal, new)
    assert read(again)[0].status_code == 200


def test_nobody_else_can_manage_or_guess_a_feed(owner, other):
    feed = private_feeds_ensure(user=owner)[0]
    stranger = Client()
    stranger.force_login(other)

    assert stranger.post(f"/account/feeds/{feed.pk}/", {"action": "revoke"}).status_code == 404
    assert PrivateFeed.objects.get(pk=feed.pk).active
    token = private_feed_path(feed).split("/")[-2]
    pk_and_nonce, signature = token.rsplit(":", 1)
    for guess in (
        f"{feed.pk}.{'0' * 24}:{signature}",  # right id, wrong nonce
        f"{pk_and_nonce}:{'A' * len(signature)}",  # right value, forged signature
        unsubscribe_token(user_id=owner.pk),  # signed by us, but for something else
    ):
        assert Client().get(f"/feed/private/{guess}/").status_code == 404
    owner.is_active = False
    owner.save()
    assert read(private_feed_path(feed))[0].status_code == 404


def test_the_list_page_links_its_private_feed(owner_session):
    owner = owner_session.user
    list_id = list_services.reading_list_default(user=owner).pk
    page = owner_session.client.get(f"/lists/{list_id}/").content.decode()

    [url] = re.findall(
        r'<link rel="alternate" type="application/atom\+xml"[^>]*href="([^"]+)"', page
    )
    assert read(url)[0].status_code == 200

    other_user = user_create("third")
    assert feed_urls(Client()) == []  # signed out: the account page redirects to sign-in
    assert other_user.private_feeds.count() == 0
