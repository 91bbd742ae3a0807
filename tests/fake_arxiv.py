"""A fake arXiv on a real socket: OAI-PMH, RSS and the query API served from recorded responses
in papers/tests/fixtures, every request recorded, and faults injected on demand.

    with FakeArxiv() as arxiv:
        arxiv.inject("503", "timeout")          # the next two requests fail, then normal service
        OaiClient(http, arxiv.oai_url) ...
        assert arxiv.requests[0].headers["user-agent"].startswith("Paperscope/")

Faults (one per request, in order; ``route=`` limits them to one of "oai", "rss", "api"):
  "503"           the recorded 503 with ``Retry-After: 10`` (and its HTML body)
  "429"           429 with ``Retry-After: 5``
  "500"           a bare 500
  "status:<n>"    any other status, empty body
  "timeout"       answer only after ``stall_seconds`` (past the client's timeout)
  "reset"         close the connection with a TCP reset before answering
  "truncate"      announce the full Content-Length, send half the body, close
  "bad_token"     the recorded OAI-PMH badResumptionToken error (HTTP 200)
  "broken_record" the normal answer with the XML of its second record/item/entry broken
"""

from __future__ import annotations

import contextlib
import gzip
import re
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from lxml import etree

from tests.local_server import LocalServer

FIXTURES = Path(__file__).resolve().parent.parent / "papers" / "tests" / "fixtures"


def read_fixture(name: str) -> bytes:
    """Bytes of papers/tests/fixtures/<name>, gunzipped when the file is ``.gz``."""
    path = FIXTURES / name
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def break_record(body: bytes, index: int = 1) -> bytes:
    """Break the XML of one record/item/entry (the second by default): its ``</title>`` becomes
    ``</titel>``, a mismatched tag, so the document is no longer well-formed."""
    starts = [m.start() for m in re.finditer(rb"<(?:record|item|entry)[\s>]", body)]
    start = starts[index]
    at = body.index(b"</title>", start)
    return body[:at] + b"</titel>" + body[at + len(b"</title>") :]


OAI_FIRST_PAGES = {  # (metadataPrefix, from) -> first page; None matches any "from"
    ("arXivRaw", "2014-10-01"): "oai/oai_2015_listrecords_arXivRaw_from_2014-10-01_truncated.xml",
    ("arXivRaw", None): "oai/derived_oai_2016_listrecords_page1of2.xml.gz",
    ("arXiv", None): "oai/oai_2018_listrecords_arXiv_2015-01-01_2015-01-03.xml",
}
OAI_TOKENS = {"1403493|201": "oai/derived_oai_2016_listrecords_page2of2.xml.gz"}
OAI_RECORDS = {
    ("arXivRaw", "oai:arXiv.org:1302.2146"): "oai/oai_2015_getrecord_arXivRaw_1302.2146.xml",
    ("arXivRaw", "oai:arXiv.org:0804.2273"): "oai/oai_2016_getrecord_arXivRaw_0804.2273.xml",
    ("arXiv", "oai:arXiv.org:1412.8544"): "oai/oai_2018_getrecord_arXiv_1412.8544.xml",
}
RSS_FEEDS = {
    "cs.LG": "rss/luvata_2024-06-01-cs-lg.xml.gz",
    "cs.AI": "rss/luvata_2024-06-01-cs-ai.xml.gz",
    "cs.CL": "rss/luvata_2024-06-01-cs-cl.xml.gz",
    "cs.CV": "rss/luvata_2024-06-01-cs-cv.xml.gz",
    "physics": "rss/rss_2025-12-31_physics_empty.xml",
}
_API_ID = re.compile(r"(?:[a-z-]+(?:\.[A-Z]{2})?/\d{7}|\d{4}\.\d{4,5})(?:v\d+)?")
_ATOM = "{http://www.w3.org/2005/Atom}"


@dataclass(frozen=True)
class RecordedRequest:
    at: float  # time.monotonic() when the request line arrived
    path: str  # as sent, with the query string: "/oai?verb=ListRecords&from=2016-10-20&..."
    query: dict[str, list[str]]  # the query string, parsed
    headers: dict[str, str]  # lower-case names
    fault: str | None


@dataclass
class _Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/xml; charset=utf-8"


class FakeArxiv(LocalServer):
    """The fake server; a context manager that listens on 127.0.0.1 at a free port."""

    def __init__(self, *, stall_seconds: float = 3.0, gzip_responses: bool = True) -> None:
        super().__init__(_Handler)
        self.stall_seconds = stall_seconds
        self.gzip_responses = gzip_responses
        self.rss_feeds = dict(RSS_FEEDS)
        # Ids the query API answers with its HTTP 400 error feed, like it does for "abc".
        self.api_rejects: set[str] = set()
        self.requests: list[RecordedRequest] = []
        self._faults: deque[tuple[str, str | None]] = deque()
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return self.root_url

    @property
    def oai_url(self) -> str:
        return f"{self.url}/oai"

    @property
    def rss_url(self) -> str:
        return f"{self.url}/rss"

    @property
    def api_url(self) -> str:
        return f"{self.url}/api/query"

    # --- faults ---------------------------------------------------------------------------------
    def inject(self, *faults: str, route: str | None = None) -> None:
        """Queue faults for the next requests (to ``route`` only, when given)."""
        with self._lock:
            self._faults.extend((f, route) for f in faults)

    def _take_fault(self, route: str) -> str | None:
        with self._lock:
            for i, (fault, wanted) in enumerate(self._faults):
                if wanted is None or wanted == route:
                    del self._faults[i]
                    return fault
        return None

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    # --- routes ---------------------------------------------------------------------------------
    def reply(self, path: str, query: dict[str, list[str]]) -> _Reply:
        if path == "/oai":
            return self._oai(query)
        if path.startswith("/rss/"):
            name = self.rss_feeds.get(unquote(path[len("/rss/") :]))
            if name is None:
                return _Reply(404, b"unknown feed", content_type="text/plain")
            return _Reply(body=read_fixture(name), content_type="application/rss+xml")
        if path == "/api/query":
            return self._api(query)
        return _Reply(404, b"not found", content_type="text/plain")

    def _oai(self, query: dict[str, list[str]]) -> _Reply:
        def arg(name: str) -> str | None:
            return query.get(name, [None])[0]

        verb = arg("verb")
        if verb == "ListRecords":
            token = arg("resumptionToken")
            if token is not None:
                name = OAI_TOKENS.get(token, "oai/oai_2015_error_badResumptionToken.xml")
            else:
                prefix = arg("metadataPrefix")
                name = OAI_FIRST_PAGES.get((prefix, arg("from"))) or OAI_FIRST_PAGES.get(
                    (prefix, None), "oai/oai_2015_error_badArgument.xml"
                )
        elif verb == "GetRecord":
            key = (arg("metadataPrefix"), arg("identifier"))
            name = OAI_RECORDS.get(key, "oai/oai_2015_error_idDoesNotExist.xml")
        else:
            name = "oai/oai_2015_error_badVerb.xml"
        return _Reply(body=read_fixture(name))

    def _api(self, query: dict[str, list[str]]) -> _Reply:
        ids = [i for i in query.get("id_list", [""])[0].split(",") if i]
        if not all(_API_ID.fullmatch(i) and i not in self.api_rejects for i in ids):
            return _Reply(400, read_fixture("atom/api_2026_id_abc_s0_m100.xml"))
        feed = etree.fromstring(read_fixture("atom/api_2026_id_0000.0000_s0_m100.xml"))
        for arxiv_id in ids:
            feed.extend(_entries_for(arxiv_id))
        total = feed.find("{http://a9.com/-/spec/opensearch/1.1/}totalResults")
        total.text = str(len(feed.findall(f"{_ATOM}entry")))
        return _Reply(body=etree.tostring(feed, xml_declaration=True, encoding="UTF-8"))


def _entries_for(arxiv_id: str) -> list[etree._Element]:
    """The entries the recorded single-id answers hold for this id (with or without version)."""
    bare = re.sub(r"v\d+$", "", arxiv_id).replace("/", "_")
    for name in (
        f"api_2026_id_{arxiv_id.replace('/', '_')}_s0_m100.xml",
        f"api_2026_id_{bare}_s0_m100.xml",
    ):
        if (FIXTURES / "atom" / name).exists():
            return etree.fromstring(read_fixture(f"atom/{name}")).findall(f"{_ATOM}entry")
    return []


class _Handler(BaseHTTPRequestHandler):
    fake: FakeArxiv
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass  # keep test output clean

    def finish(self) -> None:
        # The client gave up (timeout fault) or we reset the connection ourselves.
        with contextlib.suppress(OSError):
            super().finish()

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        arrived = time.monotonic()
        parts = urlsplit(self.path)
        route = {"/oai": "oai", "/api/query": "api"}.get(parts.path, "rss")
        fault = self.fake._take_fault(route)
        query = parse_qs(parts.query)
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.fake._record(RecordedRequest(arrived, self.path, query, headers, fault))
        if fault == "reset":
            self._reset()
            return
        reply = self._faulty(fault) or self.fake.reply(parts.path, query)
        if fault == "broken_record":
            reply.body = break_record(reply.body)
        if fault == "timeout" and self.fake._stopping.wait(self.fake.stall_seconds):
            return
        self._send(reply, truncate=fault == "truncate")

    def _faulty(self, fault: str | None) -> _Reply | None:
        if fault == "503":
            return _Reply(503, _recorded_503_body(), _recorded_503_headers(), "text/html")
        if fault == "429":
            return _Reply(429, b"Too Many Requests", {"Retry-After": "5"}, "text/plain")
        if fault == "500":
            return _Reply(500, b"Internal Server Error", content_type="text/plain")
        if fault and fault.startswith("status:"):
            return _Reply(int(fault.split(":", 1)[1]), b"", content_type="text/plain")
        if fault == "bad_token":
            return _Reply(body=read_fixture("oai/oai_2015_error_badResumptionToken.xml"))
        return None

    def _send(self, reply: _Reply, *, truncate: bool) -> None:
        body = reply.body
        accepts_gzip = "gzip" in self.headers.get("Accept-Encoding", "")
        compressed = self.fake.gzip_responses and accepts_gzip and len(body) > 200
        if compressed:
            body = gzip.compress(body, 6)
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        if compressed:
            self.send_header("Content-Encoding", "gzip")
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.close_connection = True
        try:
            self.wfile.write(body[: len(body) // 2] if truncate else body)
            self.wfile.flush()
        except OSError:
            pass

    def _reset(self) -> None:
        # SO_LINGER with a zero timeout makes close() send RST instead of FIN.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        self.connection.close()


# The server sets its own Date, Server, framing and type headers.
_OWN_HEADERS = frozenset({"content-length", "connection", "content-type", "date", "server", ""})
_RECORDED_503 = "oai/oai_2018_listrecords_arXiv_2015-01-01_2015-01-03_http503"


def _recorded_503_headers() -> dict[str, str]:
    """The headers arXiv sent with its 503 (Retry-After: 10), minus the ones we set ourselves."""
    lines = read_fixture(f"{_RECORDED_503}_headers.txt")
    headers = {}
    for line in lines.decode().splitlines()[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() not in _OWN_HEADERS:
            headers[name.strip()] = value.strip()
    return headers


def _recorded_503_body() -> bytes:
    return read_fixture(f"{_RECORDED_503}_retry_after.html")


@pytest.fixture
def fake_arxiv() -> Iterator[FakeArxiv]:
    """A running FakeArxiv for one test."""
    with FakeArxiv() as server:
        yield server
