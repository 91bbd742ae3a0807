"""A fake OpenAlex on a real socket: ``/works?filter=doi:a|b|…`` answered in OpenAlex's documented
list format (meta + results, works with ``authorships`` and ``cited_by_count``), every request
recorded, and faults injected on demand.

    with FakeOpenAlex() as openalex:
        openalex.add_work("2503.00001", authors=[("Ada Lovelace", ["University of London"])])
        openalex.inject("429", "timeout")     # the next two requests fail, then normal service

Faults (one per request, in order):
  "429"          429 with ``Retry-After: 1`` and OpenAlex's JSON error body
  "403"          403, what OpenAlex answers a client that goes too fast
  "500"          a bare 500
  "timeout"      answer only after ``stall_seconds`` (past the client's timeout)
  "reset"        close the connection with a TCP reset before answering
  "garbage"      HTTP 200 with a body that is not JSON
Works it was not given are absent from its answers, as with the real one.
"""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import threading
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

from tests.local_server import LocalServer


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    fault: str | None

    @property
    def dois(self) -> list[str]:
        value = self.query.get("filter", [""])[0]
        return value.removeprefix("doi:").split("|") if value.startswith("doi:") else []


def work_json(arxiv_id: str, number: int, authors, cited_by_count: int) -> dict:
    """A work as OpenAlex returns it with ``select=id,doi,cited_by_count,authorships``."""
    authorships = []
    for position, (name, institutions) in enumerate(authors):
        authorships.append(
            {
                "author_position": "first" if position == 0 else "middle",
                "author": {
                    "id": f"https://openalex.org/A{5000000000 + number * 100 + position}",
                    "display_name": name,
                    "orcid": None,
                },
                "institutions": [
                    {
                        "id": f"https://openalex.org/I{100000 + len(inst) * 7 + i}",
                        "display_name": inst,
                        "ror": None,
                        "country_code": "GB",
                        "type": "education",
                        "lineage": [],
                    }
                    for i, inst in enumerate(institutions)
                ],
                "countries": ["GB"] if institutions else [],
                "is_corresponding": position == 0,
                "raw_author_name": name,
                "raw_affiliation_strings": list(institutions),
                "affiliations": [],
            }
        )
    return {
        "id": f"https://openalex.org/W{4390000000 + number}",
        # OpenAlex lower-cases DOIs.
        "doi": f"https://doi.org/10.48550/arxiv.{arxiv_id}".lower(),
        "cited_by_count": cited_by_count,
        "authorships": authorships,
    }


class FakeOpenAlex(LocalServer):
    def __init__(self, *, stall_seconds: float = 2.0) -> None:
        super().__init__(_Handler)
        self.stall_seconds = stall_seconds
        self.works: dict[str, dict] = {}  # by lower-cased DOI
        self.requests: list[RecordedRequest] = []
        self._faults: deque[str] = deque()
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return self.root_url

    def add_work(self, arxiv_id: str, *, authors, cited_by_count: int = 0) -> None:
        doi = f"10.48550/arxiv.{arxiv_id}".lower()
        self.works[doi] = work_json(arxiv_id, len(self.works) + 1, authors, cited_by_count)

    def inject(self, *faults: str) -> None:
        with self._lock:
            self._faults.extend(faults)

    def _take_fault(self) -> str | None:
        with self._lock:
            return self._faults.popleft() if self._faults else None

    def answer(self, query: dict[str, list[str]]) -> tuple[int, dict]:
        value = query.get("filter", [""])[0]
        if not value.startswith("doi:"):
            return 400, {"error": "Invalid query parameters error.", "message": "filter expected"}
        dois = [d.strip().lower() for d in value[4:].split("|")]
        if len(dois) > 100:
            return 400, {"error": "Invalid filter", "message": "Maximum of 100 OR values"}
        per_page = int(query.get("per-page", ["25"])[0])
        results = [self.works[d] for d in dict.fromkeys(dois) if d in self.works][:per_page]
        meta = {
            "count": len(results),
            "db_response_time_ms": 12,
            "page": 1,
            "per_page": per_page,
            "groups_count": None,
        }
        return 200, {"meta": meta, "results": results, "group_by": []}


class _Handler(BaseHTTPRequestHandler):
    fake: FakeOpenAlex
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass

    def finish(self) -> None:
        with contextlib.suppress(OSError):
            super().finish()

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        fault = self.fake._take_fault()
        headers = {k.lower(): v for k, v in self.headers.items()}
        with self.fake._lock:
            self.fake.requests.append(RecordedRequest(self.path, query, headers, fault))
        if fault == "reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            return
        if fault == "timeout" and self.fake._stopping.wait(self.fake.stall_seconds):
            return
        extra = {}
        if fault == "429":
            status, body = 429, {"error": "Rate limit exceeded", "message": "Too many requests"}
            extra["Retry-After"] = "1"
        elif fault == "403":
            status, body = 403, {"error": "Forbidden", "message": "Rate limit exceeded; slow down"}
        elif fault == "500":
            status, body = 500, {"error": "Internal server error"}
        elif parts.path != "/works":
            status, body = 404, {"error": "Not found"}
        else:
            status, body = self.fake.answer(query)
        data = b"<html>oops" if fault == "garbage" else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in extra.items():
            self.send_header(name, value)
        self.end_headers()
        with contextlib.suppress(OSError):
            self.wfile.write(data)
