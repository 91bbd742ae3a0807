"""A real HTTP server on 127.0.0.1 for a fake outside service (arXiv, OpenAlex, a model server).

Each fake subclasses :class:`LocalServer`, passes its request handler class, and is used as a
context manager: it listens on a free port in a daemon thread and its handlers reach the fake
as ``self.fake``. Handlers that stall (a "timeout" fault, a slow first byte) wait on
``fake._stopping``, which leaving the context sets, so a test never waits for a stalled answer.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self


class LocalServer:
    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.handler = handler
        self._server: ThreadingHTTPServer | None = None
        self._stopping = threading.Event()

    def __enter__(self) -> Self:
        handler = type("Handler", (self.handler,), {"fake": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._server.block_on_close = False
        # A short poll interval makes shutdown() quick; tests start and stop many servers.
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        ).start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stopping.set()  # wakes handlers that stall
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    @property
    def root_url(self) -> str:
        assert self._server is not None, f"use {type(self).__name__} as a context manager"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"
