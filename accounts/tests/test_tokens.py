"""API tokens: hashed at rest, Bearer auth, scopes, revocation that bites at once, last-used,
session-only management, and the create_token command."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from accounts.models import ApiToken, Follow, ListItem
from accounts.services.tokens import token_hash
from accounts.tests.conftest import as_session, as_token, token_client
from accounts.tests.factories import api_token
from topics.tests.factories import topic_create

pytestmark = pytest.mark.django_db


def test_it_stores_only_a_hash_and_a_short_prefix(owner):
    token, raw = api_token(owner)
    stored = ApiToken.objects.get(pk=token.pk)
    assert raw.startswith("ps_")
    assert len(raw) > 40
    assert stored.key_hash == token_hash(raw) != raw
    assert raw.startswith(stored.prefix)
    assert len(stored.prefix) < 12
    assert raw not in str(list(ApiToken.objects.values()))


def test_a_bearer_token_authenticates_as_its_user(owner_token):
    response = owner_token.api("get", "/api/v1/me")
    assert response.status_code == 200
    assert response.json()["username"] == "owner"
    assert response.json()["scopes"] == ["read", "lists:write", "follows:write", "feedback:write"]


@pytest.mark.parametrize(
    ("header", "code"),
    [
        ("Bearer ps_not-a-real-token", "invalid_token"),
        ("Bearer", "invalid_token"),
        ("Bearer two parts", "invalid_token"),
    ],
)
def test_a_bad_token_is_401(header, code, owner, anonymous):
    response = anonymous.client.get("/api/v1/me", headers={"Authorization": header})
    assert response.status_code == 401
    assert response.json()["code"] == code
    assert response["WWW-Authenticate"] == 'Bearer realm="paperscope"'


def test_a_missing_token_is_401(anonymous):
    response = anonymous.client.get("/api/v1/me")
    assert response.status_code == 401
    assert response.json() == {
        "code": "not_authenticated",
        "detail": "Authentication credentials were not provided.",
    }


def test_a_revoked_token_is_refused_at_once(owner, owner_session):
    token, raw = api_token(owner)
    client = token_client(raw)
    assert client.get("/api/v1/me").status_code == 200

    assert owner_session.api("delete", f"/api/v1/me/tokens/{token.pk}").status_code == 204
    response = client.get("/api/v1/me")

    assert response.status_code == 401
    assert response.json()["code"] == "token_revoked"
    assert (
        client.post("/api/v1/me/lists", {"name": "x"}, content_type="application/json").status_code
        == 401
    )


def test_a_token_can_revoke_itself_to_disconnect(owner_token):
    token = owner_token.token
    assert owner_token.api("delete", f"/api/v1/me/tokens/{token.pk}").status_code == 204
    assert owner_token.api("get", "/api/v1/me").status_code == 401


def test_a_token_describes_and_revokes_itself_without_knowing_its_id(owner_token, owner_session):
    body = owner_token.api("get", "/api/v1/me/tokens/current").json()
    assert body["id"] == owner_token.token.pk
    assert body["scopes"] == list(ApiToken.Scope.values)
    assert owner_session.api("get", "/api/v1/me/tokens/current").status_code == 404
    assert owner_token.api("delete", "/api/v1/me/tokens/current").status_code == 204
    assert owner_token.api("get", "/api/v1/me").status_code == 401


def test_a_token_cannot_see_its_users_other_tokens(owner, owner_token):
    sibling, _ = api_token(owner, name="sibling")
    assert owner_token.api("get", f"/api/v1/me/tokens/{sibling.pk}").status_code == 404
    assert owner_token.api("delete", f"/api/v1/me/tokens/{sibling.pk}").status_code == 404
    assert ApiToken.objects.get(pk=sibling.pk).revoked_at is None


def test_a_disabled_account_cannot_use_its_tokens(owner, owner_token):
    owner.is_active = False
    owner.save()
    response = owner_token.api("get", "/api/v1/me")
    assert response.status_code == 401
    assert response.json()["code"] == "user_inactive"


def test_reads_need_the_read_scope(owner):
    caller = as_token(owner, scopes=["lists:write"])
    response = caller.api("get", "/api/v1/me/lists")
    assert response.status_code == 403
    assert response.json()["code"] == "insufficient_scope"


@pytest.mark.parametrize(
    ("scope", "method", "path", "body"),
    [
        ("lists:write", "post", "/api/v1/me/lists", {"name": "New"}),
        ("lists:write", "post", "/api/v1/me/lists/{default}/items", {"arxiv_id": "2501.00001"}),
        ("lists:write", "post", "/api/v1/me/lists/{default}/import", {"content": "2501.00001"}),
        ("follows:write", "post", "/api/v1/me/follows", {"topic": "offline-rl"}),
        ("follows:write", "post", "/api/v1/me/hidden", {"arxiv_id": "2501.00001"}),
        (
            "feedback:write",
            "post",
            "/api/v1/me/feedback",
            {"arxiv_id": "2501.00001", "topic": "x", "vote": "add"},
        ),
    ],
)
def test_writes_need_their_scope_and_write_nothing_without_it(scope, method, path, body, owner):
    from accounts.selectors import default_list_id

    topic_create("offline-rl")
    others = [s for s in ApiToken.Scope.values if s != scope]
    caller = as_token(owner, scopes=others)
    url = path.replace("{default}", str(default_list_id(user=owner)))
    before = (ListItem.objects.count(), Follow.objects.count())

    response = caller.api(method, url, body)

    assert response.status_code == 403
    assert response.json()["code"] == "insufficient_scope"
    assert scope in response.json()["detail"]
    assert (ListItem.objects.count(), Follow.objects.count()) == before
    allowed = as_token(owner, scopes=[scope])
    assert allowed.api(method, url, body).status_code in (200, 201, 400)


@pytest.mark.parametrize(
    ("method", "path"),
    [("get", "/api/v1/me/tokens"), ("post", "/api/v1/me/tokens"), ("delete", "/api/v1/me")],
)
def test_token_management_and_deletion_are_for_sessions_only(method, path, owner_token):
    response = owner_token.api(method, path, {"name": "x", "password": "y"})
    assert response.status_code == 403
    assert response.json()["code"] == "session_required"


def test_a_session_creates_a_token_shown_once(owner_session):
    response = owner_session.api(
        "post", "/api/v1/me/tokens", {"name": "script", "scopes": ["read", "lists:write"]}
    )
    assert response.status_code == 201
    body = response.json()
    assert body["token"].startswith("ps_")
    assert body["scopes"] == ["read", "lists:write"]
    assert token_client(body["token"]).get("/api/v1/me").status_code == 200
    listed = owner_session.api("get", "/api/v1/me/tokens").json()["results"]
    assert [t["name"] for t in listed] == ["script"]
    assert "token" not in listed[0]
    assert body["token"] not in str(listed)


def test_unknown_scopes_are_a_400(owner_session):
    response = owner_session.api("post", "/api/v1/me/tokens", {"name": "x", "scopes": ["admin"]})
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_scope"
    assert ApiToken.objects.count() == 0


def test_last_used_is_recorded_at_most_once_a_minute(owner_token):
    token = owner_token.token
    assert token.last_used_at is None
    owner_token.api("get", "/api/v1/me")
    first = ApiToken.objects.get(pk=token.pk).last_used_at
    assert first is not None
    owner_token.api("get", "/api/v1/me")
    assert ApiToken.objects.get(pk=token.pk).last_used_at == first

    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now() - timedelta(minutes=5))
    owner_token.api("get", "/api/v1/me")
    assert ApiToken.objects.get(pk=token.pk).last_used_at > first


def test_create_token_prints_a_working_token(owner):
    out, err = io.StringIO(), io.StringIO()
    call_command(
        "create_token", "owner", "--name", "cron", "--scopes", "read", "lists:write",
        stdout=out, stderr=err,
    )  # fmt: skip
    raw = out.getvalue().strip()
    token = ApiToken.objects.get(name="cron")
    assert token.scopes == ["read", "lists:write"]
    assert token_client(raw).get("/api/v1/me").status_code == 200
    assert raw not in err.getvalue()


def test_create_token_defaults_to_read_and_accepts_all(owner):
    out = io.StringIO()
    call_command("create_token", "owner", "--name", "ro", stdout=out, stderr=io.StringIO())
    call_command(
        "create_token", "owner", "--name", "rw", "--scopes", "all", stdout=out, stderr=io.StringIO()
    )
    assert ApiToken.objects.get(name="ro").scopes == ["read"]
    assert ApiToken.objects.get(name="rw").scopes == list(ApiToken.Scope.values)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nobody", "--name", "x"], "No user"),
        (["owner", "--name", "x", "--scopes", "root"], "Scopes must be"),
        (["owner", "--name", " "], "needs a name"),
    ],
)
def test_create_token_explains_bad_input(args, message, owner):
    with pytest.raises(CommandError, match=message):
        call_command("create_token", *args, stdout=io.StringIO(), stderr=io.StringIO())
    assert ApiToken.objects.count() == 0


def test_the_account_page_creates_and_revokes_tokens(owner):
    caller = as_session(owner)
    csrf = caller.client.cookies["csrftoken"].value
    response = caller.client.post(
        "/account/tokens/", {"name": "notebook", "scopes": ["read"], "csrfmiddlewaretoken": csrf}
    )
    assert response.status_code == 200
    token = ApiToken.objects.get(name="notebook")
    secret = response.context["new_secret"]
    assert secret.encode() in response.content
    assert response["Cache-Control"] == "no-store"
    assert token_client(secret).get("/api/v1/me").status_code == 200

    page = caller.client.get("/account/")
    assert secret.encode() not in page.content  # shown once
    assert b"notebook" in page.content

    response = caller.client.post(
        f"/account/tokens/{token.pk}/revoke/", {"csrfmiddlewaretoken": csrf}
    )
    assert response.status_code == 302
    assert token_client(secret).get("/api/v1/me").status_code == 401
