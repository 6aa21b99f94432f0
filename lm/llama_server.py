"""The embedded LLM served by llama.cpp over HTTP, as a DSPy engine (``local@URL``).

``local@http://127.0.0.1:8000/v1`` is the same model and the same requests as ``local``,
sent to an OpenAI-compatible llama.cpp server (``python -m llama_cpp.server --model
...gguf``) instead of run in process: the sampling settings are spelled out because the
server's defaults differ (repeat_penalty 1.1), and JSON requests go as ``{"type":
"json_object", "schema": ...}`` — the server answers OpenAI's ``json_schema`` form with
HTTP 500. A generic OpenAI-compatible server is ``openai/<name>`` with ``--api-base``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
from dspy.lm15 import ContextLengthError, Request, Response, response_to_events

from filingqa.lm.llama_engine import chat_messages, sampling, to_response

REQUEST_TIMEOUT_SECONDS = 600.0


class LlamaServerEngine:
    """Chat completions from a llama.cpp server at ``base_url`` (``.../v1``)."""

    supports_response_schema = True
    supports_function_calling = False
    supports_reasoning = False
    supported_params = frozenset(
        {"temperature", "max_tokens", "top_p", "top_k", "stop", "seed", "response_format"}
    )

    def __init__(
        self, base_url: str, *, seed: int = 0, timeout: float = REQUEST_TIMEOUT_SECONDS
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.seed = seed
        self._client = httpx.Client(timeout=timeout)

    def complete(self, request: Request) -> Response:
        """Generate one completion for ``request`` on the server."""
        settings = sampling(request, self.seed)
        body = {"messages": chat_messages(request), **settings}
        started = time.perf_counter()
        reply = self._client.post(f"{self.base_url}/chat/completions", json=body)
        if reply.status_code >= 400:
            detail = reply.text[:500]
            if "context window" in detail or "exceed" in detail:
                raise ContextLengthError(detail)
            reply.raise_for_status()
        return to_response(
            reply.json(),
            json_mode="response_format" in settings,
            seconds=time.perf_counter() - started,
        )

    def stream(self, request: Request) -> Iterator[Any]:
        """Stream as one complete response."""
        return response_to_events(self.complete(request))

    def close(self) -> None:
        """Close the HTTP connections."""
        self._client.close()

    def dump_state(self) -> dict[str, Any]:
        """JSON state for saving a program that carries this LM."""
        return {"base_url": self.base_url, "seed": self.seed}

    @classmethod
    def load_state(cls, state: dict[str, Any]) -> LlamaServerEngine:
        """Rebuild an engine from :meth:`dump_state` output."""
        return cls(state["base_url"], seed=state.get("seed", 0))
