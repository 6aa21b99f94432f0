"""Ambiguity: a question that admits several readings is split into them."""

from __future__ import annotations

from typing import Literal

import dspy
from pydantic import BaseModel, Field, model_validator

AmbiguityKind = Literal["none", "terminology", "qualifier"]


class Interpretation(BaseModel):
    """One reading of an ambiguous question, restated so it has a single answer."""

    axis: str = Field(min_length=2, description="e.g. 'total working capital', 'by revenue'")
    question: str = Field(min_length=5)


class AmbiguityReport(BaseModel):
    """Whether the question is ambiguous and, if so, its readings (at least two)."""

    kind: AmbiguityKind
    reason: str = ""
    interpretations: list[Interpretation] = Field(default_factory=list)

    @model_validator(mode="after")
    def _readings_match_the_kind(self) -> AmbiguityReport:
        if self.kind != "none" and len(self.interpretations) < 2:
            raise ValueError(
                f"a {self.kind} ambiguity needs at least two interpretations, "
                f"got {len(self.interpretations)}"
            )
        if self.kind == "none":
            self.interpretations = []
        return self


class DetectAmbiguity(dspy.Signature):
    """Decide whether a question about a filing has more than one reasonable answer.

    terminology: a term with competing definitions (working capital operating or total,
    EBITDA as reported or adjusted, fiscal or calendar year). qualifier: best, largest, top
    or main without saying by what measure. Otherwise none. For an ambiguous question
    restate each reading as its own question.
    """

    question: str = dspy.InputField()
    report: AmbiguityReport = dspy.OutputField()


class AggregateInterpretations(dspy.Signature):
    """Combine the answers to each reading of an ambiguous question into one reply that
    names each reading: "By <reading>: <answer>; By <reading>: <answer>."
    """

    question: str = dspy.InputField()
    readings: list[str] = dspy.InputField(desc="'<reading>: <answer>' for each reading")
    answer: str = dspy.OutputField()
