"""Strangers on every personal route (issue #9): someone else's lists, items, follows, hidden
papers, tokens, alerts and imports answer 404 (or 401 without credentials), store nothing and
leak nothing."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest
from django.test import Client
from django.urls import URLPattern, reverse

from accounts import urls_api
from accounts.models import (
    ImportJob,
    PaperAlert,
)
from accounts.services import follows, lists
from accounts.tests.factories import api_token, user_create
from tests.hostile import (
    assert_api_error,
    assert_no_leak,
    default_list,
    stored,
)

pytestmark = pytest.mark.django_db

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
