"""A stub relevance-model server on loopback that speaks the real wire protocols.

``POST .../embeddings`` is OpenAI's (and Voyage's): ``{"model", "input"}`` →
``{"data": [{"embedding", "index"}], "model", "usage"}``; ``POST .../rerank`` is the
Cohere/Jina/vLLM/llama.cpp one: ``{"model", "query", "documents", "top_n"}`` →
``{"results": [{"index", "relevance_score"}]}``, best first and cut to ``top_n``, as real
servers answer. Embeddings come back in reverse order (each with its index), so a client
that ignores the indexes gets them wrong. Every request is recorded; ``fail`` queues
replies (a status and a body) that the next requests get instead.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

from .filings import FakeEncoder

Reply = tuple[int, Any]


def bag_of_words(text: str) -> list[float]:
    """The search tests' fake embedding (:class:`FakeEncoder`) of one text."""
    return [float(x) for x in FakeEncoder()([text])[0]]


def words_in_common(query: str, document: str) -> float:
    """A toy relevance: how many of the query's words the document holds."""
    wanted = set(query.lower().split())
    return float(len(wanted & set(document.lower().split())))


@dataclass
class Request:
    """One request the server took: its path, headers and JSON body."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class ModelServer:
    """The stub's behaviour and what it saw; :func:`model_server` runs it."""

    embed: Callable[[str], list[float]] = bag_of_words
    score: Callable[[str, str], float] = words_in_common
    requests: list[Request] = field(default_factory=list)
    replies: list[Reply] = field(default_factory=list)
    base: str = ""

    def fail(self, *replies: Reply) -> None:
        """Answer the next requests with these (status, body) replies, in order."""
        self.replies.extend(replies)

    def of(self, suffix: str) -> list[Request]:
        """The requests whose path ends with ``suffix``."""
        return [r for r in self.requests if r.path.endswith(suffix)]

    def answer(self, path: str, body: dict[str, Any]) -> Reply:
        """The reply to one request."""
        if self.replies:
            return self.replies.pop(0)
        if path.endswith("/embeddings"):
            return 200, self._embeddings(body)
        if path.endswith("/rerank"):
            return 200, self._rerank(body)
        return 404, {"error": {"message": f"no route {path}"}}

    def _embeddings(self, body: dict[str, Any]) -> dict[str, Any]:
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = [
            {"object": "embedding", "embedding": self.embed(text), "index": i}
            for i, text in enumerate(texts)
        ]
        usage = {"prompt_tokens": len(texts), "total_tokens": len(texts)}
        return {"object": "list", "data": data[::-1], "model": body["model"], "usage": usage}

    def _rerank(self, body: dict[str, Any]) -> dict[str, Any]:
        scored = [
            {"index": i, "relevance_score": self.score(body["query"], doc)}
            for i, doc in enumerate(body["documents"])
        ]
        scored.sort(key=lambda r: -r["relevance_score"])
        top = body.get("top_n") or len(scored)
        return {"id": "stub", "model": body["model"], "results": scored[:top], "usage": {}}


@contextmanager
def model_server() -> Iterator[ModelServer]:
    """A :class:`ModelServer` on 127.0.0.1 at a free port (``base``: its ``/v1`` URL)."""
    state = ModelServer()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = json.loads(raw or b"{}")
            state.requests.append(Request(self.path, dict(self.headers), body))
            status, reply = state.answer(self.path, body)
            data = json.dumps(reply).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.base = f"http://127.0.0.1:{server.server_port}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def as_array(rows: list[list[float]]) -> np.ndarray:
    """``rows`` as the float32 array an embedder returns."""
    return np.asarray(rows, dtype=np.float32)
