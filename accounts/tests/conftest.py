"""The three-person cast (owner, other, anonymous) and clients for both ways in: a session with
CSRF enforced, and a Bearer token. Tests run against accounts.tests.urls (the site plus this app),
and on-demand fetches are recorded instead of queued."""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from types import SimpleNamespace

import pytest
from django.test import Client

from accounts import throttling
from accounts.tests.digests_support import flaky  # noqa: F401  (a fixture for the digest tests)
from accounts.tests.factories import api_token
from papers.services import lookup


@pytest.fixture
def low_rates(settings, monkeypatch):
    """API rates a test can reach (5 a minute signed in, 3 anonymous), and the throttles' clock
    held still: their windows are fixed, aligned to the minute, so requests that straddled a
    minute's end would start a new count and a fourth guess would pass (seen once in CI)."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"user": "5/min", "anon": "3/min"},
    }
    now = time.time()
    monkeypatch.setattr(throttling, "time", SimpleNamespace(time=lambda: now))


@pytest.fixture(autouse=True)
def _accounts_urls(settings):
    settings.ROOT_URLCONF = "accounts.tests.urls"


@pytest.fixture(autouse=True)
def pending(monkeypatch) -> list[str]:
    """Ids passed to papers.services.lookup.pending_register, in order (no task is queued)."""
    calls: list[str] = []
    monkeypatch.setattr(lookup, "pending_register", lambda *, arxiv_ids: calls.extend(arxiv_ids))
    return calls


@dataclass
class Actor:
    """Someone calling the API: a user (None for anonymous) with a client that carries their
    credentials. `api` sends JSON and returns the response."""

    user: object
    client: Client
    kind: str  # "session", "token" or "anonymous"
    token: object = None

    def api(self, method: str, url: str, body=None, **headers):
        kwargs = {"headers": headers} if headers else {}
        if body is not None and method.lower() != "get":
            kwargs["data"] = json.dumps(body)
            kwargs["content_type"] = "application/json"
        return getattr(self.client, method.lower())(url, **kwargs)


def session_client(user) -> Client:
    """A signed-in browser: CSRF is enforced, and the client sends the token like a page would."""
    secret = secrets.token_hex(16)  # 32 characters, the length of Django's CSRF secret
    client = Client(enforce_csrf_checks=True, headers={"X-CSRFToken": secret})
    client.force_login(user)
    client.cookies["csrftoken"] = secret
    return client


def token_client(raw: str) -> Client:
    return Client(enforce_csrf_checks=True, headers={"Authorization": f"Bearer {raw}"})


@pytest.fixture
def anonymous() -> Actor:
    return Actor(user=None, client=Client(enforce_csrf_checks=True), kind="anonymous")


def as_session(user) -> Actor:
    return Actor(user=user, client=session_client(user), kind="session")


def as_token(user, scopes=None) -> Actor:
    kwargs = {} if scopes is None else {"scopes": scopes}
    token, raw = api_token(user, **kwargs)
    return Actor(user=user, client=token_client(raw), kind="token", token=token)


@pytest.fixture(params=["session", "token"])
def me(request, owner) -> Actor:
    """The owner, once through a session and once through a token with every scope."""
    return as_session(owner) if request.param == "session" else as_token(owner)


@pytest.fixture
def owner_session(owner) -> Actor:
    return as_session(owner)


@pytest.fixture
def owner_token(owner) -> Actor:
    return as_token(owner)


@dataclass
class Scene:
    """The owner's things that other people must not reach."""

    default_list: object
    later: object  # a second, deletable list
    item_id: str  # arXiv id saved in `later`
    topic: object  # followed by the owner
    hidden_id: str  # hidden from the owner's feed
    token: object  # one of the owner's tokens


@pytest.fixture
def scene(owner) -> Scene:
    from accounts.models import ListItem
    from accounts.services import follows, lists
    from papers.tests.factories import paper_create
    from topics.tests.factories import topic_create

    topic = topic_create("offline-rl", name="Offline RL")
    paper = paper_create("2501.00001", topics=[topic])
    hidden = paper_create("2501.00002", topics=[topic])
    later = lists.reading_list_create(user=owner, name="Later")
    lists.list_item_save(user=owner, list_id=later.pk, arxiv_id=paper.arxiv_id, note="owner's note")
    follows.follow_create(user=owner, topic_slug=topic.slug)
    follows.hidden_create(user=owner, arxiv_id=hidden.arxiv_id)
    token, _ = api_token(owner, name="owner's laptop")
    assert ListItem.objects.filter(reading_list=later).count() == 1
    return Scene(
        default_list=lists.reading_list_default(user=owner),
        later=later,
        item_id=paper.arxiv_id,
        topic=topic,
        hidden_id=hidden.arxiv_id,
        token=token,
    )
