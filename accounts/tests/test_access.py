"""Three people, every personal endpoint, every method, both ways in: the owner gets their
things, another user gets 404 exactly as if they did not exist, an anonymous caller gets 401."""

from __future__ import annotations

import pytest

from accounts.models import ApiToken, Follow, Hidden, ListItem, ReadingList
from accounts.tests.conftest import as_session, as_token

pytestmark = pytest.mark.django_db

# (method, path, body, owner's expected status). {later}, {item}, {token}, {topic}, {hidden} are
# filled from the owner's scene; {other_list} is a list of the caller's own.
OBJECT_ENDPOINTS = [
    ("get", "/api/v1/me/lists/{later}", None, 200),
    ("patch", "/api/v1/me/lists/{later}", {"name": "Renamed"}, 200),
    ("delete", "/api/v1/me/lists/{later}", None, 204),
    ("get", "/api/v1/me/lists/{later}/items", None, 200),
    ("post", "/api/v1/me/lists/{later}/items", {"arxiv_id": "2501.09999"}, 201),
    ("post", "/api/v1/me/lists/{later}/items/bulk", {"arxiv_ids": ["2501.09998"]}, 201),
    ("post", "/api/v1/me/lists/{later}/items/move", {"arxiv_ids": ["{item}"], "to": "{own}"}, 200),
    ("post", "/api/v1/me/lists/{later}/items/copy", {"arxiv_ids": ["{item}"], "to": "{own}"}, 200),
    ("get", "/api/v1/me/lists/{later}/items/{item}", None, 200),
    ("patch", "/api/v1/me/lists/{later}/items/{item}", {"read_state": "read"}, 200),
    ("delete", "/api/v1/me/lists/{later}/items/{item}", None, 204),
    ("get", "/api/v1/me/lists/{later}/export?format=bibtex", None, 200),
    ("post", "/api/v1/me/lists/{later}/import", {"format": "ids", "content": "2501.09997"}, 201),
    ("delete", "/api/v1/me/follows/{topic}", None, 204),
    ("delete", "/api/v1/me/hidden/{hidden}", None, 204),
    ("get", "/api/v1/me/tokens/{token}", None, 200),
    ("delete", "/api/v1/me/tokens/{token}", None, 204),
]


def _fill(value, scene, own_list_id):
    if isinstance(value, str):
        for key, replacement in {
            "{later}": scene.later.pk,
            "{item}": scene.item_id,
            "{token}": scene.token.pk,
            "{topic}": scene.topic.slug,
            "{hidden}": scene.hidden_id,
        }.items():
            value = value.replace(key, str(replacement))
        return own_list_id if value == "{own}" else value
    if isinstance(value, list):
        return [_fill(v, scene, own_list_id) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, scene, own_list_id) for k, v in value.items()}
    return value


def _snapshot():
    return (
        sorted(ReadingList.objects.values_list("id", "name", "is_default", "version")),
        sorted(ListItem.objects.values_list("reading_list_id", "arxiv_id", "note", "read_state")),
        sorted(Follow.objects.values_list("user_id", "topic_id")),
        sorted(Hidden.objects.values_list("user_id", "paper_id")),
        sorted(ApiToken.objects.values_list("id", "revoked_at")),
    )


def _labels(endpoint):
    method, path, _, _ = endpoint
    return f"{method.upper()} {path}"


@pytest.mark.parametrize("endpoint", OBJECT_ENDPOINTS, ids=_labels)
@pytest.mark.parametrize("way_in", ["session", "token"])
def test_another_user_gets_404_and_changes_nothing(endpoint, way_in, scene, other):
    method, path, body, _ = endpoint
    caller = as_session(other) if way_in == "session" else as_token(other)
    own_list = ReadingList.objects.get(user=other, is_default=True).pk
    before = _snapshot()

    response = caller.api(method, _fill(path, scene, own_list), _fill(body, scene, own_list))

    assert response.status_code == 404, response.content
    assert response.json()["code"] == "not_found"
    assert _snapshot() == before


@pytest.mark.parametrize("endpoint", OBJECT_ENDPOINTS, ids=_labels)
@pytest.mark.parametrize("way_in", ["session", "token"])
def test_the_owner_reaches_their_own_things(endpoint, way_in, scene, owner):
    method, path, body, expected = endpoint
    caller = as_session(owner) if way_in == "session" else as_token(owner)
    if way_in == "token" and "/tokens/" in path:
        # A token sees and revokes only itself (the extension's "disconnect").
        scene.token = caller.token
    own_list = scene.default_list.pk

    response = caller.api(method, _fill(path, scene, own_list), _fill(body, scene, own_list))

    assert response.status_code == expected, response.content


@pytest.mark.parametrize("endpoint", OBJECT_ENDPOINTS, ids=_labels)
def test_anonymous_gets_401_and_changes_nothing(endpoint, scene, anonymous):
    method, path, body, _ = endpoint
    before = _snapshot()

    response = anonymous.api(method, _fill(path, scene, 1), _fill(body, scene, 1))

    assert response.status_code == 401, response.content
    assert response.json()["code"] == "not_authenticated"
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert _snapshot() == before


COLLECTION_ENDPOINTS = [
    ("get", "/api/v1/me"),
    ("delete", "/api/v1/me"),
    ("get", "/api/v1/me/export"),
    ("get", "/api/v1/me/follows"),
    ("post", "/api/v1/me/follows"),
    ("get", "/api/v1/me/feed"),
    ("get", "/api/v1/me/hidden"),
    ("post", "/api/v1/me/hidden"),
    ("get", "/api/v1/me/lists"),
    ("post", "/api/v1/me/lists"),
    ("get", "/api/v1/me/feedback"),
    ("post", "/api/v1/me/feedback"),
    ("get", "/api/v1/me/tokens"),
    ("post", "/api/v1/me/tokens"),
    ("get", "/api/v1/me/digest"),
    ("patch", "/api/v1/me/digest"),
    ("get", "/api/v1/me/digest/preview"),
    ("get", "/api/v1/me/alerts"),
]


@pytest.mark.parametrize(("method", "path"), COLLECTION_ENDPOINTS)
def test_anonymous_gets_401_on_every_collection(method, path, anonymous):
    response = anonymous.api(method, path, {} if method != "get" else None)
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


@pytest.mark.parametrize("way_in", ["session", "token"])
def test_another_users_collections_show_only_their_own_things(way_in, scene, other):
    caller = as_session(other) if way_in == "session" else as_token(other)

    lists = caller.api("get", "/api/v1/me/lists").json()["results"]
    follows = caller.api("get", "/api/v1/me/follows").json()["results"]
    hidden = caller.api("get", "/api/v1/me/hidden").json()["results"]
    exported = caller.api("get", "/api/v1/me/export").json()

    assert [lst["name"] for lst in lists] == ["Reading list"]
    assert scene.later.pk not in [lst["id"] for lst in lists]
    assert follows == []
    assert hidden == []
    assert exported["user"]["username"] == "other"
    assert [lst["name"] for lst in exported["lists"]] == ["Reading list"]
    assert "owner's laptop" not in str(exported)


def test_moving_into_another_users_list_is_404_and_moves_nothing(scene, owner, other):
    caller = as_session(owner)
    others_list = ReadingList.objects.get(user=other, is_default=True)
    before = _snapshot()

    response = caller.api(
        "post",
        f"/api/v1/me/lists/{scene.later.pk}/items/move",
        {"arxiv_ids": [scene.item_id], "to": others_list.pk},
    )

    assert response.status_code == 404
    assert _snapshot() == before


PAGES = [
    ("get", "/lists/{later}/"),
    ("post", "/lists/{later}/"),
    ("get", "/lists/{later}/export/?format=bibtex"),
    ("post", "/lists/{later}/import/"),
    ("post", "/lists/{later}/items/{item}/"),
]


@pytest.mark.parametrize(("method", "path"), PAGES)
def test_another_users_list_pages_are_404(method, path, scene, other):
    caller = as_session(other)
    before = _snapshot()
    data = {"action": "remove", "csrfmiddlewaretoken": caller.client.cookies["csrftoken"].value}
    if path.endswith("/import/"):
        data.update({"import-format": "ids", "import-text": "2501.00003"})
    url = _fill(path, scene, None)

    response = (
        getattr(caller.client, method)(url, data) if method == "post" else caller.client.get(url)
    )

    assert response.status_code == 404
    assert _snapshot() == before


@pytest.mark.parametrize(
    "path", ["/feed/", "/lists/", "/account/", "/lists/1/", "/extension/connect"]
)
def test_anonymous_pages_send_people_to_sign_in(path, anonymous):
    response = anonymous.client.get(path)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")
