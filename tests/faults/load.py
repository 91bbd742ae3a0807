"""Traffic for the outage tests: what the extension and scripts send, from a few threads.

Each thread loops over a paper lookup (two known ids and one we lack, which queues an on-demand
fetch), a paper read and a save of a new arXiv id to a reading list, all with a Bearer token;
another thread polls /healthz. Every answer is recorded with the time it was asked.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

import httpx


@dataclass(frozen=True)
class Answer:
    at: float  # time.monotonic() when the request was sent
    kind: str  # "lookup", "read", "save" or "healthz"
    status: int  # the HTTP status; 0 when no answer came (refused, reset, timed out)
    seconds: float
    arxiv_id: str = ""  # the id a save sent
    body: dict = field(default_factory=dict)  # /healthz only


class Traffic:
    """Start with ``with Traffic(...) as traffic:``; the answers are in ``traffic.answers``."""

    def __init__(
        self,
        base_url: str,
        *,
        token: str,
        list_id: int,
        known_ids: list[str],
        threads: int = 4,
        pause: float = 0.02,
    ) -> None:
        self.base_url = base_url
        self.headers = {"Authorization": f"Bearer {token}"}
        self.list_id = list_id
        self.known_ids = known_ids
        self.threads = threads
        self.pause = pause
        self.answers: list[Answer] = []  # list.append is atomic: the threads share it
        self._stop = threading.Event()
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()
        self._workers: list[threading.Thread] = []

    def __enter__(self) -> Traffic:
        for n in range(self.threads):
            self._workers.append(threading.Thread(target=self._requests, args=(n,), daemon=True))
        self._workers.append(threading.Thread(target=self._health, daemon=True))
        for worker in self._workers:
            worker.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        for worker in self._workers:
            worker.join(timeout=30)

    def _next_number(self) -> int:
        with self._lock:
            return next(self._numbers)

    def _ask(self, client: httpx.Client, kind: str, method: str, path: str, **kwargs) -> Answer:
        started = time.monotonic()
        try:
            response = client.request(method, path, **kwargs)
            status = response.status_code
            body = response.json() if kind == "healthz" else {}
        except (httpx.HTTPError, ValueError):
            status, body = 0, {}
        saved = kwargs.get("json", {}).get("arxiv_id", "") if kind == "save" else ""
        answer = Answer(started, kind, status, time.monotonic() - started, saved, body)
        self.answers.append(answer)
        return answer

    def _requests(self, n: int) -> None:
        known = itertools.cycle(self.known_ids[n::4] or self.known_ids)
        with httpx.Client(base_url=self.base_url, headers=self.headers, timeout=15) as client:
            while not self._stop.is_set():
                number = self._next_number()
                # Ids from 2612.* are well-formed and unknown to us and to the fake arXiv.
                unknown = f"2612.{number % 50 + 1:05d}"
                ids = [next(known), next(known), unknown]
                self._ask(client, "lookup", "POST", "/api/v1/papers/lookup", json={"ids": ids})
                self._ask(client, "read", "GET", f"/api/v1/papers/{next(known)}")
                # A new id every time, so that each acknowledged save can be found afterwards.
                new = {"arxiv_id": f"2611.{number:05d}"}
                self._ask(
                    client, "save", "POST", f"/api/v1/me/lists/{self.list_id}/items", json=new
                )
                self._stop.wait(self.pause)

    def _health(self) -> None:
        with httpx.Client(base_url=self.base_url, timeout=5) as client:
            while not self._stop.is_set():
                self._ask(client, "healthz", "GET", "/healthz")
                self._stop.wait(0.25)

    # --- reading the answers --------------------------------------------------------------------
    def between(self, start: float, end: float, kind: str | None = None) -> list[Answer]:
        """The answers to requests sent from start until end."""
        return [a for a in self.answers if start <= a.at < end and (kind is None or a.kind == kind)]

    def within(self, start: float, end: float, kind: str | None = None) -> list[Answer]:
        """The answers to requests sent after start and answered before end: what a check saw
        entirely inside one state of the service (a request sent just before a stop may be
        answered by the stopping service)."""
        return [a for a in self.between(start, end, kind) if a.at + a.seconds < end]

    def acknowledged_saves(self) -> set[str]:
        return {a.arxiv_id for a in self.answers if a.kind == "save" and 200 <= a.status < 300}

    def attempted_saves(self) -> set[str]:
        return {a.arxiv_id for a in self.answers if a.kind == "save"}


def summary(answers: list[Answer]) -> str:
    """'812 requests (lookup 271, read 271, save 270): 200 541, 201 270, 503 1; p50 12 ms, max
    180 ms', for the docs and the test output."""
    if not answers:
        return "no requests"
    kinds = Counter(a.kind for a in answers)
    statuses = Counter(a.status for a in answers)
    times = sorted(a.seconds for a in answers)
    return (
        f"{len(answers)} requests ({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}): "
        f"{', '.join(f'{s} {n}' for s, n in sorted(statuses.items()))}; "
        f"p50 {times[len(times) // 2] * 1000:.0f} ms, max {times[-1] * 1000:.0f} ms"
    )
