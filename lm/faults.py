"""Faults: what kind of failure stopped a step, named so the answer and its trace can say so.

Every LM-backed step of :class:`~filingqa.program.financial_qa.FinancialQA` runs under
:func:`classify` discipline: a failure becomes a :class:`Fault` recorded on the step, and the
step degrades (skips, falls back, or ends the question with outcome ``error``) instead of
raising. Retries of transient faults happen below this level, in the LM
(:class:`~filingqa.lm.backbone.RetryPolicy`); what reaches a step has already been retried.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any, Literal, TypeVar

import dspy
from dspy.lm15 import ContextLengthError
from dspy.utils.exceptions import (
    AdapterParseError,
    ContextWindowExceededError,
    LMError,
    LMRateLimitError,
    LMTimeoutError,
    LMTransportError,
)
from pydantic import BaseModel

from filingqa.lm.trace import Trace
from filingqa.records.refusal import is_refusal

FaultKind = Literal[
    "timeout",
    "rate_limit",
    "connection",
    "empty_output",
    "truncated_output",
    "unparseable",
    "context_overflow",
    "refusal",
    "lm_error",
    "step_error",
    "invalid_input",
    "unsupported_number",
]
MESSAGE_CHARS = 300  # a fault's message is kept short: it goes into answers and traces
T = TypeVar("T")


class Fault(BaseModel):
    """One failure of one step: its kind and a short message."""

    step: str
    kind: FaultKind
    message: str

    def describe(self) -> str:
        """``"<step>: <kind> (<message>)"`` for reasons and notes."""
        return f"{self.step}: {self.kind} ({self.message})"


def classify(problem: BaseException, history: list[dict[str, Any]] | None = None) -> FaultKind:
    """The kind of ``problem``; ``history`` (the LM's) tells a truncated reply from junk."""
    if is_context_overflow(problem):
        return "context_overflow"
    if isinstance(problem, LMRateLimitError):
        return "rate_limit"
    if isinstance(problem, LMTimeoutError | builtins.TimeoutError):
        return "timeout"
    if isinstance(problem, LMTransportError | ConnectionError):
        return "connection"
    if isinstance(problem, AdapterParseError):
        reply = problem.lm_response or ""
        if not reply.strip():
            return "empty_output"
        if history and _truncated(history[-1]):
            return "truncated_output"
        return "refusal" if is_refusal(reply) else "unparseable"
    return "lm_error" if isinstance(problem, LMError) else "step_error"


def is_context_overflow(problem: BaseException) -> bool:
    """Whether ``problem`` says the prompt does not fit the model's context window."""
    if isinstance(problem, ContextWindowExceededError | ContextLengthError):
        return True
    text = str(problem).lower()
    return isinstance(problem, ValueError) and "exceed" in text and "context" in text


def fault_of(step: str, problem: BaseException, history: list[dict[str, Any]] | None) -> Fault:
    """The :class:`Fault` for ``problem`` raised in ``step``."""
    message = " ".join(str(problem).split())[:MESSAGE_CHARS] or type(problem).__name__
    return Fault(step=step, kind=classify(problem, history), message=message)


def _truncated(entry: dict[str, Any]) -> bool:
    """Whether the LM history ``entry`` is a reply that stopped at the token limit."""
    response = entry.get("response")
    choices = _field(response, "choices") or []  # litellm's OpenAI-shaped response
    reasons = [_field(response, "finish_reason"), *(_field(c, "finish_reason") for c in choices)]
    return "length" in reasons


def _field(item: object, name: str) -> Any:
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


def attempt(
    trace: Trace,
    name: str,
    call: Callable[[], T],
    *,
    typed: bool = True,
    note: Callable[[T], str] | None = None,
) -> T | Fault:
    """Run ``call`` as step ``name`` of ``trace``; a failure comes back as a :class:`Fault`
    recorded on the step (``fault`` and ``note``) instead of raising.

    For ``typed`` steps (JSON outputs) a reply cut at the token limit is a fault too: the
    parser may have repaired it into a plausible but truncated value; for other steps (code,
    judged by running it) the cut is recorded on the step and the result kept. ``note``
    describes a successful result on the step.
    """
    with trace.step(name) as step:
        lm = dspy.settings.lm
        history = lm.history if lm is not None else []
        before = len(history)
        try:
            result = call()
        except Exception as problem:  # every failure degrades to a marked outcome
            fault = fault_of(name, problem, history)
        else:
            cut = sum(_truncated(entry) for entry in history[before:])
            step.note = note(result) if note else step.note
            if cut and not typed:  # code is judged by running it; the cut is still recorded
                step.fault = "truncated_output"
                step.note = f"{step.note}; {cut} replies hit the token limit".lstrip("; ")
            if not (cut and typed):
                return result
            fault = Fault(
                step=name, kind="truncated_output", message="the reply hit the token limit"
            )
        step.fault = fault.kind
        step.note = fault.describe()
        return fault
