"""Fixtures every test shares. Test-specific ones live in each app's tests/conftest.py."""

from __future__ import annotations

import os

import pytest

SERVICES = os.environ.get("PAPERSCOPE_TEST_SERVICES") == "1"


def pytest_collection_modifyitems(config, items):  # noqa: ARG001
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
