"""What the program returns for a question."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from filingqa.checks.citations import Citation
from filingqa.lm.trace import Trace
from filingqa.retrieval import Passage
from filingqa.sandbox.outcome import Answer

Outcome = Literal["answered", "unverified", "refused", "error"]


class ReadingAnswer(BaseModel):
    """The answer under one reading of an ambiguous question."""

    axis: str
    question: str
    answer: str


class FinalAnswer(BaseModel):
    """An answer with its value, working, citations, confidence and trace.

    ``outcome`` is ``answered`` when the verifier accepted (or a single pass ran clean),
    ``unverified`` when the loop ran out before an ACCEPT (the best-supported draft is
    returned), ``refused`` when the evidence does not answer the question, ``error`` when
    a step failed; ``reason`` says why.
    """

    question: str
    answer: str
    value: Answer | None = None
    unit: str | None = None
    working: str = ""
    path: Literal["pot", "cot"] = "pot"
    citations: list[Citation] = Field(default_factory=list)
    evidence: list[Passage] = Field(default_factory=list, description="what it was answered from")
    interpretations: list[ReadingAnswer] = Field(default_factory=list)
    confidence: float = 0.0
    outcome: Outcome = "answered"
    reason: str = ""
    trace: Trace = Field(default_factory=Trace)

    @property
    def refused(self) -> bool:
        return self.outcome == "refused"
