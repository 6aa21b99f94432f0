"""An optional last ranking stage: a remote rerank model orders the first candidates.

The model is any litellm rerank model: ``cohere/rerank-v3.5``, ``voyage/rerank-2``,
``jina_ai/jina-reranker-v2-base-multilingual``, and an OpenAI-compatible server's
``/v1/rerank`` (llama.cpp server with ``--reranking``, vLLM, Infinity) as
``hosted_vllm/<served name>`` with its API base (``http://127.0.0.1:8080/v1``). All speak
one protocol: ``{"model", "query", "documents", "top_n"}`` →
``{"results": [{"index", "relevance_score"}]}``.

The API base is the setting's, else ``$FILINGQA_RERANK_API_BASE``, else the provider's; the
key ``$FILINGQA_RERANK_API_KEY``, else the provider's variable (``COHERE_API_KEY``, …).
Transient failures are retried as the remote embedder retries them; a failure that stays,
or an answer that does not score every document once, raises :class:`RerankEndpointError`:
the search stops rather than return an order nobody computed.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from filingqa.retrieval.index.remote_embedder import (
    RemoteModelError,
    Retry,
    api_key,
    call_endpoint,
)

API_BASE_ENV = "FILINGQA_RERANK_API_BASE"
API_KEY_ENV = "FILINGQA_RERANK_API_KEY"
TIMEOUT_SECONDS = 60.0
T = TypeVar("T")


class RerankEndpointError(RemoteModelError):
    """The rerank endpoint failed after its retries, or answered malformed."""


@dataclass(frozen=True)
class RemoteReranker:
    """One litellm rerank model at one API base (None: ``$FILINGQA_RERANK_API_BASE``,
    else the provider's)."""

    model: str
    api_base: str | None = None
    retry: Retry | None = None

    def order(self, query: str, items: Sequence[T], text: Callable[[T], str]) -> list[T]:
        """``items`` by the model's relevance of ``text(item)`` to ``query``, best first
        (ties keep their order).

        Raises:
            RerankEndpointError: see the module docstring.
        """
        if len(items) < 2:
            return list(items)
        scores = self.scores(query, [text(item) for item in items])
        ranked = sorted(range(len(items)), key=lambda i: (-scores[i], i))
        return [items[i] for i in ranked]

    def scores(self, query: str, documents: Sequence[str]) -> list[float]:
        """The relevance score of each document to ``query``, in the documents' order."""
        import litellm

        base = self.base()
        key = api_key(API_KEY_ENV, self.model.split("/", 1)[0], base)
        response = call_endpoint(
            lambda: litellm.rerank(
                model=self.model,
                query=query,
                documents=list(documents),
                top_n=len(documents),
                return_documents=False,
                api_base=base,
                api_key=key,
                timeout=TIMEOUT_SECONDS,
            ),
            self.where(),
            RerankEndpointError,
            self.retry or Retry(),
        )
        return _scores(response, len(documents), self.where())

    def base(self) -> str | None:
        """The API base called."""
        return self.api_base or os.environ.get(API_BASE_ENV) or None

    def where(self) -> str:
        """The model and its endpoint, for messages."""
        base = self.base()
        return f"rerank model {self.model}" + (f" at {base}" if base else "")


def _scores(response: Any, count: int, where: str) -> list[float]:
    """Each document's score from a rerank response; every index exactly once."""
    results = [_fields(r) for r in getattr(response, "results", None) or []]
    try:
        pairs = [(int(r["index"]), float(r["relevance_score"])) for r in results]
    except (KeyError, TypeError, ValueError) as problem:
        raise RerankEndpointError(f"{where} returned a malformed result ({problem})") from None
    by_index = dict(pairs)
    if len(pairs) != count or sorted(by_index) != list(range(count)):
        raise RerankEndpointError(
            f"{where} scored documents {sorted(i for i, _ in pairs)[:10]} of {count} "
            "(each must be scored once)"
        )
    if not all(math.isfinite(score) for score in by_index.values()):
        raise RerankEndpointError(f"{where} returned a score that is not a finite number")
    return [by_index[i] for i in range(count)]


def _fields(result: Any) -> Mapping[str, Any]:
    return result if isinstance(result, Mapping) else vars(result)
