"""Hostile input, by hand (issue #9): oversized bodies and batches, pathological arXiv ids and
query strings. Each is turned away with a 4xx whose body is the API's `{"code", "detail"}` (or
the site's error page), nothing is stored, and no answer shows a traceback, SQL or settings.
tests/test_api_fuzz.py fuzzes the same API from its schema; this file holds the cases a fuzzer
would not think of; tests/test_strangers.py tries every personal route as someone else.
"""

from __future__ import annotations

import base64
import json
from urllib.parse import quote

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import HttpResponseServerError
from django.test import Client

from config.middleware import ApiJsonErrorsMiddleware
from papers.apis import MAX_LOOKUP_IDS
from papers.models import PendingLookup
from tests.hostile import (
    FIVE_MB,
    assert_api_error,
    assert_no_leak,
    default_list,
    stored,
)

pytestmark = pytest.mark.django_db

# --- oversized bodies ------------------------------------------------------------------------


def test_a_5_mb_lookup_is_refused_with_413_and_stores_nothing(papers):
    body = json.dumps({"ids": ["2501.00001"] * (FIVE_MB // 14)})
    assert len(body) > FIVE_MB
    before = stored()

    response = Client().post("/api/v1/papers/lookup", body, content_type="application/json")

    error = assert_api_error(response, 413, "request_too_large")
    assert f"{settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes" in error["detail"]
    assert stored() == before


def test_a_body_declared_larger_than_the_limit_is_refused_before_it_is_read():
    response = Client().post(
        "/api/v1/papers/lookup",
        '{"ids": ["2501.00001"]}',
        content_type="application/json",
        CONTENT_LENGTH=str(10 * FIVE_MB),
    )
    assert_api_error(response, 413, "request_too_large")


@pytest.mark.parametrize(
    ("path", "content_type", "make_body"),
    [
        ("/api/v1/me/lists", "application/json", lambda: json.dumps({"name": "x" * FIVE_MB})),
        (
            "/api/v1/me/lists/{list}/items/bulk",
            "application/json",
            lambda: json.dumps({"arxiv_ids": ["2501.00001"] * (FIVE_MB // 14)}),
        ),
        ("/api/v1/me/lists/{list}/import?format=ids", "text/plain", lambda: "x\n" * FIVE_MB),
        ("/api/v1/me/lists/{list}/import", None, lambda: {"content": "x" * FIVE_MB}),
    ],
    ids=["json-name", "json-bulk", "text-import", "multipart-field"],
)  # fmt: skip
def test_a_5_mb_body_to_a_personal_endpoint_is_refused_and_stores_nothing(
    path, content_type, make_body, owner, api
):
    before = stored()
    kwargs = {"content_type": content_type} if content_type else {}

    response = api.post(path.format(list=default_list(owner)), make_body(), **kwargs)

    assert_api_error(response, 413, "request_too_large")
    assert stored() == before


def test_a_5_mb_file_to_import_is_refused_with_a_clear_400(owner, api):
    upload = SimpleUploadedFile("refs.txt", b"2501.00001\n" * 500_000, content_type="text/plain")
    before = stored()

    response = api.post(f"/api/v1/me/lists/{default_list(owner)}/import", {"file": upload})

    assert_api_error(response, 400, "import_too_large")
    assert stored() == before


def test_a_form_with_too_many_fields_is_a_400(owner, api):
    fields = {f"f{i}": "x" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1)}
    response = api.post(f"/api/v1/me/lists/{default_list(owner)}/import", fields)
    assert_api_error(response, 400, "too_many")


@pytest.mark.parametrize("opening", ["[", '{"ids":'])
def test_deeply_nested_json_is_a_400_not_a_500(opening):
    response = Client().post(
        "/api/v1/papers/lookup", opening * 100_000, content_type="application/json"
    )
    assert_api_error(response, 400, "parse_error")


def test_an_anonymous_5_mb_body_to_a_personal_endpoint_is_401():
    response = Client().post(
        "/api/v1/me/lists", json.dumps({"name": "x" * FIVE_MB}), content_type="application/json"
    )
    assert_api_error(response, 401, "not_authenticated")


# --- batch sizes -----------------------------------------------------------------------------


def test_2001_ids_are_a_400_naming_the_limit_and_nothing_is_queued():
    ids = [f"2501.{i:05d}" for i in range(1, MAX_LOOKUP_IDS + 2)]

    response = Client().post(
        "/api/v1/papers/lookup", json.dumps({"ids": ids}), content_type="application/json"
    )

    error = assert_api_error(response, 400, "too_many_ids")
    assert "2000" in error["detail"].replace(",", "")
    assert not PendingLookup.objects.exists()


def test_2000_ids_are_looked_up():
    ids = [f"2501.{i:05d}" for i in range(1, MAX_LOOKUP_IDS + 1)]
    response = Client().post(
        "/api/v1/papers/lookup", json.dumps({"ids": ids}), content_type="application/json"
    )
    assert response.status_code == 200
    assert len(response.json()["pending"]) == MAX_LOOKUP_IDS


def test_1001_ids_to_save_at_once_are_a_400_naming_the_limit(owner, api):
    ids = [f"2501.{i:05d}" for i in range(1, 1002)]
    before = stored()

    response = api.post(
        f"/api/v1/me/lists/{default_list(owner)}/items/bulk",
        json.dumps({"arxiv_ids": ids}),
        content_type="application/json",
    )

    error = assert_api_error(response, 400, "max_length")
    assert "1000" in error["detail"]
    assert stored() == before


# --- pathological arXiv ids ------------------------------------------------------------------

BAD_IDS = {
    "10 KB": "2501.00001" + "x" * 10_240,
    "unicode digits": "２５０１.００００１",
    "right-to-left mark": "\u202e2501.00001",
    "emoji": "2501.00001\U0001f600",
    "dot-dot": "../../../etc/passwd",
    "dot-dot after an id": "2501.00001/../../settings",
    "NUL byte": "2501.00001\x00",
    "percent-00": "2501.00001%00",
    "long old-style": "hep-th/" + "9" * 5_000,
    "version 0": "2501.00001v0",
    "huge version": "2501.00001v99999999999",
    "spaces only": "   ",
}


@pytest.mark.parametrize("raw", BAD_IDS.values(), ids=BAD_IDS.keys())
def test_a_pathological_id_is_a_400_on_one_paper(raw, papers):
    response = Client().get("/api/v1/papers/" + quote(raw, safe="/"))
    error = assert_api_error(response, 400, "invalid_arxiv_id")
    assert len(error["detail"]) < 300  # the input is quoted, not echoed whole


@pytest.mark.parametrize("raw", BAD_IDS.values(), ids=BAD_IDS.keys())
def test_a_pathological_id_is_a_400_in_a_lookup_and_nothing_is_queued(raw, papers):
    response = Client().post(
        "/api/v1/papers/lookup",
        json.dumps({"ids": ["2501.00001", raw]}),
        content_type="application/json",
    )
    assert_api_error(response, 400)
    assert not PendingLookup.objects.exists()


@pytest.mark.parametrize("raw", BAD_IDS.values(), ids=BAD_IDS.keys())
def test_a_pathological_id_is_a_400_when_saved_and_nothing_is_stored(raw, owner, api, papers):
    before = stored()
    response = api.post(
        f"/api/v1/me/lists/{default_list(owner)}/items",
        json.dumps({"arxiv_id": raw}),
        content_type="application/json",
    )
    assert_api_error(response, 400)
    assert stored() == before


@pytest.mark.parametrize("path", ["/api/v1/papers/", "/api/v1/me/lists/abc", "/api/v1/nowhere"])
def test_a_url_no_api_route_matches_is_a_json_404(path, api):
    assert_api_error(api.get(path), 404, "not_found")


@pytest.mark.parametrize(
    ("path", "is_api"), [("/api/v1/papers", True), ("/api/docs/x", True), ("/search/", False)]
)
def test_django_error_pages_under_api_become_json_errors(path, is_api, rf):
    page = HttpResponseServerError("<h1>Server Error</h1><pre>Traceback (most recent call</pre>")
    response = ApiJsonErrorsMiddleware(lambda request: page)(rf.get(path))
    if is_api:
        error = assert_api_error(response, 500, "internal_server_error")
        assert "logged" in error["detail"]
    else:
        assert response is page


# --- pathological query strings --------------------------------------------------------------


def cursor(query: str) -> str:
    """A cursor forged the way DRF encodes its own."""
    return quote(base64.b64encode(query.encode()).decode())


TEN_KB = "a" * 10_240
API_QUERIES = [
    ("/api/v1/papers?q=" + TEN_KB, "max_length"),
    ("/api/v1/papers?q=graph%00networks", "null_characters_not_allowed"),
    ("/api/v1/papers?topic=no-such-topic", "unknown_topic"),
    ("/api/v1/papers?topic=%00", None),
    ("/api/v1/papers?category=cs.LG;DROP", "invalid"),
    ("/api/v1/papers?since=2025-13-45", "invalid"),
    ("/api/v1/papers?colour=red", "unknown_filter"),
    ("/api/v1/papers?cursor=not-a-cursor", "invalid_cursor"),
    ("/api/v1/papers?cursor=" + cursor("o=0&r=0&p=not-a-date"), "invalid_cursor"),
    ("/api/v1/papers?cursor=" + cursor("p=\x00"), "invalid_cursor"),
    ("/api/v1/topics?q=" + TEN_KB, "max_length"),
    ("/api/v1/topics?q=%00", "null_characters_not_allowed"),
    ("/api/v1/topics?sort=;DROP", "invalid_choice"),
    ("/api/v1/topics?area=nowhere", "unknown_area"),
    ("/api/v1/topics?colour=red", "unknown_filter"),
    ("/api/v1/topics/policy-gradient/papers?cursor=" + TEN_KB, "invalid_cursor"),
    ("/api/v1/topics/policy-gradient/papers?cursor=" + cursor("p=1999-99-99"), "invalid_cursor"),
    ("/api/v1/topics/policy-gradient/papers?q=x", "unknown_filter"),
]


@pytest.mark.parametrize(("url", "code"), API_QUERIES, ids=[u[:60] for u, _ in API_QUERIES])
def test_a_pathological_query_is_a_400(url, code, papers):
    assert_api_error(Client().get(url), 400, code)


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/me/feed?topic=%00",
        "/api/v1/me/feed?topic=" + TEN_KB,
        "/api/v1/me/feed?cursor=" + cursor("p=not-a-date"),
        "/api/v1/me/lists/{list}/items?cursor=" + cursor("p=abc"),
        "/api/v1/me/lists/{list}/items?read_state=%00",
        "/api/v1/me/lists/{list}/export?format=%00",
        "/api/v1/me/lists?since=99999999999999999999999",
    ],
)
def test_a_pathological_personal_query_is_a_400(url, owner, api, papers):
    assert_api_error(api.get(url.format(list=default_list(owner))), 400)


@pytest.mark.parametrize("content", ["arxiv_id,note\n2501.00001,a\x00b\n", "2501.00001\x00\n"])
def test_an_import_with_a_nul_byte_is_a_400_and_stores_nothing(content, owner, api):
    before = stored()
    response = api.post(
        f"/api/v1/me/lists/{default_list(owner)}/import?format=auto",
        content,
        content_type="text/plain",
    )
    assert_api_error(response, 400, "not_text")
    assert stored() == before


@pytest.mark.parametrize(
    ("url", "status"),
    [
        ("/search/?q=" + TEN_KB, 400),
        ("/search/?q=graph%00networks", 200),
        ("/search/?q=%00", 200),
        ("/search/?q=graph&cursor=not-a-cursor", 400),
        ("/search/?q=graph&cursor=" + cursor("o=0&r=0&p=not-a-date"), 400),
        ("/search/?q=graph&colour=red", 200),
        ("/search/?q=%E2%80%AE%F0%9F%98%80", 200),
        ("/search/feed/?q=graph%00networks%01", 200),
        ("/search?q=graph%00", 301),
    ],
)
def test_the_search_page_turns_away_pathological_queries(url, status, papers):
    response = Client().get(url)
    assert response.status_code == status
    assert_no_leak(response)


@pytest.mark.parametrize("topic", ["%00", "a%00b", "x" * 10_000])
def test_the_feed_page_answers_an_impossible_topic_with_a_404(topic, owner):
    client = Client()
    client.force_login(owner)
    response = client.get(f"/feed/?topic={topic}")
    assert response.status_code == 404
    assert_no_leak(response)
