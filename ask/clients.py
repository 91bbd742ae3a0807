"""The language model client: any server that speaks OpenAI's chat completions API (Ollama,
vLLM, llama.cpp's server, a hosted provider), streamed as server-sent events.

Two kinds of error, as for arXiv: LlmTransientError (timeouts, refused connections, 429, 5xx;
Ask falls back to the extractive answer) and LlmPermanentError (other 4xx: bad key, unknown
model; also a fallback, logged for the operator). No raw JSON travels past this module."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx

logger = logging.getLogger(__name__)

MAX_ANSWER_TOKENS = 400


class LlmError(Exception):
    pass


class LlmTransientError(LlmError):
    pass


class LlmPermanentError(LlmError):
    pass


@dataclass(frozen=True)
class Delta:
    """A piece of the streamed answer; the last one may carry the token counts instead."""

    text: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


class LlmClient:
    """POST {base_url}/chat/completions with ``stream: true`` and yield the answer's pieces.

    ``timeout`` bounds the whole answer, not only each read: a server that trickles tokens
    forever is cut off and raises LlmTransientError."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str = "",
        timeout: float = 20.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.timeout = timeout
        headers = {"Accept": "text/event-stream"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._client = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(timeout, connect=min(5.0, timeout)),
            transport=transport,
        )

    @classmethod
    def from_settings(cls) -> LlmClient | None:
        """The configured client, or None when no model is configured."""
        from django.conf import settings

        if not settings.LLM_BASE_URL:
            return None
        return cls(
            settings.LLM_BASE_URL,
            settings.LLM_MODEL or "default",
            api_key=settings.LLM_API_KEY,
            timeout=settings.LLM_TIMEOUT,
        )

    def close(self) -> None:
        self._client.close()

    def stream(
        self, messages: list[dict], *, max_tokens: int = MAX_ANSWER_TOKENS
    ) -> Iterator[Delta]:
        """Yield the answer as it comes; raise LlmTransientError / LlmPermanentError."""
        deadline = time.monotonic() + self.timeout
        body = {
            "model": self.model,
            "messages": messages,
            "stream": True,
            "temperature": 0.1,
            "max_tokens": max_tokens,
            "stream_options": {"include_usage": True},
        }
        try:
            with self._client.stream(
                "POST", f"{self.base_url}/chat/completions", json=body
            ) as response:
                self._check_status(response)
                for line in response.iter_lines():
                    if time.monotonic() > deadline:
                        raise LlmTransientError(f"no complete answer within {self.timeout:g} s")
                    delta = self._parse_line(line)
                    if delta is _DONE:
                        return
                    if delta is not None:
                        yield delta
        except httpx.TimeoutException as exc:
            raise LlmTransientError(f"timed out ({type(exc).__name__})") from exc
        except (httpx.TransportError, httpx.DecodingError) as exc:
            raise LlmTransientError(f"{type(exc).__name__}: {exc}") from exc

    def complete(self, messages: list[dict], *, max_tokens: int = MAX_ANSWER_TOKENS) -> str:
        """The whole answer at once (the same stream, joined), for callers that read it whole:
        the tagger's filing pick (topics.services.filing)."""
        return "".join(delta.text for delta in self.stream(messages, max_tokens=max_tokens))

    @staticmethod
    def _check_status(response: httpx.Response) -> None:
        status = response.status_code
        if status < 300:
            return
        response.read()
        detail = response.text[:200]
        if status >= 500 or status in (408, 409, 429):
            raise LlmTransientError(f"HTTP {status}: {detail}")
        raise LlmPermanentError(f"HTTP {status}: {detail}")

    @staticmethod
    def _parse_line(line: str):
        # Server-sent events: "data: {...}" lines; comments (":") and other fields are skipped.
        if not line.startswith("data:"):
            return None
        data = line[5:].strip()
        if data == "[DONE]":
            return _DONE
        try:
            chunk = json.loads(data)
        except json.JSONDecodeError as exc:
            raise LlmTransientError(f"malformed stream chunk: {data[:80]!r}") from exc
        if not isinstance(chunk, dict):
            raise LlmTransientError("malformed stream chunk")
        if "error" in chunk:
            raise LlmTransientError(f"model error: {str(chunk['error'])[:200]}")
        usage = chunk.get("usage") or None
        text = ""
        for choice in chunk.get("choices") or []:
            content = ((choice or {}).get("delta") or {}).get("content")
            if isinstance(content, str):
                text += content
        if usage and isinstance(usage, dict):
            return Delta(text, usage.get("prompt_tokens"), usage.get("completion_tokens"))
        return Delta(text) if text else None


_DONE = object()


def fulltext_http():
    """The arXiv HTTP client for full texts: the same gate, User-Agent and retry rules as the
    harvester (papers.clients.http), with a longer timeout for PDFs, fewer attempts, and no
    waiting out a long Retry-After: the next question about the paper tries again."""
    from papers.clients.http import ArxivHttp

    return ArxivHttp.from_settings(timeout=60.0, max_attempts=2, max_retry_after=5.0)
