"""Answering a question from retrieved passages: with the configured model (streamed, cited,
cached, logged), or extractively without one, and extractively again whenever the model fails.

``answer_events`` yields (event, data) pairs, the server-sent events of the API; the JSON API
keeps only the last ("done"), which always holds the whole answer."""

from __future__ import annotations

import hashlib
import logging
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache

from ask.clients import LlmClient, LlmError
from ask.models import AskLog
from ask.prompts import NOT_IN_PAPERS, PromptPassage, build_messages, read_answer
from ask.selectors import Hit, query_terms
from ask.text import sentences

logger = logging.getLogger(__name__)

NO_MODEL = "No language model is configured here, so these are the passages that answer best."
MODEL_FAILED = (
    "The language model failed or took too long, so these are the passages that answer best."
)
NOTHING_FOUND = "Nothing in these papers matches the question."


@dataclass
class Asker:
    user_id: int | None
    address: str


def _stem(word: str) -> str:
    return word[:5]


def highlight(question: str, text: str) -> list[int]:
    """[start, end] of the sentence in ``text`` that shares most words with the question."""
    wanted = {_stem(t) for t in query_terms(question)}
    best, best_score = None, 0
    for sentence in sentences(text):
        words = {_stem(t) for t in query_terms(sentence)}
        score = len(wanted & words)
        if score > best_score:
            best, best_score = sentence, score
    if best is None:
        return [0, len(text)] if len(text) <= 400 else [0, 0]
    start = text.find(best)
    return [start, start + len(best)] if start >= 0 else [0, 0]


def passages_payload(question: str, hits: list[Hit]) -> dict:
    """The passages (numbered as the model sees them) and their papers, grouped in rank order."""
    passages, papers, by_paper = [], [], {}
    for n, hit in enumerate(hits, start=1):
        passages.append({
            "n": n, "id": hit.id, "arxiv_id": hit.arxiv_id, "kind": hit.kind,
            "section": hit.section, "text": hit.text, "highlight": highlight(question, hit.text),
        })  # fmt: skip
        if hit.arxiv_id not in by_paper:
            by_paper[hit.arxiv_id] = {
                "arxiv_id": hit.arxiv_id, "title": hit.paper_title,
                "announced": hit.announced.isoformat() if hit.announced else None,
                "url": f"/papers/{hit.arxiv_id}/", "passages": [],
            }  # fmt: skip
            papers.append(by_paper[hit.arxiv_id])
        by_paper[hit.arxiv_id]["passages"].append(n)
    return {"passages": passages, "papers": papers}


def _cache_key(question: str, model: str, hits: list[Hit]) -> str:
    normal = " ".join(re.findall(r"\w+", question.lower()))
    corpus = ",".join(str(h.id) for h in hits)  # same passages found: same corpus for this question
    digest = hashlib.sha256(f"{model}\n{normal}\n{corpus}".encode()).hexdigest()
    return f"ask:answer:{digest}"


def _log(
    asker: Asker,
    scope: str,
    target: str,
    question: str,
    mode: str,
    *,
    model: str = "",
    hits: int = 0,
    started: float,
    usage: tuple = (None, None),
    error: str = "",
) -> None:
    AskLog.objects.create(
        user_id=asker.user_id, address=asker.address[:64], scope=scope, target=target[:200],
        question=question, mode=mode, model=model[:200], passages=hits,
        prompt_tokens=usage[0], completion_tokens=usage[1],
        duration_ms=int((time.monotonic() - started) * 1000), error=error[:500],
    )  # fmt: skip


def answer_events(
    *,
    question: str,
    hits: list[Hit],
    asker: Asker,
    scope: str,
    target: str,
    extra: dict | None = None,
    client: LlmClient | None = None,
) -> Iterator[tuple[str, dict]]:
    """("passages", ...), then ("delta", {"text"}) pieces while a model writes, then ("done",
    the whole answer). Never raises for a model failure: the answer falls back to passages."""
    started = time.monotonic()
    payload = {"question": question, **passages_payload(question, hits), **(extra or {})}
    yield "passages", payload
    own_client = client is None
    if own_client:
        client = LlmClient.from_settings()
    context = {"question": question, "hits": hits, "asker": asker, "scope": scope,
               "target": target, "payload": payload, "started": started}  # fmt: skip
    try:
        yield from _answer(client=client, **context)
    finally:
        if own_client and client is not None:
            client.close()


def _answer(
    *, question, hits, asker, scope, target, payload, client, started
) -> Iterator[tuple[str, dict]]:
    if client is None or not hits:
        notice = NO_MODEL if hits else NOTHING_FOUND
        _log(asker, scope, target, question, AskLog.Mode.EXTRACTIVE, hits=len(hits),
             started=started)  # fmt: skip
        yield "done", {**payload, "mode": "extractive", "notice": notice, "answer": "",
                       "citations": []}  # fmt: skip
        return
    key = _cache_key(question, client.model, hits)
    cached = cache.get(key)
    if cached is not None:
        _log(asker, scope, target, question, AskLog.Mode.CACHED, model=client.model,
             hits=len(hits), started=started)  # fmt: skip
        yield "done", {**payload, **cached, "mode": "cached", "notice": ""}
        return
    messages = build_messages(
        question, [PromptPassage(h.arxiv_id, h.paper_title, h.section, h.text) for h in hits]
    )
    parts: list[str] = []
    usage: tuple = (None, None)
    try:
        for delta in client.stream(messages):
            if delta.prompt_tokens is not None or delta.completion_tokens is not None:
                usage = (delta.prompt_tokens, delta.completion_tokens)
            if delta.text:
                parts.append(delta.text)
                yield "delta", {"text": delta.text}
    except LlmError as exc:
        logger.warning("language model failed (%s); answering with passages", exc)
        _log(asker, scope, target, question, AskLog.Mode.FALLBACK, model=client.model,
             hits=len(hits), started=started, usage=usage, error=str(exc))  # fmt: skip
        yield "done", {**payload, "mode": "fallback", "notice": MODEL_FAILED, "answer": "",
                       "citations": []}  # fmt: skip
        return
    read = read_answer("".join(parts), len(hits))
    answer = {
        "answer": read.text or NOT_IN_PAPERS,
        "citations": [{"n": n, "passage": hits[n - 1].id} for n in read.cited],
        "uncited_sentences": read.uncited_sentences,
        "not_in_papers": read.says_not_in_papers or not read.text,
    }
    if settings.ASK_CACHE_SECONDS:
        cache.set(key, answer, settings.ASK_CACHE_SECONDS)
    _log(asker, scope, target, question, AskLog.Mode.MODEL, model=client.model, hits=len(hits),
         started=started, usage=usage)  # fmt: skip
    yield "done", {**payload, **answer, "mode": "model", "notice": ""}
