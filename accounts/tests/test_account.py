"""The account as a whole: /me, everything as JSON, and deletion with the password."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model

from accounts.models import ApiToken, Follow, Library, ListItem, ReadingList
from accounts.tests.conftest import token_client
from accounts.tests.factories import PASSWORD, api_token

pytestmark = pytest.mark.django_db


def test_me_answers_what_the_extension_reads(me):
    body = me.api("get", "/api/v1/me").json()
    assert body["username"] == "owner"
    assert isinstance(body["default_list"], int)


def test_the_export_holds_everything_about_the_person(me, scene):
    response = me.api("get", "/api/v1/me/export")
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="paperscope-owner.json"'
    data = json.loads(response.content)
    assert data["user"]["username"] == "owner"
    assert data["user"]["email"] == "owner@example.org"
    assert [f["topic"] for f in data["follows"]] == ["offline-rl"]
    assert [h["arxiv_id"] for h in data["hidden"]] == ["2501.00002"]
    assert data["digest"] == {
        "frequency": "daily",
        "weekday": "friday",
        "muted": [],
        "last_sent": None,
    }
    lists = {lst["name"]: lst for lst in data["lists"]}
    assert set(lists) == {"Reading list", "Later"}
    assert lists["Later"]["items"][0]["note"] == "owner's note"
    assert "owner's laptop" in [t["name"] for t in data["tokens"]]
    # No secrets: neither clear tokens nor their hashes.
    assert all("key_hash" not in t for t in data["tokens"])
    assert ApiToken.objects.first().key_hash not in response.content.decode()


def test_deleting_needs_the_right_password_and_keeps_everything_otherwise(owner_session, scene):
    response = owner_session.api("delete", "/api/v1/me", {"password": "wrong"})
    assert response.status_code == 400
    assert response.json()["code"] == "wrong_password"
    assert get_user_model().objects.filter(username="owner").exists()
    assert ListItem.objects.filter(reading_list=scene.later).count() == 1


def test_deleting_removes_the_data_and_stops_the_tokens(owner, owner_session, other, scene):
    _, raw = api_token(owner)
    assert token_client(raw).get("/api/v1/me").status_code == 200

    response = owner_session.api("delete", "/api/v1/me", {"password": PASSWORD})

    assert response.status_code == 204
    assert not get_user_model().objects.filter(username="owner").exists()
    assert not ReadingList.objects.filter(user_id=owner.pk).exists()
    assert not Follow.objects.filter(user_id=owner.pk).exists()
    assert not ApiToken.objects.filter(user_id=owner.pk).exists()
    assert not Library.objects.filter(user_id=owner.pk).exists()
    assert token_client(raw).get("/api/v1/me").status_code == 401
    assert owner_session.api("get", "/api/v1/me").status_code == 401  # signed out
    assert ReadingList.objects.filter(user=other).exists()  # nobody else's data goes


def test_the_delete_page_asks_for_the_password(owner):
    from accounts.tests.conftest import as_session

    caller = as_session(owner)
    csrf = caller.client.cookies["csrftoken"].value
    page = caller.client.get("/account/delete/")
    assert b'type="password"' in page.content
    wrong = caller.client.post(
        "/account/delete/", {"password": "nope", "csrfmiddlewaretoken": csrf}
    )
    assert wrong.status_code == 200
    assert b"password is not right" in wrong.content
    done = caller.client.post(
        "/account/delete/", {"password": PASSWORD, "csrfmiddlewaretoken": csrf}
    )
    assert done.status_code == 302
    assert not get_user_model().objects.filter(username="owner").exists()
