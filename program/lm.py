"""One way to get a DSPy LM from a backbone string, and the adapter each backbone parses best with.

- ``local`` → the embedded Qwen2.5-Coder-1.5B GGUF (pulled by ``filingqa models pull``),
  run in process by llama-cpp-python;
- ``local:<path.gguf>`` → any GGUF file, same engine;
- anything else → a litellm model string through ``dspy.LM`` (``openai/gpt-4o-mini``,
  ``anthropic/...``, ``ollama_chat/...``, ``openai/<name>`` with ``api_base``).
"""

from __future__ import annotations

import atexit
import functools
from pathlib import Path
from typing import Any

import dspy

from filingqa.cache import configure_dspy_cache
from filingqa.program.llama_engine import DEFAULT_CONTEXT_TOKENS, LlamaCppEngine

LOCAL = "local"
LOCAL_MAX_TOKENS = 1024


def is_local(spec: str) -> bool:
    """Whether a backbone string names an in-process GGUF model."""
    return spec == LOCAL or spec.startswith(f"{LOCAL}:")


def get_lm(
    spec: str = LOCAL,
    *,
    api_base: str | None = None,
    temperature: float = 0.0,
    max_tokens: int | None = None,
    cache: bool = True,
    n_ctx: int = DEFAULT_CONTEXT_TOKENS,
    **litellm_kwargs: Any,
) -> dspy.LM:
    """A ``dspy.LM`` for ``spec``; DSPy's response cache lives under the filingqa home.

    Raises:
        filingqa.models.store.ModelNotReady: ``local`` and the model is missing or corrupt.
        FileNotFoundError: ``local:<path>`` and the file does not exist.
    """
    configure_dspy_cache()
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
    return dspy.LM(
        spec, temperature=temperature, max_tokens=max_tokens, cache=cache, **litellm_kwargs
    )


def adapter_for(lm: dspy.LM) -> dspy.Adapter:
    """The adapter that parses reliably for ``lm``.

    In-process models get DSPy's JSONAdapter, whose schema is enforced by llama.cpp's
    grammar (measured with small coder models: ChatAdapter output failed to parse almost
    always, constrained JSON rarely). Hosted models keep DSPy's default ChatAdapter,
    which falls back to JSON by itself.
    """
    if isinstance(getattr(lm, "engine", None), LlamaCppEngine):
        return dspy.JSONAdapter()
    return dspy.ChatAdapter()


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
