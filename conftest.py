"""Fixtures every test shares. Test-specific ones live in each app's tests/conftest.py."""

from __future__ import annotations

import os

import pytest

SERVICES = os.environ.get("PAPERSCOPE_TEST_SERVICES") == "1"


# Test modules that start processes of their own (servers, workers, `make run`): with the
# browser and services tests they are "slow", which `make test-fast` leaves out.
SLOW_MODULES = {
    "tests/test_celery_worker.py",
    "tests/test_deployment.py",
    "tests/test_env.py",
    "tests/test_make_run.py",
    "tests/test_production.py",
}


def pytest_collection_modifyitems(config, items):  # noqa: ARG001
    for item in items:
        path = item.nodeid.split("::")[0]
        if (
            path in SLOW_MODULES
            or path.startswith("tests/faults/")
            or ("browser" in item.keywords or "services" in item.keywords)
        ):
            item.add_marker(pytest.mark.slow)
    # Tests that need the real PostgreSQL + Redis run in CI's second pass (and wherever
    # PAPERSCOPE_TEST_SERVICES=1 with DATABASE_URL and REDIS_URL set); the first pass is SQLite.
    if SERVICES:
        return
    skip = pytest.mark.skip(reason="needs PostgreSQL + Redis: set PAPERSCOPE_TEST_SERVICES=1")
    for item in items:
        if "services" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _clear_cache():
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture(scope="session")
def playwright_instance():
    """One Playwright driver for the whole session: the sync API allows only one event loop per
    thread, so every browser test (pages, accounts, extension) launches its browser from this."""
    sync_api = pytest.importorskip("playwright.sync_api")
    manager = sync_api.sync_playwright().start()
    yield manager
    manager.stop()


@pytest.fixture(scope="session")
def chromium(playwright_instance):
    """Headless Debian Chromium for the page tests, one for the whole run (each test opens its
    own context); tests/chromium.py has the flags."""
    from tests.chromium import launch

    browser = launch(playwright_instance)
    yield browser
    browser.close()


# --- people: the owner of the things under test, and someone else -----------------------------
@pytest.fixture
def owner(db):
    from accounts.tests.factories import user_create

    return user_create("owner")


@pytest.fixture
def other(db):
    """Another person: a stranger to the owner's lists, follows and tokens."""
    from accounts.tests.factories import user_create

    return user_create("other")
