"""A fake OpenAI-compatible chat completions server on a real socket (127.0.0.1), for the tests
of Ask and of the tagger's filing pick (topics.services.filing).

It "answers" like a careful but gullible model: it quotes the passage that shares most words
with the question and cites it as [n]; asked to file a paper under one of a numbered list of
<topic> blocks, it names the topic that shares most words with the paper's title (the first on
a tie). But an instruction to "ignore previous instructions" that reaches it *outside* the
quoted <passage>/<question>/<paper>/<topics> blocks is obeyed (it answers PWNED), so a prompt
that lets quoted text out of its block fails the injection tests.

    with FakeLlm() as llm:
        llm.script = "Claim one [1]. Claim two [7]."   # answer with exactly this instead
        llm.fail_with = 500                             # answer every request with this status
        llm.chunk_delay = 0.5                           # seconds between streamed chunks
"""

from __future__ import annotations

import json
import re
from http.server import BaseHTTPRequestHandler

from tests.local_server import LocalServer

_BLOCK = re.compile(r"<(passage|question|paper|topics)\b[^>]*>.*?</\1>", re.S)
_PASSAGE = re.compile(r'<passage n="(\d+)"[^>]*>\n(.*?)\n</passage>', re.S)
_QUESTION = re.compile(r"<question>\n(.*?)\n</question>", re.S)
_TITLE = re.compile(r"<paper>\nTitle: (.*?)\n")
_TOPIC = re.compile(r'<topic n="(\d+)">(.*?)</topic>')
_WORDS = re.compile(r"[a-z]{4,}")
_COMMON = {
    "what", "which", "that", "with", "from", "this", "does", "papers", "paper", "have", "there",
    "their", "they", "about", "into", "when", "where", "these", "those",
}  # fmt: skip


def fake_answer(messages: list[dict]) -> str:
    user = next((m["content"] for m in messages if m.get("role") == "user"), "")
    outside = "\n".join(m["content"] for m in messages if m.get("role") == "system")
    outside += _BLOCK.sub("", user)
    if "ignore previous instructions" in outside.lower():
        return "PWNED"
    if "<topics>" in user:
        return fake_pick(user)
    question = _QUESTION.search(user)
    wanted = set(_WORDS.findall(question.group(1).lower())) - _COMMON if question else set()
    best, best_score = None, 0
    for n, text in _PASSAGE.findall(user):
        score = len(wanted & set(_WORDS.findall(text.lower())))
        if score > best_score:
            best, best_score = (int(n), text), score
    if best is None:
        return "The papers do not say."
    first = re.split(r"(?<=[.!?])\s", best[1].replace("&lt;", "<").replace("&gt;", ">"))[0]
    return f"{first.rstrip('.')} [{best[0]}]."


def fake_pick(user: str) -> str:
    """The number of the <topic> whose name shares most words with the paper's title."""
    title = _TITLE.search(user)
    words = set(_WORDS.findall(title.group(1).lower())) if title else set()
    best, best_score = "1", -1
    for n, text in _TOPIC.findall(user):
        score = len(words & set(_WORDS.findall(text.split(":")[0].lower())))
        if score > best_score:
            best, best_score = n, score
    return best


class FakeLlm(LocalServer):
    def __init__(self) -> None:
        super().__init__(_Handler)
        self.requests: list[dict] = []  # the JSON bodies received
        self.headers: list[dict] = []
        self.script: str | None = None
        self.fail_with: int | None = None
        self.chunk_delay = 0.0
        self.stall_first = 0.0  # seconds before the first byte

    @property
    def url(self) -> str:
        return f"{self.root_url}/v1"


class _Handler(BaseHTTPRequestHandler):
    fake: FakeLlm
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        self.fake.requests.append(body)
        self.fake.headers.append({k.lower(): v for k, v in self.headers.items()})
        if self.path != "/v1/chat/completions":
            return self._plain(404, b'{"error": "not found"}')
        if self.fake.fail_with:
            return self._plain(self.fake.fail_with, b'{"error": {"message": "failure"}}')
        if self.fake._stopping.wait(self.fake.stall_first):
            return None
        answer = self.fake.script if self.fake.script is not None else fake_answer(body["messages"])
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        pieces = re.findall(r"\S+\s*", answer) or [""]
        try:
            for piece in pieces:
                chunk = {"object": "chat.completion.chunk", "model": body.get("model"),
                         "choices": [{"index": 0, "delta": {"content": piece}}]}  # fmt: skip
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.flush()
                if self.fake._stopping.wait(self.fake.chunk_delay):
                    return None
            usage = {
                "choices": [],
                "usage": {"prompt_tokens": 120, "completion_tokens": len(pieces)},
            }
            self.wfile.write(f"data: {json.dumps(usage)}\n\ndata: [DONE]\n\n".encode())
            self.wfile.flush()
        except OSError:
            pass
        return None

    def _plain(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        self.wfile.write(body)
