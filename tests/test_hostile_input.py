"""Hostile input, by hand (issue #9): oversized bodies and batches, pathological arXiv ids and
query strings, and strangers on every personal route. Each is turned away with a 4xx whose body
is the API's `{"code", "detail"}` (or the site's error page), nothing is stored, and no answer
shows a traceback, SQL, settings or anybody else's things. tests/test_api_fuzz.py fuzzes the same
API from its schema; this file holds the cases a fuzzer would not think of.
"""

from __future__ import annotations

import base64
import json
import re
from datetime import UTC, datetime
from urllib.parse import quote

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import HttpResponseServerError
from django.test import Client
from django.urls import URLPattern, reverse

from accounts import urls_api
from accounts.models import (
    ApiToken,
    Follow,
    Hidden,
    ImportJob,
    ListItem,
    PaperAlert,
    ReadingList,
)
from accounts.services import follows, lists
from accounts.tests.factories import api_token, user_create
from config.middleware import ApiJsonErrorsMiddleware
from papers.apis import MAX_LOOKUP_IDS
from papers.models import PendingLookup
from papers.tests.factories import paper_create
from topics.tests.factories import area_create, tag_create, topic_create

pytestmark = pytest.mark.django_db

FIVE_MB = 5 * 1024 * 1024
# What an error body must never show: a traceback, a file of ours, SQL, the database, settings.
LEAKS = re.compile(
    r"Traceback|File \"|site-packages|/work/|\bSELECT\b|\bINSERT\b|\bUPDATE\b|\bFROM \"|psycopg|"
    r"sqlite|OperationalError|IntegrityError|SECRET_KEY|DATABASES|DJANGO_SETTINGS|settings\.py",
)


def assert_api_error(response, status: int | tuple[int, ...], code: str | None = None) -> dict:
    """A JSON error with a stable code and a human detail, and nothing that should stay inside."""
    statuses = status if isinstance(status, tuple) else (status,)
    assert response.status_code in statuses, response.content[:500]
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = json.loads(response.content)
    assert isinstance(body.get("code"), str), body
    assert isinstance(body.get("detail"), str), body
    assert body["detail"], body
    if code is not None:
        assert body["code"] == code, body
    assert not LEAKS.search(response.content.decode()), response.content[:500]
    return body


def assert_no_leak(response) -> None:
    assert response.status_code < 500, response.status_code
    assert not LEAKS.search(response.content.decode(errors="replace")), response.content[:500]


@pytest.fixture
def api(owner) -> Client:
    """The owner's script: a Bearer token with every scope."""
    _, raw = api_token(owner, name="owner's script")
    return Client(headers={"Authorization": f"Bearer {raw}"})


@pytest.fixture
def papers(db):
    area = area_create()
    topic = topic_create(parent=area, slug="policy-gradient", name="Policy Gradient")
    rows = [paper_create(arxiv_id=f"2501.0000{i}") for i in range(1, 4)]
    for paper in rows:
        tag_create(paper=paper, topic=topic)
    return {"topic": topic, "papers": rows}


def stored() -> tuple:
    """Everything a request could have written."""
    return (
        sorted(ReadingList.objects.values_list("id", "name", "version")),
        sorted(ListItem.objects.values_list("reading_list_id", "arxiv_id", "note")),
        sorted(PendingLookup.objects.values_list("arxiv_id", flat=True)),
        sorted(Follow.objects.values_list("user_id", "topic_id")),
        sorted(Hidden.objects.values_list("user_id", "paper_id")),
        sorted(ApiToken.objects.values_list("id", "revoked_at")),
    )


def default_list(user) -> int:
    return ReadingList.objects.get(user=user, is_default=True).pk


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


# --- strangers, on every personal route ------------------------------------------------------

OBJECT_KWARGS = {"list_id", "arxiv_id", "slug", "token_id", "alert_id", "job_id"}
# Bodies that would succeed on the caller's own objects, so a 404 means "not yours".
BODIES = {
    ("api-list-detail", "patch"): {"name": "Renamed"},
    ("api-item-list", "post"): {"arxiv_id": "2501.09999"},
    ("api-item-bulk", "post"): {"arxiv_ids": ["2501.09998"]},
    ("api-item-move", "post"): {"arxiv_ids": ["2501.00002"], "to": "{own_list}"},
    ("api-item-copy", "post"): {"arxiv_ids": ["2501.00002"], "to": "{own_list}"},
    ("api-item-detail", "patch"): {"read_state": "read"},
    ("api-list-import", "post"): {"format": "ids", "content": "2501.09997"},
}
NOT_FOUND = re.compile(
    r"No list \d+\.|No such token\.|No alert \d+\.|You do not follow '[\w-]+'\.|"
    r"[\w./-]+ is not hidden\.|No such import\.|Not found\."
)


def personal_routes() -> list[tuple[URLPattern, str]]:
    """Every (route, method) of accounts/urls_api.py, read from the URL patterns themselves."""
    routes = []
    for pattern in urls_api.urlpatterns:
        view = pattern.callback.view_class
        for method in ("get", "post", "put", "patch", "delete"):
            if hasattr(view, method):
                routes.append((pattern, method))
    return routes


ROUTES = personal_routes()


def route_id(route) -> str:
    pattern, method = route
    return f"{method.upper()} {pattern.pattern}"


@pytest.fixture
def stranger_things(papers):
    """A stranger's list with an item, a follow, a hidden paper, an alert and a token."""
    stranger = user_create("stranger", email="stranger@example.org")
    secret = lists.reading_list_create(user=stranger, name="Stranger secret list")
    lists.list_item_save(
        user=stranger, list_id=secret.pk, arxiv_id="2501.00002", note="stranger's note"
    )
    follows.follow_create(user=stranger, topic_slug="policy-gradient")
    follows.hidden_create(user=stranger, arxiv_id="2501.00003")
    alert = PaperAlert.objects.create(
        user=stranger, paper=papers["papers"][1], kind="doi", value="10.1/stranger-doi",
        created_at=datetime(2025, 3, 4, tzinfo=UTC),
    )  # fmt: skip
    token, _ = api_token(stranger, name="stranger's laptop")
    job = ImportJob.objects.create(
        user=stranger, reading_list=secret, format="ids", status="done", total=1, done=1,
        result={"imported": ["2501.00002"], "errors": [], "note": "stranger's note"},
    )  # fmt: skip
    return {
        "kwargs": {
            "list_id": secret.pk,
            "arxiv_id": "2501.00002",
            "slug": "policy-gradient",
            "token_id": token.pk,
            "alert_id": alert.pk,
            "job_id": job.pk,
        },
        "hidden": "2501.00003",
        "marks": [
            "Stranger secret list", "stranger's note", "stranger's laptop", "stranger-doi",
            "stranger@example.org", '"stranger"',
        ],
    }  # fmt: skip


def stranger_url(pattern: URLPattern, things) -> str:
    names = set(pattern.pattern.converters)
    unknown = names - OBJECT_KWARGS
    assert not unknown, f"a new route parameter {unknown}: add a stranger's value for it above"
    kwargs = {name: things["kwargs"][name] for name in names}
    if pattern.name == "api-hidden-detail":
        kwargs["arxiv_id"] = things["hidden"]
    query = "?format=bibtex" if pattern.name == "api-list-export" else ""
    return reverse(pattern.name, kwargs=kwargs) + query


def fill(body, own_list: int):
    if body is None:
        return None
    return {k: own_list if v == "{own_list}" else v for k, v in body.items()}


def test_the_route_table_is_read_from_the_urlconf():
    assert len(ROUTES) >= 39
    assert {pattern.name for pattern, _ in ROUTES} == {p.name for p in urls_api.urlpatterns}


@pytest.mark.parametrize("route", ROUTES, ids=route_id)
def test_anonymous_gets_a_bare_401_on_every_personal_route(route, stranger_things):
    pattern, method = route
    before = stored()

    response = getattr(Client(), method)(stranger_url(pattern, stranger_things))

    body = assert_api_error(response, 401, "not_authenticated")
    assert body == {
        "code": "not_authenticated",
        "detail": "Authentication credentials were not provided.",
    }
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert stored() == before


@pytest.mark.parametrize("route", ROUTES, ids=route_id)
def test_a_bad_token_gets_a_bare_401_on_every_personal_route(route, stranger_things):
    pattern, method = route
    client = Client(headers={"Authorization": "Bearer not-a-token-of-ours"})

    response = getattr(client, method)(stranger_url(pattern, stranger_things))

    body = assert_api_error(response, 401, "invalid_token")
    assert body == {"code": "invalid_token", "detail": "Unknown API token."}


@pytest.mark.parametrize("route", ROUTES, ids=route_id)
def test_another_user_sees_nothing_of_the_strangers_on_every_personal_route(
    route, stranger_things, owner, api
):
    pattern, method = route
    url = stranger_url(pattern, stranger_things)
    body = fill(BODIES.get((pattern.name, method)), default_list(owner))
    before = stored()

    kwargs = {"data": json.dumps(body), "content_type": "application/json"} if body else {}
    response = getattr(api, method)(url, **kwargs)

    assert_no_leak(response)
    text = response.content.decode()
    assert not [mark for mark in stranger_things["marks"] if mark in text], text[:500]
    if set(pattern.pattern.converters) & OBJECT_KWARGS:
        # The stranger's object: exactly as if it did not exist, and untouched.
        error = assert_api_error(response, 404, "not_found")
        assert set(error) == {"code", "detail"}, error
        assert NOT_FOUND.fullmatch(error["detail"]), error["detail"]
        assert stored() == before
