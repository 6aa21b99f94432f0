"""One fake DSPy engine for every test: scripted replies, request recording, injected faults.

:class:`FakeEngine` asks a responder for each completion: :func:`in_order` replays a list,
:func:`by_marker` answers with the first rule whose marker the prompt contains (so
concurrent calls stay deterministic), and a test may pass its own function of the request.
The engine keeps every request and its prompt text, and can inject a fault into prompts
holding a marker (:class:`Injection`) or raise ``KeyboardInterrupt`` on a given call.
:func:`fake_lm` wraps it in a ``dspy.LM`` with DSPy's cache and retries off. The engine
builds on the package's :class:`~filingqa.lm.reply_engine.TextEngine`, which makes the
responses.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal, get_args

import dspy
from dspy import lm15
from dspy.lm15 import FinishReason, Request, Response, Usage

from filingqa.lm.reply_engine import SCRIPTED_USAGE, TextEngine, prompt_text

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
Rule = tuple[str, Reply]
Responder = Callable[[Request], str]


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


def in_order(replies: Iterable[str]) -> Responder:
    """A responder replaying ``replies`` one per request; running out fails the test."""
    queue = list(replies)

    def respond(request: Request) -> str:
        if not queue:
            raise AssertionError("the scripted LM ran out of replies")
        return queue.pop(0)

    return respond


def by_marker(rules: Iterable[Rule]) -> Responder:
    """A responder using the first rule whose marker the prompt contains; a dict reply is
    sent as JSON, a callable one is called with the prompt."""
    ordered = list(rules)

    def respond(request: Request) -> str:
        prompt = prompt_text(request)
        for marker, reply in ordered:
            if marker in prompt:
                text = reply(prompt) if callable(reply) else reply
                return text if isinstance(text, str) else json.dumps(text)
        raise AssertionError(f"no rule for prompt: {prompt[:300]}")

    return respond


class FakeEngine(TextEngine):
    """A DSPy engine answering through ``respond``; records every request, injects
    ``faults`` and, with ``interrupt_at``, raises ``KeyboardInterrupt`` on that call. Each
    completion reports ``usage`` and, when given, ``provider_data`` (an engine's own
    measurements, e.g. prefill and generation seconds)."""

    def __init__(
        self,
        respond: Responder,
        faults: Iterable[Injection] = (),
        interrupt_at: int | None = None,
        *,
        usage: Usage = SCRIPTED_USAGE,
        provider_data: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(model="fake", usage=usage)
        self.provider_data = provider_data
        self.respond = respond
        self.faults = list(faults)
        self.interrupt_at = interrupt_at
        self.requests: list[Request] = []
        self.prompts: list[str] = []
        self.injected: list[FaultName] = []
        self._lock = threading.Lock()

    @property
    def calls(self) -> int:
        """How many requests the engine has received."""
        return len(self.requests)

    def count(self, marker: str) -> int:
        """How many prompts so far contained ``marker``."""
        return sum(marker in p for p in self.prompts)

    def complete(self, request: Request) -> Response:
        """Record ``request``; the responder's reply, or the fault due for its prompt."""
        prompt = prompt_text(request)
        with self._lock:
            self.requests.append(request)
            self.prompts.append(prompt)
            if self.calls == self.interrupt_at:
                raise KeyboardInterrupt
            injection = self._due(prompt)
            reply = self.respond(request)
        if injection is None:
            return self.response(reply)
        return self._inject(injection, reply)

    def response(self, text: str, finish: FinishReason = "stop") -> Response:
        """``text`` as the engine's completion, with its ``provider_data``."""
        response = super().response(text, finish)
        return dataclasses.replace(response, provider_data=self.provider_data)

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

    def _inject(self, injection: Injection, reply: str) -> Response:
        """The fault as the backend would show it: an exception, or a broken reply."""
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
            return self.response("")
        if fault == "truncated_output":
            return self.response(reply[: max(1, len(reply) // 2)], finish="length")
        if fault == "unparseable":
            return self.response("<html><body>Bad gateway</body></html>")
        return self.response("I'm sorry, but I can't help with that request.")


def fake_lm(
    respond: Responder,
    faults: Iterable[Injection] = (),
    interrupt_at: int | None = None,
    model: str = "fake/test",
) -> dspy.LM:
    """A ``dspy.LM`` named ``model`` over a :class:`FakeEngine` (cache and retries off)."""
    engine = FakeEngine(respond, faults, interrupt_at)
    return dspy.LM(model, engine=engine, cache=False, num_retries=0)


def marker_lm(rules: Iterable[Rule], faults: Iterable[Injection] = ()) -> dspy.LM:
    """A :func:`fake_lm` answering by marker, with ``faults`` injected."""
    return fake_lm(by_marker(rules), faults)
