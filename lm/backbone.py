"""One way to get a DSPy LM from a backbone string, and the adapter each backbone parses best with.

- ``local`` → the embedded Qwen2.5-Coder-1.5B GGUF (pulled by ``filingqa models pull``),
  run in process by llama-cpp-python;
- ``local:<path.gguf>`` → any GGUF file, same engine;
- ``local@<url>`` → the same model and requests, served by a llama.cpp server at ``url``
  (``http://127.0.0.1:8000/v1``; see :mod:`filingqa.lm.llama_server`);
- anything else → a litellm model string through ``dspy.LM`` (``openai/gpt-4o-mini``,
  ``anthropic/...``, ``ollama_chat/...``, ``openai/<name>`` with ``api_base``), as a
  :class:`RetryingLM` following an explicit :class:`RetryPolicy`.

Retries: DSPy 3.4's own loop (``num_retries``) retries the transient errors and waits a
provider's Retry-After however long it is; hosted backbones switch it off and retry under
:class:`RetryPolicy` instead, which bounds every wait. The in-process model has nothing
transient to retry (``num_retries=0``): its failures go straight to the step, which
degrades (see :mod:`filingqa.lm.faults`).
"""

from __future__ import annotations

import asyncio
import atexit
import functools
import itertools
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dspy
from dspy.utils.exceptions import LMError, is_retryable_lm_error
from pydantic import BaseModel, Field

from filingqa.core.cache import configure_dspy_cache
from filingqa.lm.evidence_first import EvidenceFirstChatAdapter, EvidenceFirstJSONAdapter
from filingqa.lm.llama_engine import DEFAULT_CONTEXT_TOKENS, LlamaCppEngine
from filingqa.lm.llama_server import LlamaServerEngine

LOCAL = "local"
LOCAL_MAX_TOKENS = 1024


class RetryPolicy(BaseModel):
    """How a hosted backbone's transient failures are retried.

    Retried: rate limits (429), timeouts, server errors (5xx), connection failures (DSPy's
    ``is_retryable_lm_error``). Never retried: context overflow, authentication, invalid
    requests, unparseable replies. Before retry ``n`` (0-based) the call waits the
    provider's Retry-After when it sends one, else ``base_seconds * 2**n``, at most
    ``max_wait_seconds``; a Retry-After longer than that is not waited out: the call fails
    at once and its step degrades. ``timeout_seconds`` bounds each request.
    """

    retries: int = Field(default=3, ge=0)
    base_seconds: float = Field(default=1.0, ge=0)
    max_wait_seconds: float = Field(default=30.0, ge=0)
    timeout_seconds: float = Field(default=120.0, gt=0)

    def wait(self, problem: Exception, attempt: int) -> float | None:
        """Seconds to wait before retrying after ``problem`` on ``attempt`` (0-based);
        None when the call must fail now."""
        if attempt >= self.retries or not is_retryable_lm_error(problem):
            return None
        hint = _retry_after(problem)
        if hint is not None:
            return hint if hint <= self.max_wait_seconds else None
        return min(self.base_seconds * 2**attempt, self.max_wait_seconds)


def _retry_after(problem: Exception) -> float | None:
    """The provider's Retry-After in seconds, when it sent a usable one."""
    hint = getattr(problem, "retry_after", None)
    usable = isinstance(hint, int | float) and not isinstance(hint, bool)
    return float(hint) if usable and math.isfinite(hint) and hint >= 0 else None


class RetryingLM(dspy.LM):
    """A ``dspy.LM`` whose calls are retried under ``policy`` (DSPy's own retries off).

    ``sleep`` waits between attempts (a test passes a recorder).
    """

    def __init__(
        self,
        model: str,
        *,
        policy: RetryPolicy,
        sleep: Callable[[float], None] = time.sleep,
        **kwargs: Any,
    ) -> None:
        super().__init__(model, num_retries=0, **kwargs)
        self.policy = policy
        self.sleep = sleep

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        for attempt in itertools.count():
            try:
                return super().__call__(*args, **kwargs)
            except LMError as problem:
                wait = self.policy.wait(problem, attempt)
                if wait is None:
                    raise
                self.sleep(wait)
        raise AssertionError("unreachable")

    async def acall(self, *args: Any, **kwargs: Any) -> Any:
        for attempt in itertools.count():
            try:
                return await super().acall(*args, **kwargs)
            except LMError as problem:
                wait = self.policy.wait(problem, attempt)
                if wait is None:
                    raise
                await asyncio.sleep(wait)
        raise AssertionError("unreachable")


def is_local(spec: str) -> bool:
    """Whether a backbone string names an in-process GGUF model."""
    return spec == LOCAL or spec.startswith(f"{LOCAL}:")


def is_embedded(spec: str) -> bool:
    """Whether a backbone string names the small local model, in process or served."""
    return is_local(spec) or served_url(spec) is not None


def served_url(spec: str) -> str | None:
    """The server URL of a ``local@<url>`` backbone string, else None."""
    return spec.removeprefix(f"{LOCAL}@") if spec.startswith(f"{LOCAL}@") else None


def get_lm(
    spec: str = LOCAL,
    *,
    api_base: str | None = None,
    temperature: float = 0.0,
    max_tokens: int | None = None,
    cache: bool = True,
    n_ctx: int = DEFAULT_CONTEXT_TOKENS,
    retry: RetryPolicy | None = None,
    **litellm_kwargs: Any,
) -> dspy.LM:
    """A ``dspy.LM`` for ``spec``; DSPy's response cache lives under the filingqa home.

    Hosted backbones retry under ``retry`` (default :class:`RetryPolicy`), and each request
    times out after its ``timeout_seconds`` unless ``timeout`` is given.

    Raises:
        filingqa.models.store.ModelNotReady: ``local`` and the model is missing or corrupt.
        FileNotFoundError: ``local:<path>`` and the file does not exist.
    """
    configure_dspy_cache()
    url = served_url(spec)
    if url is not None:
        return dspy.LM(
            model=f"local-server/{url}",
            engine=LlamaServerEngine(url),
            temperature=temperature,
            max_tokens=max_tokens or LOCAL_MAX_TOKENS,
            cache=cache,
            num_retries=0,
        )
    if is_local(spec):
        path = _local_model_path(spec)
        return dspy.LM(
            model=f"local/{path.name}",
            engine=_shared_engine(str(path.resolve()), n_ctx),
            temperature=temperature,
            max_tokens=max_tokens or LOCAL_MAX_TOKENS,
            cache=cache,
            num_retries=0,
        )
    if api_base:
        litellm_kwargs["api_base"] = api_base
    policy = retry or RetryPolicy()
    litellm_kwargs.setdefault("timeout", policy.timeout_seconds)
    return RetryingLM(
        spec,
        policy=policy,
        temperature=temperature,
        max_tokens=max_tokens,
        cache=cache,
        **litellm_kwargs,
    )


def adapter_for(lm: dspy.LM, *, evidence_first: bool = True) -> dspy.Adapter:
    """The adapter that parses reliably for ``lm``, laying requests out evidence first
    (:mod:`~filingqa.lm.evidence_first`) unless ``evidence_first`` is False (DSPy's own
    layout: a system message per signature, then the inputs in field order).

    In-process and llama.cpp-served models get DSPy's JSONAdapter, whose schema is
    enforced by llama.cpp's grammar: a small model's free-form ChatAdapter output often fails
    to parse, grammar-constrained JSON seldom does (README, "The LM layer"). Hosted models
    keep DSPy's default ChatAdapter, which falls back to JSON by itself.
    """
    if isinstance(getattr(lm, "engine", None), LlamaCppEngine | LlamaServerEngine):
        return EvidenceFirstJSONAdapter() if evidence_first else dspy.JSONAdapter()
    return EvidenceFirstChatAdapter() if evidence_first else dspy.ChatAdapter()


def configure(spec: str | dspy.LM = LOCAL, **lm_kwargs: Any) -> dspy.LM:
    """Make ``spec`` DSPy's default LM, with its adapter; returns the LM."""
    lm = spec if isinstance(spec, dspy.LM) else get_lm(spec, **lm_kwargs)
    dspy.configure(lm=lm, adapter=adapter_for(lm))
    return lm


def _local_model_path(spec: str) -> Path:
    if spec == LOCAL:
        from filingqa.models.store import ensure_llm

        return ensure_llm()
    path = Path(spec.removeprefix(f"{LOCAL}:")).expanduser()
    if not path.is_file():
        raise FileNotFoundError(f"no GGUF model at {path} (from --lm {spec})")
    return path


@functools.cache
def _shared_engine(model_path: str, n_ctx: int) -> LlamaCppEngine:
    """One engine (one loaded model) per file and context size in this process.

    Closed at exit: left to garbage collection during interpreter teardown, llama-cpp-python
    frees the model after its bindings are gone and prints a traceback.
    """
    engine = LlamaCppEngine(model_path, n_ctx=n_ctx)
    atexit.register(engine.close)
    return engine
