"""Browser tests: Debian's Chromium driven by the `playwright` package (never `playwright install`).

Run with `pytest -m browser`. Needs /usr/bin/chromium
(`apt-get install -y --no-install-recommends chromium`); skipped with a message when it is missing.
Screenshots go to test-artifacts/ at the repository root.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.chromium import ARTIFACTS, watch

# Playwright's sync API runs an event loop in this thread; Django refuses database calls from a
# thread with a running loop unless told that this is deliberate.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(scope="session")
def browser(chromium):
    return chromium


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture
def open_page(browser, live_server):
    """A function that opens a path of the live server in a fresh browser context and records
    JavaScript errors and Content-Security-Policy violations on it; a test that ends with any
    violation fails."""
    contexts = []
    pages = []

    def opener(path: str, *, width: int = 1280, height: int = 900, color_scheme: str = "light"):
        context = browser.new_context(
            viewport={"width": width, "height": height},
            color_scheme=color_scheme,
            reduced_motion="reduce",
        )
        contexts.append(context)
        page = watch(context.new_page())
        pages.append(page)
        page.goto(f"{live_server.url}{path}")
        return page

    yield opener
    for context in contexts:
        context.close()
    assert [v for page in pages for v in page.csp_violations] == []
