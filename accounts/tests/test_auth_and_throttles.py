"""Findings 1 and 6: only session and Bearer token authentication anywhere (no HTTP Basic, which
ran on every public view outside the throttles and the sign-in brake), failed credentials are
throttled per address on public views too, and the throttles hold under parallel requests."""

from __future__ import annotations

import base64
import importlib.util
import threading
import time

import pytest
from django.core.cache import caches
from django.test import Client, RequestFactory
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.authentication import SessionAuthentication
from rest_framework.request import Request
from rest_framework.views import APIView

from accounts.authentication import BearerTokenAuthentication
from accounts.forms import LOGIN_FAILURES_ALLOWED
from accounts.tests.factories import PASSWORD
from accounts.throttling import AddressThrottle
from papers.apis import PaperLookupApi

pytestmark = pytest.mark.django_db


def _basic(username: str, password: str) -> dict:
    raw = base64.b64encode(f"{username}:{password}".encode()).decode()
    return {"Authorization": f"Basic {raw}"}


def _api_views(resolver: URLResolver | None = None):
    for pattern in (resolver or get_resolver()).url_patterns:
        if isinstance(pattern, URLResolver):
            yield from _api_views(pattern)
        elif isinstance(pattern, URLPattern):
            view_class = getattr(pattern.callback, "cls", None)
            if isinstance(view_class, type) and issubclass(view_class, APIView):
                yield view_class


# --- finding 1: no HTTP Basic --------------------------------------------------------------


def test_every_api_view_takes_only_a_session_or_a_bearer_token():
    views = set(_api_views())
    assert len(views) > 30
    allowed = {BearerTokenAuthentication, SessionAuthentication}
    offenders = {
        view.__name__: [type(a).__name__ for a in view().get_authenticators()]
        for view in views
        if {type(a) for a in view().get_authenticators()} - allowed
    }
    assert offenders == {}


def test_the_right_password_over_basic_does_not_sign_in(owner):
    response = Client().get("/api/v1/me", headers=_basic("owner", PASSWORD))
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_wrong_basic_passwords_on_a_public_view_are_throttled(low_rates, owner):
    client = Client(REMOTE_ADDR="10.7.7.7")
    codes = [
        client.post(
            "/api/v1/papers/lookup",
            {"ids": ["2501.00001"]},
            content_type="application/json",
            headers=_basic("owner", f"guess{n}"),
        ).status_code
        for n in range(4)
    ]
    # Basic is not a way in: the guesses are anonymous requests, and spend that budget.
    assert codes == [200, 200, 200, 429]


def test_bad_bearer_tokens_on_a_public_view_are_throttled(low_rates):
    client = Client(REMOTE_ADDR="10.7.7.8", headers={"Authorization": "Bearer ps_guess"})
    codes = [client.get("/api/v1/papers/2501.00001").status_code for _ in range(4)]
    assert codes == [401, 401, 401, 429]


def _user_on_a_public_view(headers: dict):
    view = PaperLookupApi()
    raw = RequestFactory().post("/api/v1/papers/lookup", headers=headers)
    return view.initialize_request(raw).user


def test_the_right_password_over_basic_is_nobody_on_public_views(owner):
    assert not _user_on_a_public_view(_basic("owner", PASSWORD)).is_authenticated


def test_someone_locked_out_of_the_form_cannot_get_in_over_basic(owner):
    client = Client(REMOTE_ADDR="10.7.7.9")
    for _ in range(LOGIN_FAILURES_ALLOWED):
        client.post("/accounts/login/", {"username": "owner", "password": "wrong"})
    locked = client.post("/accounts/login/", {"username": "owner", "password": PASSWORD})
    assert "_auth_user_id" not in client.session
    assert b"Too many failed sign-in attempts" in locked.content

    assert client.get("/api/v1/me", headers=_basic("owner", PASSWORD)).status_code == 401
    assert not _user_on_a_public_view(_basic("owner", PASSWORD)).is_authenticated


# --- finding 6: throttles that hold under parallel requests -----------------------------------


class _SlowCache:
    """The test cache with a network round trip's delay on every call, as Redis has: lets
    threads interleave between a read and the write that follows it."""

    def __init__(self, inner) -> None:
        self._inner = inner

    def __getattr__(self, name):
        attribute = getattr(self._inner, name)
        if not callable(attribute):
            return attribute

        def slow(*args, **kwargs):
            time.sleep(0.002)
            return attribute(*args, **kwargs)

        return slow


def _hammer(throttles, *, threads: int, each: int) -> int:
    """How many of threads x each anonymous requests from one address all throttles let pass."""
    factory = RequestFactory()
    passed = []
    barrier = threading.Barrier(threads)

    def worker():
        barrier.wait()
        for _ in range(each):
            request = Request(factory.post("/api/v1/papers/lookup", REMOTE_ADDR="10.8.8.8"))
            request.user  # noqa: B018 - anonymous, as DRF sets it before throttling
            if all(t.allow_request(request, None) for t in throttles()):
                passed.append(1)

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    return len(passed)


def test_the_public_throttle_holds_under_parallel_requests(settings, monkeypatch):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"user": "1200/min", "anon": "20/min"},
    }
    slow = _SlowCache(caches["default"])
    monkeypatch.setattr("django.core.cache.cache", slow)
    for throttle_class in PaperLookupApi.throttle_classes:
        monkeypatch.setattr(throttle_class, "cache", slow, raising=False)
    if importlib.util.find_spec("accounts.ratelimit"):
        monkeypatch.setattr("accounts.ratelimit.cache", slow)

    passed = _hammer(lambda: PaperLookupApi().get_throttles(), threads=8, each=10)

    assert passed == 20


def test_the_address_throttle_holds_under_parallel_requests(settings, monkeypatch):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"user": "1200/min", "anon": "20/min"},
    }
    slow = _SlowCache(caches["default"])
    monkeypatch.setattr(AddressThrottle, "cache", slow, raising=False)
    if importlib.util.find_spec("accounts.ratelimit"):
        monkeypatch.setattr("accounts.ratelimit.cache", slow)

    passed = _hammer(lambda: [AddressThrottle()], threads=8, each=10)

    assert passed == 20
