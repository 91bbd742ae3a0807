"""The errors every arXiv client raises: transient ones are worth retrying, permanent ones not."""

from __future__ import annotations


class ArxivError(Exception):
    """Anything that went wrong talking to arXiv or reading what it sent."""

    def __reduce__(self):  # keyword-only fields survive pickling (Celery, multiprocessing)
        return (self.__class__, (str(self),), self.__dict__)


class ArxivTransientError(ArxivError):
    """Worth trying again later: timeouts, dropped connections, 429, 5xx, a body cut short.

    ``retry_after`` is the wait in seconds arXiv asked for, when it said so.
    """

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ArxivPermanentError(ArxivError):
    """Trying again will not help: a 4xx answer, an OAI-PMH error, an API error feed.

    ``code`` is the HTTP status (int) or arXiv's own error code (str, e.g. ``badArgument``);
    ``body`` is the response body when there was one, for the log.
    """

    def __init__(self, message: str, *, code: int | str | None = None, body: bytes = b"") -> None:
        super().__init__(message)
        self.code = code
        self.body = body


class BadResumptionToken(ArxivPermanentError):
    """The OAI-PMH resumption token expired (they last about a day); restart from the watermark."""


class MalformedResponse(ArxivTransientError):
    """The body is not the XML we expect (cut short, an HTML error page, not XML at all).

    Transient because on the wire this is nearly always a response that broke in transit.
    """
