"""Debian's Chromium as every browser test starts it, and what each test watches on a page.

The `playwright` package from PyPI drives /usr/bin/chromium (never `playwright install`: the
browser downloads fail on these machines). The flags keep Chromium off the closed network: without
the background-networking ones it keeps trying Google's hosts.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

CHROMIUM = Path(shutil.which("chromium") or "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
CSP_VIOLATION = "Content Security Policy"


def require_chromium() -> Path:
    if not CHROMIUM.exists():
        pytest.skip(
            "Debian's chromium is not installed: "
            "apt-get install -y --no-install-recommends chromium"
        )
    return CHROMIUM


def launch(playwright_instance):
    return playwright_instance.chromium.launch(
        executable_path=str(require_chromium()), headless=True, args=CHROMIUM_ARGS
    )


def watch(page):
    """Record what must never happen on our pages: JavaScript errors (page.errors) and anything
    the Content-Security-Policy blocked (page.csp_violations, from Chromium's console)."""
    page.errors = []
    page.csp_violations = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))

    def on_console(message):
        if message.type == "error" and CSP_VIOLATION in message.text:
            page.csp_violations.append(message.text)

    page.on("console", on_console)
    return page


def watch_strictly(page, base_url: str):
    """watch(), plus every console error (page.console_errors) and every request of our own
    origin that failed or answered 4xx/5xx (page.failed_requests): a journey must have none."""
    watch(page)
    page.console_errors = []
    page.failed_requests = []

    def on_console(message):
        if message.type == "error":
            page.console_errors.append(message.text)

    def on_response(response):
        if response.url.startswith(base_url) and response.status >= 400:
            page.failed_requests.append(f"{response.status} {response.url}")

    def on_failed(request):
        page.failed_requests.append(f"failed {request.url}: {request.failure}")

    page.on("console", on_console)
    page.on("response", on_response)
    page.on("requestfailed", on_failed)
    return page
