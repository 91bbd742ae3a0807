"""HTTP to arXiv: every request polite (inside the shared gate), identified, and retried only
when retrying can help."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Mapping
from datetime import UTC
from email.utils import parsedate_to_datetime

import httpx

from papers.clients.errors import ArxivPermanentError, ArxivTransientError
from papers.clients.gate import RequestGate

logger = logging.getLogger(__name__)

# 408 and 429 are the client errors that mean "not now" rather than "never".
_TRANSIENT_STATUSES = frozenset({408, 425, 429})


def user_agent(version: str, contact_email: str) -> str:
    """arXiv asks harvesters to say who they are: ``Paperscope/0.1.0 (mailto:ops@example.org)``."""
    return f"Paperscope/{version} (mailto:{contact_email})"


def retry_after_seconds(value: str | None, now: float) -> float | None:
    """A Retry-After header (seconds or an HTTP date) as seconds from ``now``; None if unusable."""
    if not value or not value.strip():
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - now)


class ArxivHttp:
    """GET from arXiv and return the body as bytes (gzip already decoded).

    Each attempt runs inside ``gate.turn()``, so all workers together keep arXiv's one request
    at a time, one every ``gate.delay`` seconds. Transient failures (timeouts, connection
    errors and resets, a body shorter than announced, 408/429/5xx) are retried up to
    ``max_attempts`` in all, waiting what ``Retry-After`` asks for or else an exponential
    backoff with full jitter; the waits happen outside the gate. Raises ArxivTransientError
    when the attempts run out, at once when ``Retry-After`` asks for more than
    ``max_retry_after`` seconds (its ``retry_after`` says how long: reschedule, do not spin),
    and ArxivPermanentError (``code`` = HTTP status, ``body`` kept) for any other 4xx.
    """

    def __init__(
        self,
        gate: RequestGate,
        *,
        user_agent: str,
        timeout: float = 30.0,
        max_attempts: int = 5,
        backoff_base: float = 2.0,
        backoff_max: float = 120.0,
        max_retry_after: float = 300.0,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
        transport: httpx.BaseTransport | None = None,
        service: str = "arXiv",
        transient_statuses: frozenset[int] = _TRANSIENT_STATUSES,
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.gate = gate
        # The same politeness serves OpenAlex (papers.clients.openalex): its name for the log,
        # and its "not now" statuses (OpenAlex answers 403 when a client goes too fast).
        self.service = service
        self.transient_statuses = transient_statuses
        self.max_attempts = max_attempts
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.max_retry_after = max_retry_after
        self._sleep = sleep
        self._clock = clock
        self._rng = rng or random.Random()
        self._client = httpx.Client(
            headers={"User-Agent": user_agent},
            timeout=httpx.Timeout(timeout),
            follow_redirects=True,
            # No idle keep-alive connections: with the gate, there is then never more than one
            # connection open to arXiv from all workers together.
            limits=httpx.Limits(max_connections=1, max_keepalive_connections=0),
            transport=transport,
        )

    @classmethod
    def from_settings(cls, gate: RequestGate | None = None, **options) -> ArxivHttp:
        """Configured from Django settings: the gate, PAPERSCOPE_VERSION, ARXIV_CONTACT_EMAIL."""
        from django.conf import settings

        from papers.clients.gate import gate_from_settings

        agent = user_agent(settings.PAPERSCOPE_VERSION, settings.ARXIV_CONTACT_EMAIL)
        return cls(gate or gate_from_settings(), user_agent=agent, **options)

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> ArxivHttp:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def get(self, url: str, params: Mapping[str, str] | None = None) -> bytes:
        for attempt in range(1, self.max_attempts + 1):
            try:
                return self._attempt(url, params)
            except ArxivTransientError as exc:
                if exc.retry_after is not None and exc.retry_after > self.max_retry_after:
                    raise
                if attempt == self.max_attempts:
                    raise ArxivTransientError(
                        f"{exc} (gave up after {attempt} attempts)", retry_after=exc.retry_after
                    ) from exc
                wait = exc.retry_after if exc.retry_after is not None else self._backoff(attempt)
                logger.warning(
                    "%s %s: %s; attempt %d of %d, retrying in %.1f s",
                    self.service, url, exc, attempt, self.max_attempts, wait,
                )  # fmt: skip
                self._sleep(wait)
        raise AssertionError("unreachable")  # the loop returns or raises

    def _backoff(self, attempt: int) -> float:
        # Full jitter (AWS architecture blog, "Exponential Backoff And Jitter"): spreads workers
        # that failed together; the gate still keeps them at least ``delay`` apart.
        return self._rng.uniform(0, min(self.backoff_max, self.backoff_base * 2 ** (attempt - 1)))

    def _attempt(self, url: str, params: Mapping[str, str] | None) -> bytes:
        try:
            with self.gate.turn():
                response = self._client.get(url, params=params)
        except httpx.TimeoutException as exc:
            raise ArxivTransientError(f"timed out ({type(exc).__name__})") from exc
        except (httpx.UnsupportedProtocol, httpx.TooManyRedirects, httpx.InvalidURL) as exc:
            raise ArxivPermanentError(f"cannot fetch {url}: {exc}") from exc
        except (httpx.TransportError, httpx.DecodingError) as exc:
            # Connection refused or reset, a body cut short, a broken gzip stream.
            raise ArxivTransientError(f"{type(exc).__name__}: {exc}") from exc
        status = response.status_code
        if status < 300:
            return response.content
        if status >= 500 or status in self.transient_statuses:
            wait = retry_after_seconds(response.headers.get("Retry-After"), self._clock())
            raise ArxivTransientError(f"HTTP {status}", retry_after=wait)
        raise ArxivPermanentError(f"HTTP {status} from {url}", code=status, body=response.content)
