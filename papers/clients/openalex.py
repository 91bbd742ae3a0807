"""OpenAlex: affiliations (institutions per author) and citation counts for arXiv papers.

Works are looked up by the DOI arXiv gives every paper, ``10.48550/arXiv.<id>``, up to 50 in one
``/works?filter=doi:a|b|…`` request (https://developers.openalex.org: OR-ed filter values,
``per-page``, ``mailto`` for the polite pool). Requests go through ArxivHttp with a gate of their
own, so they are spaced, retried on 429/403/5xx and timeouts as Retry-After or backoff says, and
identified. Every answer is cached, so a retried task asks nothing twice.

Works OpenAlex does not know are simply absent from its answer.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field

from papers.clients.errors import ArxivPermanentError, MalformedResponse
from papers.clients.http import ArxivHttp

logger = logging.getLogger(__name__)

BATCH_SIZE = 50  # DOIs per request; OpenAlex allows up to 100 OR-ed values
ARXIV_DOI_PREFIX = "10.48550/arxiv."
SELECT = "id,doi,cited_by_count,authorships"
CACHE_SECONDS = 24 * 60 * 60
# OpenAlex says 403 when a client goes too fast and 429 when a budget is spent: both "not now".
TRANSIENT_STATUSES = frozenset({403, 408, 425, 429})


@dataclass(frozen=True)
class Authorship:
    name: str
    institutions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Work:
    openalex_id: str  # "W4392…"
    cited_by_count: int | None
    authorships: tuple[Authorship, ...] = field(default=())


def arxiv_doi(arxiv_id: str) -> str:
    return f"10.48550/arXiv.{arxiv_id}"


def arxiv_id_of(doi: str | None) -> str | None:
    """The arXiv id in an OpenAlex ``doi`` ("https://doi.org/10.48550/arxiv.2503.00001")."""
    if not isinstance(doi, str):
        return None
    value = doi.strip()
    for prefix in ("https://doi.org/", "http://doi.org/", "doi:"):
        if value.lower().startswith(prefix):
            value = value[len(prefix) :]
    if not value.lower().startswith(ARXIV_DOI_PREFIX):
        return None
    return value[len(ARXIV_DOI_PREFIX) :] or None


def _work(entry: dict) -> Work:
    authorships = []
    for item in entry.get("authorships") or []:
        if not isinstance(item, dict):
            continue
        author = item.get("author")
        author = author if isinstance(author, dict) else {}
        name = str(author.get("display_name") or item.get("raw_author_name") or "").strip()
        names = [
            str(i.get("display_name")).strip()
            for i in item.get("institutions") or []
            if isinstance(i, dict) and i.get("display_name")
        ]
        if not names:  # no resolved institution: what the paper itself printed, if anything
            names = [str(s).strip() for s in item.get("raw_affiliation_strings") or [] if s]
        authorships.append(Authorship(name=name, institutions=tuple(dict.fromkeys(names))))
    cited = entry.get("cited_by_count")
    return Work(
        openalex_id=str(entry.get("id") or "").rsplit("/", 1)[-1][:40],
        cited_by_count=cited if isinstance(cited, int) and cited >= 0 else None,
        authorships=tuple(authorships),
    )


class OpenAlexClient:
    def __init__(
        self, http: ArxivHttp, base_url: str, *, mailto: str = "", api_key: str = "", cache=None
    ) -> None:
        self.http = http
        self.works_url = base_url.rstrip("/") + "/works"
        self.mailto = mailto
        self.api_key = api_key
        self.cache = cache

    def works(self, arxiv_ids: Iterable[str]) -> dict[str, Work]:
        """The works OpenAlex knows among these papers, by arXiv id (up to BATCH_SIZE ids)."""
        ids = sorted(set(arxiv_ids))  # one order, so the same papers meet the same cache entry
        if len(ids) > BATCH_SIZE:
            raise ValueError(f"at most {BATCH_SIZE} ids per request")
        if not ids:
            return {}
        wanted = {i.lower(): i for i in ids}
        params = {
            "filter": "doi:" + "|".join(arxiv_doi(i) for i in ids),
            "per-page": str(BATCH_SIZE),
            "select": SELECT,
        }
        key = "openalex:" + hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()
        cached = self.cache.get(key) if self.cache is not None else None
        body = cached if cached is not None else self._get(params)
        try:
            results = json.loads(body)["results"]
        except (ValueError, KeyError, TypeError) as exc:
            raise MalformedResponse(
                f"OpenAlex answered something that is not a work list: {exc}"
            ) from exc
        if cached is None and self.cache is not None:
            # Cached once it reads as an answer (a garbled body is asked for again). The key
            # leaves out mailto and api_key: the answer does not depend on who asks.
            self.cache.set(key, body, CACHE_SECONDS)
        found = {}
        for entry in results if isinstance(results, list) else []:
            arxiv_id = arxiv_id_of(entry.get("doi")) if isinstance(entry, dict) else None
            if arxiv_id and arxiv_id.lower() in wanted:
                found[wanted[arxiv_id.lower()]] = _work(entry)
        return found

    def _get(self, params: dict[str, str]) -> bytes:
        sent = dict(params)
        if self.mailto:
            sent["mailto"] = self.mailto
        if self.api_key:
            sent["api_key"] = self.api_key
        try:
            return self.http.get(self.works_url, params=sent)
        except ArxivPermanentError as exc:
            logger.error("OpenAlex refused %s: %s %s", params["filter"][:80], exc, exc.body[:300])
            raise


def openalex_client() -> OpenAlexClient | None:
    """The client configured from settings, or None when OPENALEX_URL is empty (enrichment off)."""
    from django.conf import settings
    from django.core.cache import cache

    from papers.clients.gate import DatabaseRequestGate, RedisRequestGate
    from papers.clients.http import user_agent

    if not settings.OPENALEX_URL:
        return None
    delay = settings.OPENALEX_REQUEST_DELAY
    gate: RedisRequestGate | DatabaseRequestGate
    if settings.REDIS_URL:
        import redis

        gate = RedisRequestGate(redis.Redis.from_url(settings.REDIS_URL), "openalex", delay, 120.0)
    else:
        gate = DatabaseRequestGate("openalex", delay, 120.0)
    http = ArxivHttp(
        gate,
        user_agent=user_agent(settings.PAPERSCOPE_VERSION, settings.OPENALEX_MAILTO),
        timeout=settings.OPENALEX_TIMEOUT,
        max_attempts=4,
        backoff_base=1.0,
        backoff_max=30.0,
        service="OpenAlex",
        transient_statuses=TRANSIENT_STATUSES,
    )
    return OpenAlexClient(
        http,
        settings.OPENALEX_URL,
        mailto=settings.OPENALEX_MAILTO,
        api_key=settings.OPENALEX_API_KEY or "",
        cache=cache,
    )
