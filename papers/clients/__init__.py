"""Clients for arXiv's OAI-PMH, RSS and query API: HTTP in, typed records and two kinds of error
out (``ArxivTransientError`` is worth retrying, ``ArxivPermanentError`` is not)."""

from papers.clients.errors import (
    ArxivError,
    ArxivPermanentError,
    ArxivTransientError,
    BadResumptionToken,
    MalformedResponse,
)
from papers.clients.records import MalformedRecord, Page, PaperRecord, VersionInfo

__all__ = [
    "ArxivError",
    "ArxivPermanentError",
    "ArxivTransientError",
    "BadResumptionToken",
    "MalformedRecord",
    "MalformedResponse",
    "Page",
    "PaperRecord",
    "VersionInfo",
]
