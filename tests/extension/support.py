"""Launching Chromium with the unpacked extension, serving arxiv.org from fixtures, and the
service worker's side of a test (storage, badge, alarms)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.chromium import CHROMIUM, CHROMIUM_ARGS

REPO = Path(__file__).resolve().parents[2]
EXTENSION_DIR = REPO / "extension"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
# Pinned by the manifest's "key": the id is the same in every checkout.
EXTENSION_ID = "nibgohbmbffejdblhhpadfmpmedihbnm"
EXTENSION_ARGS = [
    f"--disable-extensions-except={EXTENSION_DIR}",
    f"--load-extension={EXTENSION_DIR}",
    *CHROMIUM_ARGS,
]
# Anything not on this machine is refused at once (the fixtures name CDNs and arXiv's static host).
OUTSIDE = re.compile(r"^https?://(?!(127\.0\.0\.1|localhost|arxiv\.org)[:/]).*")
STATIC_STUBS = {
    "mathjaxToggle.min.js": "window.mathjaxToggle = function () {};",
}


def fixture_html(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


class ArxivSite:
    """arxiv.org as the browser sees it: pages registered by path, static files stubbed."""

    def __init__(self):
        self.pages: dict[str, str] = {}

    def serve(self, path: str, html: str) -> str:
        self.pages[path] = html
        return f"https://arxiv.org{path}"

    def handle(self, route):
        url = route.request.url
        path = "/" + url.split("/", 3)[3] if url.count("/") >= 3 else "/"
        page = self.pages.get(path) or self.pages.get(path.split("?")[0])
        if page is not None:
            route.fulfill(status=200, content_type="text/html; charset=utf-8", body=page)
        elif path.startswith("/static/"):
            name = path.rsplit("/", 1)[-1].split("?")[0]
            kind = "text/css" if name.endswith(".css") else "application/javascript"
            route.fulfill(status=200, content_type=kind, body=STATIC_STUBS.get(name, ""))
        else:
            route.fulfill(status=404, content_type="text/plain", body="not in the fixtures")


def launch(playwright, profile_dir: Path, site: ArxivSite, extension_dir: Path = EXTENSION_DIR):
    """Chromium with the unpacked extension of extension_dir (another build: a benchmark's
    side-by-side comparison)."""
    args = EXTENSION_ARGS
    if extension_dir != EXTENSION_DIR:
        args = [
            f"--disable-extensions-except={extension_dir}",
            f"--load-extension={extension_dir}",
            *CHROMIUM_ARGS,
        ]
    context = playwright.chromium.launch_persistent_context(
        str(profile_dir), executable_path=str(CHROMIUM), headless=True, args=args
    )
    context.route("https://arxiv.org/**", site.handle)
    context.route(OUTSIDE, lambda route: route.abort("internetdisconnected"))
    worker = (
        context.service_workers[0]
        if context.service_workers
        else context.wait_for_event("serviceworker", timeout=15000)
    )
    return context, worker


class Extension:
    """The running extension: its service worker, storage and toolbar badge."""

    def __init__(self, context, worker):
        self.context = context
        self.worker = worker
        self.id = worker.url.split("/")[2]

    def storage(self, *keys):
        return self.worker.evaluate("(keys) => chrome.storage.local.get(keys)", list(keys))

    def set_storage(self, values: dict):
        self.worker.evaluate("(values) => chrome.storage.local.set(values)", values)

    def token(self):
        """The API token as the service worker keeps it (session storage, never local)."""
        return self.worker.evaluate("() => chrome.storage.session.get('token')").get("token")

    def set_token(self, token):
        if token is None:
            self.worker.evaluate("() => chrome.storage.session.remove('token')")
        else:
            self.worker.evaluate("(token) => chrome.storage.session.set({token})", token)

    def badge(self) -> str:
        return self.worker.evaluate("() => chrome.action.getBadgeText({})")

    def fire_alarm(self, name: str):
        # Unpacked extensions may set alarms closer than Chrome's 30 s minimum.
        self.worker.evaluate("(name) => chrome.alarms.create(name, {when: Date.now() + 50})", name)

    def page_url(self, path: str) -> str:
        return f"chrome-extension://{self.id}/{path}"
