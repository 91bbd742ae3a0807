"""Session writes need the CSRF token (token writes do not: no cookie rides along); too many
requests get 429 with Retry-After, per user and per anonymous address."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from accounts.models import ListItem, ReadingList
from accounts.selectors import default_list_id
from accounts.tests.conftest import as_session, as_token

pytestmark = pytest.mark.django_db


def _signed_in_without_csrf_header(user) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("post", "/api/v1/me/lists", {"name": "Sneaky"}),
        ("post", "/api/v1/me/lists/{default}/items", {"arxiv_id": "2501.00001"}),
        ("patch", "/api/v1/me/lists/{default}", {"name": "Renamed"}),
        ("delete", "/api/v1/me", {"password": "x"}),
    ],
)
def test_session_writes_without_the_csrf_token_are_refused(method, path, body, owner):
    client = _signed_in_without_csrf_header(owner)
    url = path.replace("{default}", str(default_list_id(user=owner)))
    before = (list(ReadingList.objects.values_list("name", flat=True)), ListItem.objects.count())

    response = getattr(client, method)(url, json.dumps(body), content_type="application/json")

    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]
    assert (
        list(ReadingList.objects.values_list("name", flat=True)),
        ListItem.objects.count(),
    ) == before


def test_session_reads_need_no_csrf_token(owner):
    client = _signed_in_without_csrf_header(owner)
    assert client.get("/api/v1/me/lists").status_code == 200


def test_session_writes_with_the_csrf_token_pass(owner_session):
    assert owner_session.api("post", "/api/v1/me/lists", {"name": "Fine"}).status_code == 201


def test_token_writes_need_no_csrf_token(owner_token):
    assert owner_token.api("post", "/api/v1/me/lists", {"name": "Fine"}).status_code == 201


def test_page_forms_need_the_csrf_token(owner):
    client = _signed_in_without_csrf_header(owner)
    response = client.post("/lists/save/", {"arxiv_id": "2501.00001"})
    assert response.status_code == 403
    assert ListItem.objects.count() == 0


@pytest.mark.parametrize("way_in", ["session", "token"])
def test_a_user_over_the_rate_gets_429_with_retry_after(way_in, low_rates, owner, other):
    caller = as_session(owner) if way_in == "session" else as_token(owner)
    codes = [caller.api("get", "/api/v1/me/lists").status_code for _ in range(5)]
    assert codes == [200] * 5

    response = caller.api("get", "/api/v1/me/lists")

    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0
    assert response.json()["code"] == "throttled"
    assert "detail" in response.json()
    # The budget is per user: someone else is not slowed down.
    assert as_token(other).api("get", "/api/v1/me/lists").status_code == 200


def test_session_and_token_of_one_user_share_one_budget(low_rates, owner):
    session, token = as_session(owner), as_token(owner)
    for caller in (session, token, session, token, session):
        assert caller.api("get", "/api/v1/me").status_code == 200
    assert token.api("get", "/api/v1/me").status_code == 429


def test_anonymous_callers_are_throttled_per_address(low_rates, anonymous):
    codes = [anonymous.api("get", "/api/v1/me/lists").status_code for _ in range(3)]
    assert codes == [401] * 3
    response = anonymous.api("get", "/api/v1/me/lists")
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0
    # Another address is not affected.
    elsewhere = Client(REMOTE_ADDR="10.1.2.3")
    assert elsewhere.get("/api/v1/me/lists").status_code == 401


def test_guessing_tokens_is_throttled_like_any_anonymous_request(low_rates, anonymous):
    headers = {"Authorization": "Bearer ps_guess"}
    codes = [anonymous.client.get("/api/v1/me", headers=headers).status_code for _ in range(4)]
    assert codes == [401, 401, 401, 429]


def test_a_made_up_forwarded_for_does_not_escape_the_address_limit(low_rates):
    # No proxy in front (NUM_PROXIES 0, the default): the connection's address is the key, so a
    # client that sends a new X-Forwarded-For with each request still spends one budget.
    client = Client(REMOTE_ADDR="10.9.9.9")
    codes = [
        client.get("/api/v1/me/lists", headers={"X-Forwarded-For": f"192.0.2.{n}"}).status_code
        for n in range(4)
    ]
    assert codes == [401, 401, 401, 429]


def test_behind_one_proxy_the_address_it_saw_is_the_key(low_rates, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    proxy = Client(REMOTE_ADDR="127.0.0.1")

    def ask(forwarded_for: str) -> int:
        headers = {"X-Forwarded-For": forwarded_for}
        return proxy.get("/api/v1/me/lists", headers=headers).status_code

    # The proxy appends the address it saw; what the client wrote before it does not count.
    codes = [ask(f"198.51.100.{n}, 203.0.113.7") for n in range(4)]
    assert codes == [401, 401, 401, 429]
    # Another reader behind the same proxy has a budget of their own.
    assert ask("203.0.113.8") == 401
