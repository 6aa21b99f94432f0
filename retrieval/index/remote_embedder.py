"""Embeddings from a remote model through litellm: a hosted API (``voyage/voyage-finance-2``,
``openai/text-embedding-3-small``, ``cohere/embed-english-v3.0``) or any OpenAI-compatible
server (``openai/<served name>`` with an API base: llama.cpp, vLLM, TEI, Ollama).

:meth:`Embedder.load` takes such a model as ``litellm:<litellm model>``; that name is what
the index records. The API base is not part of it (an index does not care where its model
is served): it is the ``api_base`` argument, else ``$FILINGQA_EMBEDDING_API_BASE``, else
the provider's own. The key is ``$FILINGQA_EMBEDDING_API_KEY``, else the provider's variable
(``VOYAGE_API_KEY``, ``OPENAI_API_KEY``); an ``openai/`` model with an API base gets a
placeholder instead, so that a local server is never sent your OpenAI key.

Passages and queries are embedded with the provider's ``input_type`` where it has one
(Voyage, Cohere), in batches of :data:`BATCH`. A transient failure (rate limit, timeout,
connection, 5xx) is retried with backoff; what still fails, or answers with the wrong
count of vectors, raises :class:`EmbeddingEndpointError`. The dimension is given or learned
from one probe call, and kept in the vector cache so that reopening an index asks no more.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from filingqa.retrieval.index.embedder import Embedder, Role

if TYPE_CHECKING:
    import diskcache

REMOTE_PREFIX = "litellm:"
"""Names a remote model by its litellm string."""
API_BASE_ENV = "FILINGQA_EMBEDDING_API_BASE"
API_KEY_ENV = "FILINGQA_EMBEDDING_API_KEY"
PLACEHOLDER_KEY = "none"
"""The key an ``openai/`` model sends to an API base when none is set for it."""
BATCH = 64
ATTEMPTS = 3
BACKOFF_SECONDS = 1.0
TIMEOUT_SECONDS = 60.0
PROBE_TEXT = "dimension probe"
REASON_CHARS = 300
_INPUT_TYPES: dict[str, dict[Role, str]] = {
    "voyage": {"passage": "document", "query": "query"},
    "cohere": {"passage": "search_document", "query": "search_query"},
}
"""Providers whose embeddings differ by role, and the ``input_type`` of each role."""
T = TypeVar("T")


class RemoteModelError(RuntimeError):
    """A remote relevance model (an embedding or rerank endpoint) failed or answered
    something malformed; the message names the model, the endpoint and why."""


class EmbeddingEndpointError(RemoteModelError):
    """The embedding endpoint failed after its retries, or answered malformed."""


@dataclass(frozen=True)
class Retry:
    """How often a transient failure is tried again, and the first wait (doubling)."""

    attempts: int = ATTEMPTS
    backoff: float = BACKOFF_SECONDS


def remote_embedder(
    name: str,
    *,
    api_base: str | None = None,
    dim: int | None = None,
    cache: diskcache.Cache | None = None,
    batch: int = BATCH,
    retry: Retry | None = None,
) -> Embedder:
    """The :class:`Embedder` of the remote model ``name`` (``litellm:<litellm model>``).

    Raises:
        ValueError: ``name`` is not a ``litellm:`` name.
        EmbeddingEndpointError: the probe call for the dimension failed.
    """
    endpoint = EmbeddingEndpoint(
        litellm_model(name), api_base=embedding_api_base(api_base), batch=batch, retry=retry
    )
    dim = dim or _cached_dim(cache, name) or endpoint.probe()
    if cache is not None:
        cache.set(_dim_key(name), dim)
    return Embedder(name, dim, endpoint.passages, endpoint.queries, cache=cache)


def litellm_model(name: str) -> str:
    """The litellm model string of ``litellm:<model>``."""
    model = name.removeprefix(REMOTE_PREFIX)
    if model == name or "/" not in model:
        raise ValueError(
            f"not a remote embedding model: {name!r} (expected {REMOTE_PREFIX}<provider>/<model>, "
            f"e.g. {REMOTE_PREFIX}voyage/voyage-finance-2)"
        )
    return model


def embedding_api_base(api_base: str | None = None) -> str | None:
    """``api_base``, else ``$FILINGQA_EMBEDDING_API_BASE`` (None: the provider's own)."""
    return api_base or os.environ.get(API_BASE_ENV) or None


@dataclass(frozen=True)
class EmbeddingEndpoint:
    """One litellm embedding model at one API base, called in batches with retries."""

    model: str
    api_base: str | None = None
    batch: int = BATCH
    retry: Retry | None = None

    def passages(self, texts: list[str]) -> np.ndarray:
        """Passage vectors, ``(len(texts), dim)``."""
        return self.encode(texts, "passage")

    def queries(self, texts: list[str]) -> np.ndarray:
        """Query vectors, ``(len(texts), dim)``."""
        return self.encode(texts, "query")

    def probe(self) -> int:
        """The model's dimension, from one call."""
        return int(self.encode([PROBE_TEXT], "query").shape[1])

    def encode(self, texts: Sequence[str], role: Role) -> np.ndarray:
        """Vectors of ``texts`` in order, batch by batch, as float32."""
        rows: list[list[float]] = []
        for start in range(0, len(texts), self.batch):
            rows += self._request(list(texts[start : start + self.batch]), role)
        widths = {len(row) for row in rows}
        if len(widths) > 1:
            raise EmbeddingEndpointError(f"{self._where()} returned vectors of sizes {widths}")
        return np.asarray(rows, dtype=np.float32).reshape(len(rows), -1)

    def _request(self, texts: list[str], role: Role) -> list[list[float]]:
        import litellm

        kwargs: dict[str, Any] = {"timeout": TIMEOUT_SECONDS}
        provider = self.model.split("/", 1)[0]
        if provider in _INPUT_TYPES:
            kwargs["input_type"] = _INPUT_TYPES[provider][role]
        key = api_key(API_KEY_ENV, provider, self.api_base)
        response = call_endpoint(
            lambda: litellm.embedding(
                model=self.model, input=texts, api_base=self.api_base, api_key=key, **kwargs
            ),
            self._where(),
            EmbeddingEndpointError,
            self.retry or Retry(),
        )
        return _vectors(response, len(texts), self._where())

    def _where(self) -> str:
        return f"embedding model {self.model}" + (f" at {self.api_base}" if self.api_base else "")


def api_key(env: str, provider: str, api_base: str | None) -> str | None:
    """The key from ``env``; else a placeholder for an ``openai/`` model at an API base;
    else None (litellm reads the provider's own variable)."""
    explicit = os.environ.get(env)
    if explicit:
        return explicit
    return PLACEHOLDER_KEY if api_base and provider == "openai" else None


def call_endpoint(
    call: Callable[[], T], where: str, error: type[RemoteModelError], retry: Retry
) -> T:
    """``call()``, tried again after a transient failure; ``error`` naming ``where`` and
    the last failure when it does not succeed."""
    for attempt in range(1, retry.attempts + 1):
        try:
            return call()
        except Exception as problem:  # litellm raises its own and its providers' errors
            if attempt == retry.attempts or not transient(problem):
                tries = f" (after {attempt} attempts)" if attempt > 1 else ""
                raise error(f"{where} failed{tries}: {reason(problem)}") from problem
            time.sleep(retry.backoff * 2 ** (attempt - 1))
    raise error(f"{where}: no attempt made (attempts={retry.attempts})")


def transient(problem: Exception) -> bool:
    """Whether ``problem`` may pass on its own: a rate limit, timeout, lost connection or
    server error (not a bad request, a wrong key or an unknown model)."""
    import litellm

    passing = (
        litellm.RateLimitError,
        litellm.Timeout,
        litellm.APIConnectionError,
        litellm.InternalServerError,
        litellm.ServiceUnavailableError,
    )
    status = getattr(problem, "status_code", None)
    return isinstance(problem, passing) or (isinstance(status, int) and status >= 500)


def reason(problem: Exception) -> str:
    """``problem`` in one short line: its type and message."""
    text = " ".join(str(problem).split())
    return f"{type(problem).__name__}: {text[:REASON_CHARS]}"


def _vectors(response: Any, count: int, where: str) -> list[list[float]]:
    """The embeddings of an OpenAI-style response, in input order."""
    items = [_item(entry) for entry in getattr(response, "data", None) or []]
    by_index = {int(item["index"]): item["embedding"] for item in items}
    if sorted(by_index) != list(range(count)):
        raise EmbeddingEndpointError(
            f"{where} returned {len(items)} embeddings for {count} texts "
            f"(indexes {sorted(by_index)[:10]})"
        )
    return [list(map(float, by_index[i])) for i in range(count)]


def _item(entry: Any) -> Mapping[str, Any]:
    return entry if isinstance(entry, Mapping) else vars(entry)


def _dim_key(name: str) -> str:
    return f"{name}|dim"


def _cached_dim(cache: diskcache.Cache | None, name: str) -> int | None:
    value = cache.get(_dim_key(name)) if cache is not None else None
    return int(value) if isinstance(value, int) else None
