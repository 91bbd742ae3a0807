"""Fixtures of the extension's end-to-end tests: Debian's Chromium with the unpacked extension,
arxiv.org served from fixtures, and a live Django server holding the papers and topics."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.extension.support import CHROMIUM, ArxivSite, Extension, launch

# Playwright's sync API runs an event loop in this thread; the ORM calls the tests make around it
# are still plain synchronous calls.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config, items):  # noqa: ARG001
    if Path(CHROMIUM).exists():
        return
    skip = pytest.mark.skip(reason=f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    for item in items:
        if item.path.is_relative_to(HERE) and item.path.name != "test_firefox.py":
            item.add_marker(skip)


@pytest.fixture(scope="session")
def playwright(playwright_instance):
    """The session's one Playwright driver (root conftest). Ids the server does not know stay
    pending here: the test settings turn on-demand fetching off (ARXIV_FETCH_ON_DEMAND)."""
    return playwright_instance


@pytest.fixture
def arxiv():
    return ArxivSite()


@pytest.fixture
def extension(playwright, tmp_path, arxiv, live_server):
    context, worker = launch(playwright, tmp_path / "profile", arxiv)
    ext = Extension(context, worker)
    ext.set_storage({"server": live_server.url})
    yield ext
    context.close()


@pytest.fixture
def topics():
    from tests.extension.data import taxonomy

    return taxonomy()


@pytest.fixture
def personal(extension):
    """A connected user: waits for the accounts API (GET /api/v1/me) to be routed."""
    from django.urls import NoReverseMatch, reverse

    try:
        reverse("api-me")
    except NoReverseMatch:
        pytest.skip("waits for the accounts API: /api/v1/me is not routed yet")
    from tests.extension.data import user_with_token

    user, token, default_list = user_with_token()
    extension.set_token(token)
    extension.set_storage({"authState": "ok"})
    return user, token, default_list
