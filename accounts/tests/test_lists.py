"""Reading lists through the API: the default list, named lists, saving (idempotent, any valid id,
even one not harvested yet), notes, read state, order, move, copy and bulk add."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from accounts.models import ListItem, ReadingList
from accounts.services.lists import list_items_link_papers
from accounts.tests.factories import user_create
from papers.tests.factories import paper_create

pytestmark = pytest.mark.django_db


def _default(user) -> int:
    return ReadingList.objects.get(user=user, is_default=True).pk


def _ids(list_id: int) -> list[str]:
    return list(
        ListItem.objects.filter(reading_list_id=list_id)
        .order_by("position", "id")
        .values_list("arxiv_id", flat=True)
    )


def test_every_new_user_has_a_default_reading_list():
    user = user_create("newcomer")
    assert list(ReadingList.objects.filter(user=user).values_list("name", "is_default")) == [
        ("Reading list", True)
    ]
    superuser = get_user_model().objects.create_superuser("root", "root@example.org", "pw")
    assert ReadingList.objects.filter(user=superuser, is_default=True).count() == 1


def test_me_names_the_default_list(me):
    body = me.api("get", "/api/v1/me").json()
    assert body["username"] == "owner"
    assert body["default_list"] == _default(me.user)


def test_lists_are_listed_in_the_shape_the_extension_reads(me):
    me.api("post", "/api/v1/me/lists", {"name": "To review"})
    body = me.api("get", "/api/v1/me/lists").json()
    assert body["next"] is None
    first = body["results"][0]
    assert {"id", "name", "is_default", "item_count", "version"} <= set(first)
    assert [(r["name"], r["is_default"], r["item_count"]) for r in body["results"]] == [
        ("Reading list", True, 0),
        ("To review", False, 0),
    ]


def test_list_names_are_unique_per_person_ignoring_case(me, other):
    assert me.api("post", "/api/v1/me/lists", {"name": "Theory"}).status_code == 201
    response = me.api("post", "/api/v1/me/lists", {"name": "  theory "})
    assert response.status_code == 409
    assert response.json()["code"] == "duplicate_name"
    # Someone else may use the same name.
    from accounts.services.lists import reading_list_create

    assert reading_list_create(user=other, name="Theory").name == "Theory"


def test_saving_creates_once_and_then_answers_200(me):
    url = f"/api/v1/me/lists/{_default(me.user)}/items"
    first = me.api("post", url, {"arxiv_id": "2501.00001", "note": "read §3"})
    again = me.api("post", url, {"arxiv_id": "https://arxiv.org/abs/2501.00001v3"})

    assert first.status_code == 201
    assert again.status_code == 200
    assert first.json()["arxiv_id"] == again.json()["arxiv_id"] == "2501.00001"
    assert again.json()["note"] == "read §3"  # a save without a note keeps the note
    assert _ids(_default(me.user)) == ["2501.00001"]


def test_saving_again_with_a_new_note_updates_it(me):
    url = f"/api/v1/me/lists/{_default(me.user)}/items"
    me.api("post", url, {"arxiv_id": "2501.00001", "note": "first"})
    response = me.api("post", url, {"arxiv_id": "2501.00001", "note": "second"})
    assert response.status_code == 200
    assert ListItem.objects.get().note == "second"


def test_a_paper_we_do_not_have_yet_is_saved_and_fetched(me, pending):
    response = me.api(
        "post", f"/api/v1/me/lists/{_default(me.user)}/items", {"arxiv_id": "hep-th/9901001v2"}
    )
    assert response.status_code == 201
    assert response.json()["paper"] is None
    assert pending == ["hep-th/9901001"]
    assert ListItem.objects.get().paper is None

    paper = paper_create("hep-th/9901001", title="Old-style ids still work")
    assert list_items_link_papers(arxiv_ids=["hep-th/9901001"]) == 1
    assert ListItem.objects.get().paper == paper
    item = me.api("get", f"/api/v1/me/lists/{_default(me.user)}/items/hep-th/9901001").json()
    assert item["paper"]["title"] == "Old-style ids still work"


def test_a_known_paper_is_linked_and_shown_with_its_tags(me, pending):
    from topics.tests.factories import topic_create

    paper_create("2501.00007", title="Known", topics=[topic_create("offline-rl")])
    response = me.api(
        "post", f"/api/v1/me/lists/{_default(me.user)}/items", {"arxiv_id": "2501.00007"}
    )
    paper = response.json()["paper"]
    assert paper["title"] == "Known"
    assert [t["slug"] for t in paper["tags"]] == ["offline-rl"]
    assert pending == []


def test_items_carry_note_read_state_position_and_added_date(me):
    list_id = _default(me.user)
    for n in range(1, 4):
        me.api("post", f"/api/v1/me/lists/{list_id}/items", {"arxiv_id": f"2501.0000{n}"})
    response = me.api(
        "patch",
        f"/api/v1/me/lists/{list_id}/items/2501.00002",
        {"note": "key idea", "read_state": "read"},
    )
    assert response.status_code == 200
    body = response.json()
    assert (body["note"], body["read_state"], body["position"]) == ("key idea", "read", 1)
    assert body["added"]

    unread = me.api("get", f"/api/v1/me/lists/{list_id}/items?read_state=unread").json()["results"]
    assert [i["arxiv_id"] for i in unread] == ["2501.00001", "2501.00003"]


def test_reordering_moves_one_item_and_renumbers(me):
    list_id = _default(me.user)
    me.api(
        "post",
        f"/api/v1/me/lists/{list_id}/items/bulk",
        {"arxiv_ids": ["2501.00001", "2501.00002", "2501.00003"]},
    )
    me.api("patch", f"/api/v1/me/lists/{list_id}/items/2501.00003", {"position": 0})
    assert _ids(list_id) == ["2501.00003", "2501.00001", "2501.00002"]
    me.api("patch", f"/api/v1/me/lists/{list_id}/items/2501.00003", {"position": 99})
    assert _ids(list_id) == ["2501.00001", "2501.00002", "2501.00003"]
    positions = list(ListItem.objects.order_by("position").values_list("position", flat=True))
    assert positions == [0, 1, 2]


def test_bulk_add_reports_created_existing_and_pending(me, pending):
    list_id = _default(me.user)
    paper_create("2501.00001")
    me.api("post", f"/api/v1/me/lists/{list_id}/items", {"arxiv_id": "2501.00001"})
    response = me.api(
        "post",
        f"/api/v1/me/lists/{list_id}/items/bulk",
        {"arxiv_ids": ["2501.00001", "arXiv:2501.00002", "2501.00002v1", "2501.00003"]},
    )
    assert response.status_code == 201
    body = response.json()
    assert body["created"] == ["2501.00002", "2501.00003"]
    assert body["existing"] == ["2501.00001"]
    assert body["pending"] == ["2501.00002", "2501.00003"]
    assert _ids(list_id) == ["2501.00001", "2501.00002", "2501.00003"]


def test_moving_keeps_note_state_and_date_and_leaves_the_source(me):
    source = _default(me.user)
    target = me.api("post", "/api/v1/me/lists", {"name": "Done"}).json()["id"]
    me.api(
        "post",
        f"/api/v1/me/lists/{source}/items",
        {"arxiv_id": "2501.00001", "note": "n1", "read_state": "read"},
    )
    me.api("post", f"/api/v1/me/lists/{source}/items", {"arxiv_id": "2501.00002"})
    added = ListItem.objects.get(arxiv_id="2501.00001").added_at

    response = me.api(
        "post", f"/api/v1/me/lists/{source}/items/move", {"arxiv_ids": ["2501.00001"], "to": target}
    )

    assert response.status_code == 200
    assert response.json()["moved"] == ["2501.00001"]
    assert _ids(source) == ["2501.00002"]
    moved = ListItem.objects.get(reading_list_id=target)
    assert (moved.note, moved.read_state, moved.added_at) == ("n1", "read", added)


def test_copying_leaves_both_and_skips_papers_already_there(me):
    source = _default(me.user)
    target = me.api("post", "/api/v1/me/lists", {"name": "Share"}).json()["id"]
    me.api(
        "post", f"/api/v1/me/lists/{source}/items/bulk", {"arxiv_ids": ["2501.00001", "2501.00002"]}
    )
    me.api(
        "post", f"/api/v1/me/lists/{target}/items", {"arxiv_id": "2501.00002", "note": "keep mine"}
    )

    response = me.api(
        "post",
        f"/api/v1/me/lists/{source}/items/copy",
        {"arxiv_ids": ["2501.00001", "2501.00002"], "to": target},
    )

    assert response.json()["copied"] == ["2501.00001"]
    assert response.json()["already"] == ["2501.00002"]
    assert _ids(source) == ["2501.00001", "2501.00002"]
    assert _ids(target) == ["2501.00002", "2501.00001"]
    assert ListItem.objects.get(reading_list_id=target, arxiv_id="2501.00002").note == "keep mine"


def test_moving_a_paper_not_in_the_list_moves_nothing(me):
    source = _default(me.user)
    target = me.api("post", "/api/v1/me/lists", {"name": "T"}).json()["id"]
    me.api("post", f"/api/v1/me/lists/{source}/items", {"arxiv_id": "2501.00001"})
    response = me.api(
        "post",
        f"/api/v1/me/lists/{source}/items/move",
        {"arxiv_ids": ["2501.00001", "2501.00009"], "to": target},
    )
    assert response.status_code == 400
    assert response.json()["code"] == "not_in_list"
    assert "2501.00009" in response.json()["detail"]
    assert _ids(source) == ["2501.00001"]
    assert _ids(target) == []


def test_renaming_and_changing_the_default(me):
    new = me.api("post", "/api/v1/me/lists", {"name": "Queue"}).json()["id"]
    response = me.api("patch", f"/api/v1/me/lists/{new}", {"name": "Next up", "is_default": True})
    assert response.status_code == 200
    assert (response.json()["name"], response.json()["is_default"]) == ("Next up", True)
    assert me.api("get", "/api/v1/me").json()["default_list"] == new
    assert ReadingList.objects.filter(user=me.user, is_default=True).count() == 1


def test_the_default_list_cannot_be_deleted_or_undefaulted(me):
    default = _default(me.user)
    response = me.api("delete", f"/api/v1/me/lists/{default}")
    assert response.status_code == 400
    assert response.json()["code"] == "default_list"
    response = me.api("patch", f"/api/v1/me/lists/{default}", {"is_default": False})
    assert response.status_code == 400
    assert ReadingList.objects.filter(pk=default, is_default=True).exists()


def test_deleting_a_list_deletes_its_items(me):
    list_id = me.api("post", "/api/v1/me/lists", {"name": "Tmp"}).json()["id"]
    me.api("post", f"/api/v1/me/lists/{list_id}/items", {"arxiv_id": "2501.00001"})
    assert me.api("delete", f"/api/v1/me/lists/{list_id}").status_code == 204
    assert not ReadingList.objects.filter(pk=list_id).exists()
    assert not ListItem.objects.filter(reading_list_id=list_id).exists()
    assert me.api("get", f"/api/v1/me/lists/{list_id}").status_code == 404


def test_removing_an_item_by_any_form_of_its_id(me):
    list_id = _default(me.user)
    me.api("post", f"/api/v1/me/lists/{list_id}/items", {"arxiv_id": "2501.00001"})
    assert me.api("delete", f"/api/v1/me/lists/{list_id}/items/2501.00001v4").status_code == 204
    assert me.api("delete", f"/api/v1/me/lists/{list_id}/items/2501.00001").status_code == 404


def test_item_pages_are_cursor_paginated(me):
    list_id = _default(me.user)
    ids = [f"2501.{n:05d}" for n in range(1, 8)]
    me.api("post", f"/api/v1/me/lists/{list_id}/items/bulk", {"arxiv_ids": ids})
    seen, url = [], f"/api/v1/me/lists/{list_id}/items?limit=3"
    while url:
        body = me.api("get", url).json()
        seen += [i["arxiv_id"] for i in body["results"]]
        url = body["next"]
    assert seen == ids
