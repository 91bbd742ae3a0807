"""Digest settings on the account page and at /api/v1/me/digest, and the two links in every
digest that work without a password: one-click save (signed, expiring) and unsubscribe."""

from __future__ import annotations

import time

import pytest
from django.core import mail, signing
from django.test import Client
from django.utils import timezone

from accounts.models import DigestSettings, Follow, ListItem
from accounts.services.signed_links import (
    SAVE_SALT,
    save_link_token,
    unsubscribe_token,
)
from accounts.tests.conftest import as_token
from accounts.tests.digests_support import arrived, reader, send_digests, text_of
from topics.tests.factories import topic_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def topics():
    return [
        topic_create("offline-rl", name="Offline RL"),
        topic_create("bandits", name="Bandits"),
    ]


def test_the_api_shows_the_defaults(me, topics):
    me.api("post", "/api/v1/me/follows", {"topic": "bandits"})

    body = me.api("get", "/api/v1/me/digest").json()

    assert body["frequency"] == "daily"
    assert body["weekday"] == "friday"
    assert body["muted"] == []
    assert body["topics"] == [{"slug": "bandits", "name": "Bandits", "muted": False}]
    assert body["email"] == "owner@example.org"
    assert body["paused"] is False
    assert body["last_sent"] is None


def test_the_api_changes_frequency_weekday_and_muted_topics(me, topics):
    for topic in topics:
        me.api("post", "/api/v1/me/follows", {"topic": topic.slug})

    response = me.api(
        "patch",
        "/api/v1/me/digest",
        {"frequency": "weekly", "weekday": "Tuesday", "muted": ["bandits"]},
    )

    assert response.status_code == 200
    body = response.json()
    assert (body["frequency"], body["weekday"], body["muted"]) == ("weekly", "tuesday", ["bandits"])
    assert Follow.objects.get(topic__slug="bandits").digest_muted
    unmuted = me.api("put", "/api/v1/me/digest", {"muted": []}).json()
    assert unmuted["muted"] == []
    assert unmuted["frequency"] == "weekly"  # left out, so kept


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"frequency": "hourly"}, None),
        ({"weekday": "someday"}, "invalid_weekday"),
        ({"muted": ["offline-rl"]}, "not_followed"),
        ({"muted": "bandits"}, None),
    ],
)
def test_bad_digest_settings_are_a_clear_400(me, topics, body, code):
    response = me.api("patch", "/api/v1/me/digest", body)

    assert response.status_code == 400
    if code:
        assert response.json()["code"] == code
    assert DigestSettings.objects.get(user=me.user).frequency == "daily"


def test_a_token_needs_the_follows_scope_to_change_the_digest(owner, topics):
    reader_only = as_token(owner, scopes=["read"])

    assert reader_only.api("get", "/api/v1/me/digest").status_code == 200
    response = reader_only.api("patch", "/api/v1/me/digest", {"frequency": "off"})
    assert response.status_code == 403
    assert DigestSettings.objects.get(user=owner).frequency == "daily"


def test_anonymous_gets_401(anonymous):
    assert anonymous.api("get", "/api/v1/me/digest").status_code == 401
    assert anonymous.api("get", "/api/v1/me/alerts").status_code == 401


def test_turning_digests_back_on_starts_from_now(owner, topics):
    client = Client()
    client.force_login(owner)
    client.patch("/api/v1/me/digest", {"frequency": "off"}, content_type="application/json")
    before = DigestSettings.objects.get(user=owner).covered_until

    client.patch("/api/v1/me/digest", {"frequency": "daily"}, content_type="application/json")

    assert DigestSettings.objects.get(user=owner).covered_until > before


def test_the_account_page_form_saves_the_settings(owner_session, topics):
    Follow.objects.create(user=owner_session.user, topic=topics[0])
    page = owner_session.client.get("/account/").content.decode()
    assert 'id="digest"' in page
    assert "Leave these topics out of the digest" in page

    response = owner_session.client.post(
        "/account/digest/", {"frequency": "weekly", "weekday": "0", "muted": ["offline-rl"]}
    )

    assert response.status_code == 302
    prefs = DigestSettings.objects.get(user=owner_session.user)
    assert (prefs.frequency, prefs.weekday) == ("weekly", 0)
    assert Follow.objects.get(user=owner_session.user).digest_muted
    bad = owner_session.client.post("/account/digest/", {"frequency": "hourly", "weekday": "0"})
    assert bad.status_code == 400


def test_the_account_page_says_when_the_address_is_missing_or_paused(owner_session):
    owner = owner_session.user
    owner.email = ""
    owner.save()
    assert "no email address" in owner_session.client.get("/account/").content.decode()

    owner.email = "gone@refused.example"
    owner.save()
    DigestSettings.objects.filter(user=owner).update(
        bounced_email="gone@refused.example", bounced_at=timezone.now(), bounce_reason="550 no"
    )
    assert "digests are paused" in owner_session.client.get("/account/").content.decode()


# --- one-click links ---------------------------------------------------------------------------


def test_the_save_link_in_a_digest_saves_without_a_password(flaky, topics):
    ada = reader("ada", topics[0])
    paper = arrived(topics=[topics[0]], title="Batch-constrained Q-learning")
    send_digests()
    link = next(
        line.split("Save:", 1)[1].strip()
        for line in text_of(mail.outbox[0]).splitlines()
        if "Save:" in line
    )
    path = link.removeprefix("http://127.0.0.1:8000")

    anonymous = Client()
    first = anonymous.get(path)
    again = anonymous.get(path)

    assert first.status_code == 200
    assert "Batch-constrained Q-learning" in first.content.decode()
    assert first["Referrer-Policy"] == "no-referrer"
    assert "Already saved" in again.content.decode()
    item = ListItem.objects.get(reading_list__user=ada)
    assert item.arxiv_id == paper.arxiv_id
    assert item.reading_list.is_default


def test_a_save_link_expires_and_cannot_be_forged(owner, monkeypatch, settings):
    old = time.time() - (settings.DIGEST_SAVE_LINK_DAYS + 1) * 24 * 3600
    with monkeypatch.context() as patch:
        patch.setattr(signing.time, "time", lambda: old)
        expired = save_link_token(user_id=owner.pk, arxiv_id="2501.00001")
    forged = signing.TimestampSigner(salt="another salt").sign_object(
        {"u": owner.pk, "a": "2501.00001"}
    )
    good = save_link_token(user_id=owner.pk, arxiv_id="2501.00001")
    client = Client()

    assert client.get(f"/account/digest/save/{expired}/").status_code == 410
    assert client.get(f"/account/digest/save/{forged}/").status_code == 400
    assert client.get(f"/account/digest/save/{good[:-2]}xx/").status_code == 400
    # An unsubscribe token is signed with another salt: it is no save link.
    assert (
        client.get(f"/account/digest/save/{unsubscribe_token(user_id=owner.pk)}/").status_code
        == 400
    )
    assert not ListItem.objects.exists()
    assert signing.TimestampSigner(salt=SAVE_SALT).unsign_object(good)["a"] == "2501.00001"


def test_unsubscribe_asks_first_then_one_click_turns_the_digest_off(flaky, topics):
    ada = reader("ada", topics[0])
    arrived(topics=[topics[0]])
    send_digests()
    url = mail.outbox[0].message()["List-Unsubscribe"].strip("<>")
    path = url.removeprefix("http://127.0.0.1:8000")
    client = Client(enforce_csrf_checks=True)

    confirm = client.get(path)
    assert confirm.status_code == 200
    assert "Stop the email digest for ada?" in confirm.content.decode()
    assert DigestSettings.objects.get(user=ada).frequency == "daily"

    # RFC 8058: the mail client POSTs List-Unsubscribe=One-Click, without cookies or CSRF token.
    response = client.post(path, {"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200
    assert DigestSettings.objects.get(user=ada).frequency == "off"

    arrived(topics=[topics[0]])
    send_digests()
    assert len(mail.outbox) == 1


def test_unsubscribe_from_the_page_button_and_a_bad_link(owner):
    client = Client(enforce_csrf_checks=True)
    token = unsubscribe_token(user_id=owner.pk)

    page = client.post(f"/account/digest/unsubscribe/{token}/")

    assert "gets no more digests" in page.content.decode()
    assert DigestSettings.objects.get(user=owner).frequency == "off"
    assert client.get(f"/account/digest/unsubscribe/{owner.pk}:nope/").status_code == 400
