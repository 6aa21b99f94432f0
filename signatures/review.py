"""Anti-refusal: a refusal is reviewed against the evidence before it is returned."""

from __future__ import annotations

from typing import Literal

import dspy


class ReviewRefusal(dspy.Signature):
    """A draft answer refused ("cannot determine", "not provided"). Read the evidence: if it
    does answer the question, possibly with a stated qualifier, write that answer using only
    figures from the evidence; otherwise confirm the refusal and say what is missing.
    """

    question: str = dspy.InputField()
    evidence: str = dspy.InputField()
    draft: str = dspy.InputField(desc="the refusing draft")
    decision: Literal["answer", "refuse"] = dspy.OutputField()
    answer: str = dspy.OutputField(desc="the answer with its qualifier, or why it is refused")
