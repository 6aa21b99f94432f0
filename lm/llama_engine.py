"""The embedded LLM: llama-cpp-python in process, as a DSPy engine (``dspy.LM(engine=...)``).

DSPy 3.4 drives custom backends through an engine object with ``complete(Request)``; the
``dspy.LM`` around it owns caching, history, usage accounting and retries, so this module
only turns one canonical request into one llama.cpp chat completion.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dspy.lm15 import (
    ContextLengthError,
    Message,
    Request,
    Response,
    TextPart,
    Usage,
    response_to_events,
)

from filingqa.lm.json_output import escape_raw_control_chars
from filingqa.lm.parallel_samples import (
    MAX_SEQUENCES,
    Decoded,
    DecodedTogether,
    Draw,
    SamplerSettings,
    decode_together,
    draws_together,
)
from filingqa.lm.prefix_states import DEFAULT_STATES, PrefixStates, restore_context, save_context

DEFAULT_CONTEXT_TOKENS = 8192
DEFAULT_MAX_TOKENS = 1024
# Under the schema grammar a list may otherwise grow until the token limit: a small model
# can repeat one query variant until the reply is cut off. No signature of the program asks
# for more items than this.
MAX_ARRAY_ITEMS = 12


class LlamaCppEngine:
    """Runs chat completions on a local GGUF model; one generation at a time (thread-safe).

    ``n_threads`` (generation threads) defaults to every CPU rather than llama-cpp-python's
    own default, half of them, which generates slower (``benchmarks/llm_threads.py``
    compares the two; figures in docs/benchmarks.md); prompt processing already uses every
    CPU.

    JSON requests from DSPy's JSONAdapter (``response_format`` with a JSON schema) are
    decoded under llama.cpp's schema grammar, given as ``{"type": "json_object",
    "schema": ...}`` — the only form llama-cpp-python honours.

    Two ways to spend less time on a question's requests, both on by default:
    ``prefix_states`` keeps that many recent contexts' KV states and resumes a prompt from
    the one sharing its longest prefix (:mod:`~filingqa.lm.prefix_states`; 0: only the
    live context, llama-cpp-python's own reuse); ``parallel_samples`` decodes the greedy and
    sampled requests of one prompt a program lists with
    :func:`~filingqa.lm.parallel_samples.sampled_together` as one batch.
    """

    supports_response_schema = True
    supports_function_calling = False
    supports_reasoning = False
    supported_params = frozenset(
        {"temperature", "max_tokens", "top_p", "top_k", "stop", "seed", "response_format"}
    )

    def __init__(
        self,
        model_path: str | Path,
        *,
        n_ctx: int = DEFAULT_CONTEXT_TOKENS,
        n_threads: int | None = None,
        seed: int = 0,
        prefix_states: int = DEFAULT_STATES,
        parallel_samples: bool = True,
    ) -> None:
        self.model_path = Path(model_path)
        self.n_ctx = n_ctx
        self.n_threads = n_threads or os.cpu_count() or 1
        self.seed = seed
        self.prefix_states = prefix_states
        self.parallel_samples = parallel_samples
        self._states = PrefixStates(prefix_states) if prefix_states else None
        self._decoded: dict[tuple[str, Draw], Response] = {}
        self._llama: Any = None
        self._template: Any = None
        self._lock = threading.Lock()

    def complete(self, request: Request) -> Response:
        """Generate one completion for ``request``."""
        messages = chat_messages(request)
        settings = sampling(request, self.seed)
        with self._lock:
            llama = self._model()
            batch = self._batch(settings)
            if batch:
                return self._decode_together(llama, messages, settings, batch)
            with self._measured(llama, lambda: self._prompt_tokens(llama, messages)) as measure:
                try:
                    completion = llama.create_chat_completion(messages=messages, **settings)
                except ValueError as problem:
                    if "context window" in str(problem) or "exceed" in str(problem):
                        raise ContextLengthError(str(problem)) from problem
                    raise
        return to_response(
            completion,
            json_mode="response_format" in settings,
            seconds=measure.seconds,
            perf=measure.perf,
        )

    def _batch(self, settings: dict[str, Any]) -> tuple[Draw, ...]:
        """The draws to decode in one batch with this request (it among them), or ``()``."""
        draws = draws_together()
        if not self.parallel_samples or draws is None or "response_format" in settings:
            return ()
        if settings["temperature"] == 0:
            listed = draws.greedy
        else:
            listed = (
                settings["seed"] in draws.seeds and settings["temperature"] == draws.temperature
            )
        return draws.batch()[:MAX_SEQUENCES] if listed else ()

    def _decode_together(
        self,
        llama: Any,
        messages: list[dict[str, str]],
        settings: dict[str, Any],
        batch: tuple[Draw, ...],
    ) -> Response:
        """This request's completion, decoded with the same prompt's other ``batch`` draws
        on first sight (their completions wait for their own requests)."""
        shared = {k: v for k, v in settings.items() if k not in ("seed", "temperature")}
        key = json.dumps([messages, shared])
        mine: Draw = None if settings["temperature"] == 0 else settings["seed"]
        saved = self._decoded.pop((key, mine), None)
        if saved is not None:
            return saved
        prompt = self._prompt_tokens(llama, messages)
        rule = SamplerSettings(
            temperature=draws_together().temperature,  # type: ignore[union-attr]
            top_k=settings["top_k"],
            top_p=settings["top_p"],
            min_p=settings["min_p"],
        )
        with self._measured(llama, lambda: prompt):
            together = decode_together(
                llama,
                prompt,
                batch,
                rule,
                max_tokens=settings["max_tokens"],
                stop=settings.get("stop", ()),
            )
        self._decoded = {
            (key, draw): decoded_response(
                one, prompt_tokens=len(prompt), batch=together if draw == mine else None
            )
            for draw, one in zip(batch, together.decoded, strict=True)
        }
        return self._decoded.pop((key, mine))

    @contextmanager
    def _measured(self, llama: Any, prompt_tokens: Callable[[], list[int]]) -> Iterator[Measure]:
        """Around one generation: resume the best saved context first (the prompt's
        tokens are asked for only then), read llama.cpp's perf counters and the wall time,
        and save the context after."""
        measure = Measure()
        started = time.perf_counter()
        if self._states is not None:
            prompt = prompt_tokens()
            live = llama.input_ids[: llama.n_tokens].tolist()
            best = self._states.best(prompt, live)
            if best is not None:
                restore_context(llama, best)
        reset_perf(llama)
        yield measure
        measure.perf = read_perf(llama)
        if self._states is not None:
            self._states.add(save_context(llama))
        measure.seconds = time.perf_counter() - started

    def _prompt_tokens(self, llama: Any, messages: list[dict[str, str]]) -> list[int]:
        """``messages`` as the tokens llama-cpp-python's chat handler sends for them."""
        if self._template is None:
            self._template = chat_formatter(llama)
        formatted = self._template(messages=messages)
        return llama.tokenize(
            formatted.prompt.encode("utf-8"), add_bos=not formatted.added_special, special=True
        )

    def stream(self, request: Request) -> Iterator[Any]:
        """Stream as one complete response (generation is local and short)."""
        return response_to_events(self.complete(request))

    def close(self) -> None:
        """Free the model's memory; it reloads on the next call."""
        with self._lock:
            if self._llama is not None:
                self._llama.close()
            self._llama = None

    def dump_state(self) -> dict[str, Any]:
        """JSON state for saving a program that carries this LM."""
        return {
            "model_path": str(self.model_path),
            "n_ctx": self.n_ctx,
            "seed": self.seed,
            "prefix_states": self.prefix_states,
            "parallel_samples": self.parallel_samples,
        }

    @classmethod
    def load_state(cls, state: dict[str, Any]) -> LlamaCppEngine:
        """Rebuild an engine from :meth:`dump_state` output."""
        return cls(
            state["model_path"],
            n_ctx=state.get("n_ctx", DEFAULT_CONTEXT_TOKENS),
            seed=state.get("seed", 0),
            prefix_states=state.get("prefix_states", DEFAULT_STATES),
            parallel_samples=state.get("parallel_samples", True),
        )

    def _model(self) -> Any:
        if self._llama is None:
            self._llama = _load(self.model_path, self.n_ctx, self.n_threads, self.seed)
        return self._llama


def _load(model_path: Path, n_ctx: int, n_threads: int, seed: int) -> Any:
    """The model with a context for :data:`MAX_SEQUENCES` parallel sequences over one
    unified KV cache (each sequence may use the whole ``n_ctx``). llama-cpp-python's
    ``Llama`` takes neither setting, so its context defaults are amended while it loads."""
    import llama_cpp.llama_cpp as low_level  # where Llama looks the defaults up
    from llama_cpp import Llama

    defaults = low_level.llama_context_default_params

    def parallel_defaults() -> Any:
        params = defaults()
        params.n_seq_max = MAX_SEQUENCES
        params.kv_unified = True
        return params

    low_level.llama_context_default_params = parallel_defaults
    try:
        return Llama(
            model_path=str(model_path), n_ctx=n_ctx, n_threads=n_threads, seed=seed, verbose=False
        )
    finally:
        low_level.llama_context_default_params = defaults


def chat_formatter(llama: Any) -> Any:
    """The formatter llama-cpp-python builds from the model's own chat template."""
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    eos, bos = llama.token_eos(), llama.token_bos()
    return Jinja2ChatFormatter(
        template=llama.metadata["tokenizer.chat_template"],
        eos_token=_token_text(llama, eos),
        bos_token=_token_text(llama, bos),
        stop_token_ids=[eos],
    )


def _token_text(llama: Any, token: int) -> str:
    return llama.detokenize([token], special=True).decode("utf-8") if token != -1 else ""


class Measure:
    """What one generation cost: wall seconds and llama.cpp's perf counters."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.perf: Perf | None = None


@dataclass(frozen=True)
class Perf:
    """llama.cpp's own counters over one completion: the prompt tokens it evaluated (those
    not served from the KV cache), and the seconds spent on the prompt and on generation."""

    prompt_evaluated: int
    prefill_seconds: float
    generation_seconds: float


def reset_perf(llama: Any) -> None:
    """Zero the perf counters of ``llama``'s context."""
    import llama_cpp

    llama_cpp.llama_perf_context_reset(llama.ctx)


def read_perf(llama: Any) -> Perf:
    """The perf counters of ``llama``'s context since :func:`reset_perf`."""
    import llama_cpp

    data = llama_cpp.llama_perf_context(llama.ctx)
    return Perf(
        prompt_evaluated=data.n_p_eval,
        prefill_seconds=data.t_p_eval_ms / 1000,
        generation_seconds=data.t_eval_ms / 1000,
    )


def sampling(request: Request, seed: int) -> dict[str, Any]:
    """llama.cpp settings for ``request``: greedy unless a temperature is given, the
    in-process sampling defaults spelled out, and JSON requests under the schema grammar."""
    config = request.config
    settings: dict[str, Any] = {
        "temperature": 0.0 if config.temperature is None else config.temperature,
        "max_tokens": config.max_tokens or DEFAULT_MAX_TOKENS,
        "seed": seed if config.seed is None else config.seed,
        # llama-cpp-python's in-process defaults, stated so that its server (whose own
        # defaults differ: repeat_penalty 1.1) samples the same way.
        "top_k": config.top_k or 40,
        "top_p": 0.95 if config.top_p is None else config.top_p,
        "min_p": 0.05,
        "repeat_penalty": 1.0,
    }
    if config.stop:
        settings["stop"] = list(config.stop)
    schema = _json_schema(config.response_format)
    if schema is not None:
        settings["response_format"] = {"type": "json_object", "schema": bounded(schema)}
    elif config.response_format is not None:
        settings["response_format"] = {"type": "json_object"}
    return settings


def bounded(schema: Any) -> Any:
    """``schema`` with ``maxItems`` (:data:`MAX_ARRAY_ITEMS`) on every array that has none,
    so the grammar closes a looping list."""
    if isinstance(schema, list):
        return [bounded(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: bounded(value) for key, value in schema.items()}
    if out.get("type") == "array" and "maxItems" not in out:
        out["maxItems"] = MAX_ARRAY_ITEMS
    return out


def _json_schema(response_format: dict[str, Any] | None) -> dict[str, Any] | None:
    """The JSON schema inside an OpenAI-style ``response_format``, if there is one."""
    if not response_format:
        return None
    nested = response_format.get("json_schema")  # OpenAI's shape; lm15's is flat
    if isinstance(nested, dict):
        return nested.get("schema")
    return response_format.get("schema")


def chat_messages(request: Request) -> list[dict[str, str]]:
    """The request as OpenAI-style chat messages (a developer turn becomes a system one)."""
    messages: list[dict[str, str]] = []
    if request.system is not None:
        system = request.system
        text = (
            system
            if isinstance(system, str)
            else "".join(getattr(part, "text", "") for part in system)
        )
        messages.append({"role": "system", "content": text})
    for message in request.messages:
        role = "system" if message.role == "developer" else message.role
        messages.append({"role": role, "content": message.text or ""})
    return messages


def to_response(
    completion: dict[str, Any], *, json_mode: bool, seconds: float, perf: Perf | None = None
) -> Response:
    """A chat completion (llama.cpp's dict) as DSPy's response; raw control characters in
    JSON strings, which the schema grammar lets through, are escaped. With ``perf``, the
    prompt tokens not evaluated count as read from the cache, and the prefill and
    generation seconds join the total ``seconds`` in ``provider_data``."""
    choice = completion["choices"][0]
    text = choice["message"].get("content") or ""
    if json_mode:
        text = escape_raw_control_chars(text)
    usage = completion.get("usage") or {}
    sent = usage.get("prompt_tokens")
    finish = "length" if choice.get("finish_reason") == "length" else "stop"
    timings: dict[str, float] = {"seconds": round(seconds, 3)}
    cached = None
    if perf is not None:
        timings["prefill_seconds"] = round(perf.prefill_seconds, 3)
        timings["generation_seconds"] = round(perf.generation_seconds, 3)
        if sent is not None:
            cached = max(0, sent - perf.prompt_evaluated)
    return Response(
        id=completion.get("id"),
        model=Path(completion.get("model", "local")).name,
        message=Message.assistant([TextPart(text)]),
        finish_reason=finish,
        usage=Usage(
            input_tokens=sent,
            output_tokens=usage.get("completion_tokens"),
            total_tokens=usage.get("total_tokens"),
            cache_read_tokens=cached,
        ),
        provider_data=timings,
    )


def decoded_response(
    decoded: Decoded, *, prompt_tokens: int, batch: DecodedTogether | None
) -> Response:
    """One sequence decoded together with others as DSPy's response; the ``batch``'s
    prompt and time are counted on the request that decoded it, the others (``None``)
    were served with it."""
    perf = Perf(0, 0.0, 0.0)
    if batch is not None:
        perf = Perf(batch.prompt_evaluated, batch.prefill_seconds, batch.generation_seconds)
    completion = {
        "id": None,
        "model": "local",
        "choices": [{"message": {"content": decoded.text}, "finish_reason": decoded.finish_reason}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": decoded.tokens,
            "total_tokens": prompt_tokens + decoded.tokens,
        },
    }
    seconds = perf.prefill_seconds + perf.generation_seconds
    return to_response(completion, json_mode=False, seconds=seconds, perf=perf)
