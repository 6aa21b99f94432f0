"""The trace of one question: each step with its LM calls, tokens, latency and a note.

Besides the total ``tokens``, each step counts the prompt tokens sent, those the backbone
evaluated (not served from its KV cache) and the tokens generated, read from DSPy's usage,
and the prefill and generation seconds the engine reports in its response's
``provider_data`` (None where the backbone reports none, e.g. a hosted API).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypedDict

import dspy
from pydantic import BaseModel, Field


class Step(BaseModel):
    """One step of the program as it ran; ``fault`` names the failure that stopped it
    (a :data:`~filingqa.lm.faults.FaultKind`), None when it ran to the end."""

    name: str
    note: str = ""
    fault: str | None = None
    lm_calls: int = 0
    tokens: int = 0
    seconds: float = 0.0
    prompt_tokens: int = 0
    prompt_tokens_evaluated: int = 0
    generated_tokens: int = 0
    prefill_seconds: float | None = None
    generation_seconds: float | None = None


class CallCosts(TypedDict):
    """What :func:`call_costs` reads from DSPy history entries (the cost fields of a Step)."""

    tokens: int
    prompt_tokens: int
    prompt_tokens_evaluated: int
    generated_tokens: int
    prefill_seconds: float | None
    generation_seconds: float | None


StepListener = Callable[["Step"], None]
"""Told of each step as it is recorded (a server streams them; it may raise to stop)."""

step_listener: ContextVar[StepListener | None] = ContextVar("step_listener", default=None)
"""The listener of the steps recorded in this context (and the threads that copy it)."""


class Trace(BaseModel):
    """Every step taken for one question, in order."""

    steps: list[Step] = Field(default_factory=list)

    def record(self, step: Step) -> Step:
        """Append ``step`` and tell the context's :data:`step_listener`, if any."""
        self.steps.append(step)
        listener = step_listener.get()
        if listener is not None:
            listener(step)
        return step

    @contextmanager
    def step(self, name: str) -> Iterator[Step]:
        """Record the LM calls, tokens and time spent inside the ``with`` block."""
        lm = dspy.settings.lm
        before = len(lm.history) if lm is not None else 0
        started = time.perf_counter()
        record = Step(name=name)
        try:
            yield record
        finally:
            calls = lm.history[before:] if lm is not None else []
            record.lm_calls = len(calls)
            record.seconds = round(time.perf_counter() - started, 3)
            for field, value in call_costs(calls).items():
                setattr(record, field, value)
            self.record(record)

    @property
    def faults(self) -> list[Step]:
        """The steps that failed, in order."""
        return [s for s in self.steps if s.fault is not None]

    @property
    def lm_calls(self) -> int:
        return sum(s.lm_calls for s in self.steps)

    @property
    def tokens(self) -> int:
        return sum(s.tokens for s in self.steps)

    @property
    def seconds(self) -> float:
        return round(sum(s.seconds for s in self.steps), 3)

    @property
    def prompt_tokens(self) -> int:
        return sum(s.prompt_tokens for s in self.steps)

    @property
    def prompt_tokens_evaluated(self) -> int:
        return sum(s.prompt_tokens_evaluated for s in self.steps)

    @property
    def generated_tokens(self) -> int:
        return sum(s.generated_tokens for s in self.steps)

    @property
    def prefill_seconds(self) -> float | None:
        return sum_reported(s.prefill_seconds for s in self.steps)

    @property
    def generation_seconds(self) -> float | None:
        return sum_reported(s.generation_seconds for s in self.steps)


class CallLog:
    """The DSPy history entries of every LM call made inside :meth:`recording`, from any
    thread that copied its context: DSPy appends each entry to the ``history`` of every
    calling module in ``caller_modules``, where this log stands first."""

    def __init__(self) -> None:
        self.history: list[dict[str, Any]] = []

    @contextmanager
    def recording(self) -> Iterator[CallLog]:
        """Log the calls made inside the ``with`` block."""
        callers = [self, *(dspy.settings.caller_modules or [])]
        with dspy.context(caller_modules=callers):
            yield self


def call_costs(calls: list[dict[str, Any]]) -> CallCosts:
    """The tokens, prompt tokens sent and evaluated, generated tokens, and prefill and
    generation seconds of DSPy history entries. Only calls that reached the model count (a
    cache hit reports no usage); a prompt token not reported as cached counts as evaluated."""
    reached = [call for call in calls if call.get("usage")]
    usages = [call["usage"] for call in reached]
    sent = sum(usage.get("prompt_tokens") or 0 for usage in usages)
    return {
        "tokens": sum(usage.get("total_tokens") or 0 for usage in usages),
        "prompt_tokens": sent,
        "prompt_tokens_evaluated": sent - sum(_cached_tokens(usage) for usage in usages),
        "generated_tokens": sum(usage.get("completion_tokens") or 0 for usage in usages),
        "prefill_seconds": sum_reported(_reported(c, "prefill_seconds") for c in reached),
        "generation_seconds": sum_reported(_reported(c, "generation_seconds") for c in reached),
    }


def sum_reported(values: Iterable[float | None]) -> float | None:
    """The sum of the values reported; None when none was."""
    reported = [value for value in values if value is not None]
    return round(sum(reported), 3) if reported else None


def _cached_tokens(usage: dict[str, Any]) -> int:
    return (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0


def _reported(call: dict[str, Any], key: str) -> float | None:
    """``key`` summed over the ``provider_data`` of a history entry's responses (one, or a
    tuple of them); None when no response reports it."""
    response = call.get("response")
    responses = response if isinstance(response, tuple | list) else [response]
    datas = [getattr(r, "provider_data", None) for r in responses]
    return sum_reported(data.get(key) for data in datas if isinstance(data, dict))
