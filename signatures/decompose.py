"""Decompose: the ordered steps that answer a question, each retrieval or computation."""

from __future__ import annotations

from typing import Literal

import dspy
from pydantic import BaseModel, Field

FormulaFamily = Literal[
    "lookup", "ratio", "change", "growth", "cagr", "aggregation", "derived_metric"
]


class SubQuestion(BaseModel):
    """One step: find a figure (retrieval) or compute from found figures (computation)."""

    question: str = Field(min_length=3)
    kind: Literal["retrieval", "computation"]
    formula: FormulaFamily = "lookup"


class Decompose(dspy.Signature):
    """Split a question about company filings into the ordered steps that answer it.

    Retrieval steps each ask for one figure or fact of one company and period. Computation
    steps combine earlier figures and name their formula family. A question that needs one
    figure is a single retrieval step.
    """

    question: str = dspy.InputField()
    steps: list[SubQuestion] = dspy.OutputField(desc="1 to 6 steps, in order")
