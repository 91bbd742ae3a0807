"""The page keeps working whatever the server or arXiv's own scripts do."""

from __future__ import annotations

import json
import socket
import time

import pytest

from papers.apis import PaperLookupApi
from tests.extension import data
from tests.extension.support import fixture_html

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ABS = "abs_0906.5132_newstyle_with_html_link.html"
LISTING = "list_astro-ph.HE_new.html"
TITLE = "Recent developments in unconventional superconductivity theory"


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def state(page) -> str | None:
    return page.evaluate("document.documentElement.dataset.paperscope")


def test_chips_survive_mathjax_and_re_rendered_entries(extension, arxiv, topics):
    html = fixture_html(LISTING)
    data.tagged_papers_bulk(
        ["2303.00765", "2303.00898", "2303.00924"],
        [(topics["kilonovae"], 0.8)],
    )
    page = extension.context.new_page()
    page.goto(arxiv.serve("/list/astro-ph.HE/new", html))
    page.wait_for_function("document.documentElement.dataset.paperscope", timeout=20000)
    page.wait_for_selector(".paperscope-chip")
    entries = page.locator("dl dt").count()
    assert page.locator(".paperscope-bar").count() == entries
    # MathJax 2 typesets inside .mathjax elements: spans plus a script[type="math/tex"].
    page.evaluate(
        """() => document.querySelectorAll('.mathjax').forEach((node) => {
             const span = document.createElement('span');
             span.className = 'MathJax';
             span.textContent = 'x²';
             const tex = document.createElement('script');
             tex.type = 'math/tex';
             tex.textContent = 'x^2';
             node.append(span, tex);
           })"""
    )
    # arXiv's scripts re-render the first three entries' metadata without our chips.
    page.evaluate(
        """() => [...document.querySelectorAll('dd div.meta')].slice(0, 3).forEach((meta) => {
             const fresh = meta.cloneNode(true);
             fresh.querySelectorAll('.paperscope-bar').forEach((bar) => bar.remove());
             meta.replaceWith(fresh);
           })"""
    )
    page.wait_for_function(
        f"document.querySelectorAll('.paperscope-bar').length === {entries}", timeout=5000
    )
    page.wait_for_timeout(500)
    assert page.locator(".paperscope-bar").count() == entries
    first = page.locator("dd").first.locator(".paperscope-chip")
    assert first.all_text_contents() == ["Kilonovae & r-process"]


def test_a_server_that_is_down_leaves_the_page_alone_and_is_tried_again(
    extension, arxiv, topics, live_server
):
    data.tagged_paper("0906.5132", [(topics["gnn"], 0.9)])
    extension.set_storage({"server": closed_port_url()})
    page = extension.context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(error))
    page.goto(arxiv.serve("/abs/0906.5132", fixture_html(ABS)))
    page.wait_for_function("document.documentElement.dataset.paperscope === 'error'", timeout=20000)
    assert page.text_content(".paperscope-status--error") == "Paperscope unavailable"
    assert TITLE in page.text_content("h1.title")
    assert page.locator(".paperscope-save").count() == 1
    # The server comes back: the page's next retry fills the chips in.
    extension.set_storage({"server": live_server.url})
    page.wait_for_selector(".paperscope-chip", timeout=20000)
    assert errors == []


def test_a_listing_reports_an_outage_once_not_per_entry(extension, arxiv):
    extension.set_storage({"server": closed_port_url()})
    page = extension.context.new_page()
    page.goto(arxiv.serve("/list/astro-ph.HE/new", fixture_html(LISTING)))
    page.wait_for_function("document.documentElement.dataset.paperscope === 'error'", timeout=20000)
    assert "server unreachable" in page.text_content(".paperscope-toolbar-status")
    assert page.locator(".paperscope-status").count() == 0
    saves = page.locator("dd .paperscope-bar > .paperscope-save")
    assert saves.count() == page.locator("dl dt").count()


def test_a_slow_server_never_blocks_the_page(extension, arxiv, topics, monkeypatch):
    data.tagged_paper("0906.5132", [(topics["gnn"], 0.9)])
    original = PaperLookupApi.post

    def slow(self, request):
        time.sleep(3)
        return original(self, request)

    monkeypatch.setattr(PaperLookupApi, "post", slow)
    page = extension.context.new_page()
    started = time.monotonic()
    page.goto(arxiv.serve("/abs/0906.5132", fixture_html(ABS)))
    assert time.monotonic() - started < 3
    assert state(page) == "loading"
    page.click("#abs a.abs-button, a.download-pdf", trial=True)
    page.wait_for_selector(".paperscope-chip", timeout=20000)
    assert time.monotonic() - started >= 3


GARBAGE = {
    "html": (200, "text/html", "<html><body>Bad gateway</body></html>"),
    "wrong-shape": (200, "application/json", json.dumps({"papers": "nope", "pending": 3})),
    "server-error": (500, "text/html", "<h1>Server Error (500)</h1>"),
    "bad-tags": (
        200,
        "application/json",
        json.dumps(
            {
                "papers": [
                    {
                        "arxiv_id": "0906.5132",
                        "tags": [{"name": 5}, "x", {"slug": "ok", "name": "Fine topic"}],
                    }
                ],
                "pending": None,
            }
        ),
    ),
}


@pytest.mark.parametrize("kind", GARBAGE)
def test_garbage_from_the_server_never_breaks_the_page(extension, arxiv, live_server, kind):
    status, content_type, body = GARBAGE[kind]
    extension.context.route(
        f"{live_server.url}/api/v1/papers/lookup",
        lambda route: route.fulfill(status=status, content_type=content_type, body=body),
    )
    page = extension.context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(error))
    page.goto(arxiv.serve("/abs/0906.5132", fixture_html(ABS)))
    page.wait_for_function(
        "['error', 'ready', 'pending'].includes(document.documentElement.dataset.paperscope)",
        timeout=20000,
    )
    assert TITLE in page.text_content("h1.title")
    if kind == "bad-tags":
        assert page.locator(".paperscope-chip").all_text_contents() == ["Fine topic"]
    else:
        assert state(page) == "error"
        assert page.locator(".paperscope-chip").count() == 0
    assert errors == []
