"""Zotero-style sync: one version per user, bumped by every change; ?since=<version> returns what
changed and what was deleted; If-Unmodified-Since-Version guards writes (412; 400 if malformed)."""

from __future__ import annotations

import pytest

from accounts.models import Library, ListItem, ReadingList
from accounts.selectors import library_version

pytestmark = pytest.mark.django_db


def _default(user) -> int:
    return ReadingList.objects.get(user=user, is_default=True).pk


def _state():
    return (
        list(Library.objects.order_by("id").values_list("version", flat=True)),
        sorted(ListItem.objects.values_list("arxiv_id", "note", "read_state", "version")),
        sorted(ReadingList.objects.values_list("name", "version")),
    )


def test_every_change_bumps_the_library_version_and_stamps_what_changed(me):
    list_id = _default(me.user)
    start = library_version(user=me.user)

    created = me.api("post", f"/api/v1/me/lists/{list_id}/items", {"arxiv_id": "2501.00001"})
    assert created["Last-Modified-Version"] == str(start + 1)
    assert created.json()["version"] == start + 1

    patched = me.api("patch", f"/api/v1/me/lists/{list_id}/items/2501.00001", {"note": "n"})
    assert patched.json()["version"] == start + 2 == library_version(user=me.user)

    # A write that changes nothing does not take a version.
    again = me.api("post", f"/api/v1/me/lists/{list_id}/items", {"arxiv_id": "2501.00001"})
    assert again.status_code == 200
    assert library_version(user=me.user) == start + 2


def test_since_returns_changed_items_and_deleted_keys(me):
    list_id = _default(me.user)
    for n in (1, 2, 3):
        me.api("post", f"/api/v1/me/lists/{list_id}/items", {"arxiv_id": f"2501.0000{n}"})
    synced = library_version(user=me.user)

    me.api("patch", f"/api/v1/me/lists/{list_id}/items/2501.00002", {"read_state": "read"})
    me.api("delete", f"/api/v1/me/lists/{list_id}/items/2501.00003")
    me.api("post", f"/api/v1/me/lists/{list_id}/items", {"arxiv_id": "2501.00004"})

    body = me.api("get", f"/api/v1/me/lists/{list_id}/items?since={synced}").json()
    assert sorted(i["arxiv_id"] for i in body["results"]) == ["2501.00002", "2501.00004"]
    assert body["deleted"] == ["2501.00003"]
    assert body["version"] == library_version(user=me.user)

    nothing = me.api("get", f"/api/v1/me/lists/{list_id}/items?since={body['version']}").json()
    assert nothing["results"] == []
    assert nothing["deleted"] == []


def test_a_paper_saved_again_after_deletion_is_not_reported_deleted(me):
    list_id = _default(me.user)
    me.api("post", f"/api/v1/me/lists/{list_id}/items", {"arxiv_id": "2501.00001"})
    synced = library_version(user=me.user)
    me.api("delete", f"/api/v1/me/lists/{list_id}/items/2501.00001")
    me.api("post", f"/api/v1/me/lists/{list_id}/items", {"arxiv_id": "2501.00001"})

    body = me.api("get", f"/api/v1/me/lists/{list_id}/items?since={synced}").json()
    assert [i["arxiv_id"] for i in body["results"]] == ["2501.00001"]
    assert body["deleted"] == []


def test_moving_shows_as_a_deletion_in_one_list_and_a_change_in_the_other(me):
    source = _default(me.user)
    target = me.api("post", "/api/v1/me/lists", {"name": "Done"}).json()["id"]
    me.api("post", f"/api/v1/me/lists/{source}/items", {"arxiv_id": "2501.00001"})
    synced = library_version(user=me.user)
    me.api(
        "post", f"/api/v1/me/lists/{source}/items/move", {"arxiv_ids": ["2501.00001"], "to": target}
    )

    assert me.api("get", f"/api/v1/me/lists/{source}/items?since={synced}").json()["deleted"] == [
        "2501.00001"
    ]
    changed = me.api("get", f"/api/v1/me/lists/{target}/items?since={synced}").json()["results"]
    assert [i["arxiv_id"] for i in changed] == ["2501.00001"]


def test_lists_since_returns_changed_lists_and_deleted_ids(me):
    keep = me.api("post", "/api/v1/me/lists", {"name": "Keep"}).json()["id"]
    drop = me.api("post", "/api/v1/me/lists", {"name": "Drop"}).json()["id"]
    synced = library_version(user=me.user)
    me.api("patch", f"/api/v1/me/lists/{keep}", {"name": "Kept"})
    me.api("delete", f"/api/v1/me/lists/{drop}")

    body = me.api("get", f"/api/v1/me/lists?since={synced}").json()
    assert [r["name"] for r in body["results"]] == ["Kept"]
    assert body["deleted"] == [drop]
    assert "deleted" not in me.api("get", "/api/v1/me/lists").json()


def test_a_stale_library_version_on_a_collection_write_is_412_and_writes_nothing(me):
    list_id = _default(me.user)
    synced = library_version(user=me.user)
    me.api("post", f"/api/v1/me/lists/{list_id}/items", {"arxiv_id": "2501.00001"})
    before = _state()

    response = me.api(
        "post",
        f"/api/v1/me/lists/{list_id}/items",
        {"arxiv_id": "2501.00002"},
        **{"If-Unmodified-Since-Version": str(synced)},
    )

    assert response.status_code == 412
    assert response.json()["code"] == "version_conflict"
    assert response["Last-Modified-Version"] == str(library_version(user=me.user))
    assert _state() == before


def test_a_current_library_version_lets_the_write_through(me):
    list_id = _default(me.user)
    current = library_version(user=me.user)
    response = me.api(
        "post",
        "/api/v1/me/lists",
        {"name": "Fresh"},
        **{"If-Unmodified-Since-Version": str(current)},
    )
    assert response.status_code == 201
    response = me.api(
        "post",
        f"/api/v1/me/lists/{list_id}/items",
        {"arxiv_id": "2501.00001"},
        **{"If-Unmodified-Since-Version": str(current + 1)},
    )
    assert response.status_code == 201


def test_single_object_writes_compare_the_objects_own_version(me):
    list_id = _default(me.user)
    item_version = me.api(
        "post", f"/api/v1/me/lists/{list_id}/items", {"arxiv_id": "2501.00001"}
    ).json()["version"]
    # Another item changes the library, not this item: its version still matches.
    me.api("post", f"/api/v1/me/lists/{list_id}/items", {"arxiv_id": "2501.00002"})
    ok = me.api(
        "patch",
        f"/api/v1/me/lists/{list_id}/items/2501.00001",
        {"note": "mine"},
        **{"If-Unmodified-Since-Version": str(item_version)},
    )
    assert ok.status_code == 200
    before = _state()

    stale = me.api(
        "delete",
        f"/api/v1/me/lists/{list_id}/items/2501.00001",
        **{"If-Unmodified-Since-Version": str(item_version)},
    )

    assert stale.status_code == 412
    assert _state() == before


@pytest.mark.parametrize("header", ["abc", "-1", "1.5", "", " ", "12345678901234567890", "0x10"])
@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("post", "/api/v1/me/lists/{default}/items", {"arxiv_id": "2501.00009"}),
        ("patch", "/api/v1/me/lists/{default}/items/2501.00001", {"note": "x"}),
        ("delete", "/api/v1/me/lists/{default}/items/2501.00001", None),
        ("post", "/api/v1/me/lists", {"name": "New"}),
        ("delete", "/api/v1/me/lists/{other}", None),
    ],
)
def test_a_malformed_version_header_is_400_and_writes_nothing(header, method, path, body, me):
    default = _default(me.user)
    other = me.api("post", "/api/v1/me/lists", {"name": "Other"}).json()["id"]
    me.api("post", f"/api/v1/me/lists/{default}/items", {"arxiv_id": "2501.00001"})
    before = _state()
    url = path.replace("{default}", str(default)).replace("{other}", str(other))

    response = me.api(method, url, body, **{"If-Unmodified-Since-Version": header})

    assert response.status_code == 400
    assert response.json()["code"] == "invalid_version_header"
    assert "If-Unmodified-Since-Version" in response.json()["detail"]
    assert _state() == before


@pytest.mark.parametrize("since", ["x", "-3", "1e3"])
def test_a_malformed_since_is_400(since, me):
    response = me.api("get", f"/api/v1/me/lists/{_default(me.user)}/items?since={since}")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_since"
