"""Bad input gets a 4xx with a stable `code` and a human `detail`, and nothing is half-written."""

from __future__ import annotations

import pytest

from accounts.models import Deletion, Follow, Library, ListItem, ReadingList
from topics.models import PaperTopic, TagFeedback

pytestmark = pytest.mark.django_db


def _state():
    return (
        list(Library.objects.order_by("id").values_list("version", flat=True)),
        sorted(
            ListItem.objects.values_list(
                "reading_list_id", "arxiv_id", "note", "read_state", "position"
            )
        ),
        sorted(ReadingList.objects.values_list("id", "name", "is_default")),
        Deletion.objects.count(),
        Follow.objects.count(),
        TagFeedback.objects.count(),
        PaperTopic.objects.count(),
    )


@pytest.fixture
def default(me) -> int:
    list_id = ReadingList.objects.get(user=me.user, is_default=True).pk
    me.api("post", f"/api/v1/me/lists/{list_id}/items", {"arxiv_id": "2501.00001", "note": "kept"})
    return list_id


ITEMS = "/api/v1/me/lists/{default}/items"
CASES = [
    # (label, method, path, body, status, code)
    ("unknown list", "get", "/api/v1/me/lists/999999/items", None, 404, "not_found"),
    (
        "unknown list, save",
        "post",
        "/api/v1/me/lists/999999/items",
        {"arxiv_id": "2501.00002"},
        404,
        "not_found",
    ),
    (
        "unknown list, export",
        "get",
        "/api/v1/me/lists/999999/export?format=bibtex",
        None,
        404,
        "not_found",
    ),
    ("unknown item", "patch", ITEMS + "/2501.09999", {"note": "x"}, 404, "not_found"),
    (
        "10,000-character note",
        "post",
        ITEMS,
        {"arxiv_id": "2501.00002", "note": "x" * 10_000},
        400,
        "max_length",
    ),
    (
        "10,000-character note, patch",
        "patch",
        ITEMS + "/2501.00001",
        {"note": "x" * 10_000},
        400,
        "max_length",
    ),
    ("malformed id", "post", ITEMS, {"arxiv_id": "2501.1"}, 400, "invalid_arxiv_id"),
    ("malformed id in path", "delete", ITEMS + "/not-an-id", None, 400, "invalid_arxiv_id"),
    (
        "one malformed id in a bulk add",
        "post",
        ITEMS + "/bulk",
        {"arxiv_ids": ["2501.00002", "1234", "2501.00003"]},
        400,
        "invalid_arxiv_id",
    ),
    (
        "wrong export format",
        "get",
        "/api/v1/me/lists/{default}/export?format=docx",
        None,
        400,
        "unknown_format",
    ),
    (
        "missing export format",
        "get",
        "/api/v1/me/lists/{default}/export",
        None,
        400,
        "unknown_format",
    ),
    (
        "wrong import format",
        "post",
        "/api/v1/me/lists/{default}/import",
        {"format": "endnote", "content": "2501.00002"},
        400,
        "unknown_format",
    ),
    (
        "empty import",
        "post",
        "/api/v1/me/lists/{default}/import",
        {"content": "   "},
        400,
        "empty_import",
    ),
    (
        "bad read state",
        "patch",
        ITEMS + "/2501.00001",
        {"read_state": "skimmed"},
        400,
        "invalid_choice",
    ),
    ("negative position", "patch", ITEMS + "/2501.00001", {"position": -1}, 400, "min_value"),
    ("list name too long", "post", "/api/v1/me/lists", {"name": "n" * 201}, 400, "max_length"),
    ("list without a name", "post", "/api/v1/me/lists", {}, 400, "required"),
    ("blank list name", "post", "/api/v1/me/lists", {"name": "   "}, 400, "blank"),
    ("a list, not an object", "post", "/api/v1/me/lists", ["name"], 400, "invalid"),
    (
        "unknown topic",
        "post",
        "/api/v1/me/follows",
        {"topic": "no-such-topic"},
        400,
        "unknown_topic",
    ),
    (
        "unknown parameter",
        "get",
        "/api/v1/me/lists/{default}/items?sort=title",
        None,
        400,
        "unknown_parameter",
    ),
    (
        "bad cursor",
        "get",
        "/api/v1/me/lists/{default}/items?cursor=zzz",
        None,
        400,
        "invalid_cursor",
    ),
    ("bad feed cursor", "get", "/api/v1/me/feed?cursor=zzz", None, 400, "invalid_cursor"),
    (
        "unknown feedback vote",
        "post",
        "/api/v1/me/feedback",
        {"arxiv_id": "2501.00001", "topic": "x", "vote": "love"},
        400,
        "invalid_choice",
    ),
]


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "code"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_bad_input_is_a_clear_4xx_and_writes_nothing(method, path, body, status, code, me, default):
    before = _state()

    response = me.api(method, path.replace("{default}", str(default)), body)

    assert response.status_code == status, response.content
    error = response.json()
    assert error["code"] == code
    assert isinstance(error["detail"], str)
    assert len(error["detail"]) > 10
    assert _state() == before


def test_a_long_note_names_the_field_and_the_limit(me, default):
    response = me.api(
        "post",
        f"/api/v1/me/lists/{default}/items",
        {"arxiv_id": "2501.00002", "note": "x" * 10_000},
    )
    assert response.json()["detail"] == "note: Ensure this field has no more than 5000 characters."
    assert "note" in response.json()["errors"]


def test_a_bulk_add_names_every_bad_id(me, default):
    response = me.api(
        "post",
        f"/api/v1/me/lists/{default}/items/bulk",
        {"arxiv_ids": ["2501.00002", "1234", "foo"]},
    )
    assert response.json()["invalid_ids"] == ["1234", "foo"]
    assert "Nothing was saved" in response.json()["detail"]


def test_malformed_json_is_a_400(me, default):
    response = me.client.post(
        f"/api/v1/me/lists/{default}/items", "{not json", content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["code"] == "parse_error"


def test_a_note_of_exactly_the_limit_is_fine(me, default):
    response = me.api(
        "post", f"/api/v1/me/lists/{default}/items", {"arxiv_id": "2501.00002", "note": "é" * 5000}
    )
    assert response.status_code == 201
