"""One way to get a DSPy LM from a backbone, and the adapter each backbone parses best with.

A backbone string (``--lm``) is parsed once into a :class:`Backbone`, with the API base it
goes to; everything downstream reads that value. The strings:

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
from typing import Any, Literal

import dspy
from dspy.utils.exceptions import LMError, is_retryable_lm_error
from pydantic import BaseModel, ConfigDict, Field

from filingqa.core.cache import configure_dspy_cache
from filingqa.lm.evidence_first import EvidenceFirstChatAdapter, EvidenceFirstJSONAdapter
from filingqa.lm.llama_engine import DEFAULT_CONTEXT_TOKENS, LlamaCppEngine
from filingqa.lm.llama_server import LlamaServerEngine

LOCAL = "local"
LOCAL_MAX_TOKENS = 1024
_FILE_PREFIX = f"{LOCAL}:"
_SERVED_PREFIX = f"{LOCAL}@"

BackboneKind = Literal["embedded", "gguf", "served", "hosted"]
"""``embedded``: the pinned local model in process (``local``); ``gguf``: another GGUF file
in process (``local:<path>``); ``served``: the embedded model behind a llama.cpp server
(``local@<url>``); ``hosted``: a litellm model string."""


class ModelFile(BaseModel):
    """A local GGUF file a backbone runs: its name and sha256."""

    name: str
    sha256: str


class Backbone(BaseModel):
    """A backbone string parsed once (:meth:`parse`), with the API base it goes to.

    ``spec`` is the string as given (what a compiled artifact's manifest stores); ``gguf``
    the file of a ``local:<path>`` backbone; ``url`` the server of a ``local@<url>`` one.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    spec: str
    kind: BackboneKind
    gguf: Path | None = None
    url: str | None = None
    api_base: str | None = None

    @classmethod
    def parse(cls, spec: str = LOCAL, api_base: str | None = None) -> Backbone:
        """The backbone ``spec`` names (see the module docstring)."""
        if spec == LOCAL:
            return cls(spec=spec, kind="embedded", api_base=api_base)
        if spec.startswith(_FILE_PREFIX):
            gguf = Path(spec.removeprefix(_FILE_PREFIX)).expanduser()
            return cls(spec=spec, kind="gguf", gguf=gguf, api_base=api_base)
        if spec.startswith(_SERVED_PREFIX):
            url = spec.removeprefix(_SERVED_PREFIX)
            return cls(spec=spec, kind="served", url=url, api_base=api_base)
        return cls(spec=spec, kind="hosted", api_base=api_base)

    @property
    def in_process(self) -> bool:
        """Whether a GGUF model runs in this process (``local``, ``local:<path>``)."""
        return self.kind in ("embedded", "gguf")

    @property
    def local_model(self) -> bool:
        """Whether it is a small local model, in process or served (not a hosted one)."""
        return self.kind != "hosted"

    @property
    def served_url(self) -> str | None:
        """The llama.cpp server's URL of a ``local@<url>`` backbone, else None."""
        return self.url

    def model_path(self) -> Path:
        """The GGUF file an in-process backbone loads.

        Raises:
            filingqa.models.store.ModelNotReady: ``local`` and the model is missing or corrupt.
            FileNotFoundError: ``local:<path>`` and the file does not exist.
            ValueError: the backbone does not run in process.
        """
        if self.kind == "embedded":
            from filingqa.models.store import ensure_llm

            return ensure_llm()
        if self.gguf is None:
            raise ValueError(f"--lm {self.spec} does not run a GGUF file in process")
        if not self.gguf.is_file():
            raise FileNotFoundError(f"no GGUF model at {self.gguf} (from --lm {self.spec})")
        return self.gguf

    def model_file(self, *, progress: bool = True) -> ModelFile | None:
        """The GGUF file of an in-process backbone: the pinned model's name and hash
        (without reading it), or a ``local:<path>`` file hashed; None for the others."""
        if self.kind == "embedded":
            from filingqa.models.registry import DEFAULT_LLM

            return ModelFile(name=DEFAULT_LLM.file.name, sha256=DEFAULT_LLM.file.sha256)
        if self.gguf is None:
            return None
        from filingqa.models.verify import sha256_of

        return ModelFile(name=self.gguf.name, sha256=sha256_of(self.gguf, progress=progress))


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
    if isinstance(hint, bool) or not isinstance(hint, int | float):
        return None
    return float(hint) if math.isfinite(hint) and hint >= 0 else None


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


def is_embedded(spec: str) -> bool:
    """Whether a backbone string names the small local model, in process or served
    (:attr:`Backbone.local_model`; for a caller holding only the string)."""
    return Backbone.parse(spec).local_model


def served_url(spec: str) -> str | None:
    """The server URL of a ``local@<url>`` backbone string, else None
    (:attr:`Backbone.served_url`; for a caller holding only the string)."""
    return Backbone.parse(spec).served_url


def get_lm(
    backbone: Backbone | str = LOCAL,
    *,
    api_base: str | None = None,
    temperature: float = 0.0,
    max_tokens: int | None = None,
    cache: bool = True,
    n_ctx: int = DEFAULT_CONTEXT_TOKENS,
    retry: RetryPolicy | None = None,
    **litellm_kwargs: Any,
) -> dspy.LM:
    """A ``dspy.LM`` for ``backbone``; DSPy's response cache lives under the filingqa home.

    A string is parsed here, with ``api_base``; a :class:`Backbone` carries its own.
    Hosted backbones retry under ``retry`` (default :class:`RetryPolicy`), and each request
    times out after its ``timeout_seconds`` unless ``timeout`` is given.

    Raises:
        filingqa.models.store.ModelNotReady: ``local`` and the model is missing or corrupt.
        FileNotFoundError: ``local:<path>`` and the file does not exist.
        ValueError: ``api_base`` given with a :class:`Backbone` (it holds its own).
    """
    backbone = _parsed(backbone, api_base)
    configure_dspy_cache()
    if backbone.url is not None:
        return dspy.LM(
            model=f"local-server/{backbone.url}",
            engine=LlamaServerEngine(backbone.url),
            temperature=temperature,
            max_tokens=max_tokens or LOCAL_MAX_TOKENS,
            cache=cache,
            num_retries=0,
        )
    if backbone.in_process:
        path = backbone.model_path()
        return dspy.LM(
            model=f"local/{path.name}",
            engine=_shared_engine(str(path.resolve()), n_ctx),
            temperature=temperature,
            max_tokens=max_tokens or LOCAL_MAX_TOKENS,
            cache=cache,
            num_retries=0,
        )
    if backbone.api_base:
        litellm_kwargs["api_base"] = backbone.api_base
    policy = retry or RetryPolicy()
    litellm_kwargs.setdefault("timeout", policy.timeout_seconds)
    return RetryingLM(
        backbone.spec,
        policy=policy,
        temperature=temperature,
        max_tokens=max_tokens,
        cache=cache,
        **litellm_kwargs,
    )


def _parsed(backbone: Backbone | str, api_base: str | None) -> Backbone:
    """``backbone`` as a :class:`Backbone`: a string parsed with ``api_base``."""
    if isinstance(backbone, str):
        return Backbone.parse(backbone, api_base)
    if api_base is not None:
        raise ValueError("api_base goes with the backbone string: Backbone.parse(spec, api_base)")
    return backbone


def adapter_for(lm: dspy.BaseLM, *, evidence_first: bool = True) -> dspy.Adapter:
    """The adapter that parses reliably for ``lm``, laying requests out evidence first
    (:mod:`~filingqa.lm.evidence_first`) unless ``evidence_first`` is False (DSPy's own
    layout: a system message per signature, then the inputs in field order).

    In-process and llama.cpp-served models get DSPy's JSONAdapter, whose schema is
    enforced by llama.cpp's grammar: a small model's free-form ChatAdapter output often fails
    to parse, grammar-constrained JSON seldom does (docs/benchmarks.md). Hosted models
    keep DSPy's default ChatAdapter, which falls back to JSON by itself.
    """
    if isinstance(getattr(lm, "engine", None), LlamaCppEngine | LlamaServerEngine):
        return EvidenceFirstJSONAdapter() if evidence_first else dspy.JSONAdapter()
    return EvidenceFirstChatAdapter() if evidence_first else dspy.ChatAdapter()


def configure(backbone: Backbone | str | dspy.BaseLM = LOCAL, **lm_kwargs: Any) -> dspy.BaseLM:
    """Make ``backbone`` (or an LM) DSPy's default LM, with its adapter; returns the LM."""
    lm = backbone if isinstance(backbone, dspy.BaseLM) else get_lm(backbone, **lm_kwargs)
    dspy.configure(lm=lm, adapter=adapter_for(lm))
    return lm


@functools.cache
def _shared_engine(model_path: str, n_ctx: int) -> LlamaCppEngine:
    """One engine (one loaded model) per file and context size in this process.

    Closed at exit: left to garbage collection during interpreter teardown, llama-cpp-python
    frees the model after its bindings are gone and prints a traceback.
    """
    engine = LlamaCppEngine(model_path, n_ctx=n_ctx)
    atexit.register(engine.close)
    return engine
