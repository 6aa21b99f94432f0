"""The fault-injection harness: an LM that answers by rule and injects faults on demand.

``FaultyEngine(rules, faults)`` answers each prompt with the first rule whose marker the
prompt contains (as the program's own tests do), except that a prompt matching a fault's
marker gets that fault instead: an exception as the backend would raise it, or a broken
reply. ``faulty_lm(...)`` wraps it in a ``dspy.LM`` (cache off, DSPy retries off).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, get_args

import dspy
from dspy import lm15
from dspy.lm15 import Message, Response, TextPart, Usage, response_to_events

FaultName = Literal[
    "timeout",
    "rate_limit",
    "connection",
    "server_error",
    "empty_output",
    "truncated_output",
    "unparseable",
    "context_overflow",
    "refusal",
]
FAULTS: tuple[FaultName, ...] = get_args(FaultName)
Reply = str | dict | Callable[[str], str | dict]

AMBIGUITY = "more than one reasonable answer"
DECOMPOSE = "Split a question about company filings"
REWRITE = "Rewrite a question about a company filing"
HYDE = "Write different search queries for the question"
CURATE = "Choose the retrieved passages needed"
WRITE = "Write Python code that computes"
REPAIR = "The program above failed"
REVISE = "its answer was rejected"
VERIFY = "Check a draft answer against the evidence"
REFINE = "Write new search questions"
COT = "in a sentence or two"
REVIEW = "A draft answer refused"
AGGREGATE = "Combine the answers to each reading"

NO_AMBIGUITY = {"report": {"kind": "none", "reason": "", "interpretations": []}}
ACCEPT = {"reasons": ["inputs match the table"], "missing": "", "verdict": "ACCEPT"}
CONFIRM_REFUSAL = {"decision": "refuse", "answer": "the evidence does not state it"}


@dataclass
class Injection:
    """Inject ``fault`` into prompts containing ``marker``: the first ``times`` of them, or
    all when ``times`` is None. ``context_chars``: with ``context_overflow``, overflow only
    while the prompt is longer than this (so shrinking the evidence can succeed)."""

    marker: str
    fault: FaultName
    times: int | None = None
    retry_after: float | None = None
    context_chars: int | None = None


def fenced(code: str) -> str:
    return f"```python\n{code}\n```"


class FaultyEngine:
    """A DSPy engine: replies by rule, faults by injection; records every prompt."""

    def __init__(self, rules: list[tuple[str, Reply]], faults: list[Injection] = ()) -> None:
        self.rules = rules
        self.faults = list(faults)
        self.prompts: list[str] = []
        self.injected: list[FaultName] = []
        self._lock = threading.Lock()

    def complete(self, request) -> Response:
        system = request.system if isinstance(request.system, str) else ""
        prompt = system + "\n" + "\n".join(m.text or "" for m in request.messages)
        with self._lock:
            self.prompts.append(prompt)
            injection = self._due(prompt)
        reply = self._reply(prompt)
        if injection is None:
            return _response(reply)
        return self._inject(injection, reply)

    def stream(self, request):
        return response_to_events(self.complete(request))

    def close(self) -> None:
        pass

    def count(self, marker: str) -> int:
        return sum(marker in p for p in self.prompts)

    def _due(self, prompt: str) -> Injection | None:
        for injection in self.faults:
            if injection.marker not in prompt or injection.times == 0:
                continue
            if injection.context_chars is not None and len(prompt) <= injection.context_chars:
                continue
            if injection.times is not None:
                injection.times -= 1
            self.injected.append(injection.fault)
            return injection
        return None

    def _reply(self, prompt: str) -> str:
        for marker, reply in self.rules:
            if marker in prompt:
                text = reply(prompt) if callable(reply) else reply
                return text if isinstance(text, str) else json.dumps(text)
        raise AssertionError(f"no rule for prompt: {prompt[:300]}")

    def _inject(self, injection: Injection, reply: str) -> Response:
        fault = injection.fault
        if fault == "timeout":
            raise lm15.TimeoutError("the request timed out after 120 s")
        if fault == "rate_limit":
            raise lm15.RateLimitError("429 Too Many Requests", retry_after=injection.retry_after)
        if fault == "connection":
            raise lm15.TransportError("connection reset by peer")
        if fault == "server_error":
            raise lm15.ServerError("503 Service Unavailable", status=503)
        if fault == "context_overflow":
            raise lm15.ContextLengthError("Requested tokens (9000) exceed context window of 8192")
        if fault == "empty_output":
            return _response("")
        if fault == "truncated_output":
            return _response(reply[: max(1, len(reply) // 2)], finish="length")
        if fault == "unparseable":
            return _response("<html><body>Bad gateway</body></html>")
        return _response("I'm sorry, but I can't help with that request.")


def _response(text: str, finish: str = "stop") -> Response:
    return Response(
        id=None,
        model="faulty",
        message=Message.assistant([TextPart(text)]),
        finish_reason=finish,
        usage=Usage(input_tokens=10, output_tokens=5, total_tokens=15),
    )


def faulty_lm(rules: list[tuple[str, Reply]], faults: list[Injection] = ()) -> dspy.LM:
    """A ``dspy.LM`` over a :class:`FaultyEngine` (cache and DSPy retries off)."""
    return dspy.LM("faulty/test", engine=FaultyEngine(rules, faults), cache=False, num_retries=0)
