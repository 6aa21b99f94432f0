"""The trace of one question: each step with its LM calls, tokens, latency and a note."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

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


class Trace(BaseModel):
    """Every step taken for one question, in order."""

    steps: list[Step] = Field(default_factory=list)

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
            record.tokens = sum((c.get("usage") or {}).get("total_tokens") or 0 for c in calls)
            record.seconds = round(time.perf_counter() - started, 3)
            self.steps.append(record)

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
