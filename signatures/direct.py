"""Direct answer: the LM states the answer itself, with no program (a baseline)."""

from __future__ import annotations

import dspy


class AnswerDirectly(dspy.Signature):
    """Answer the question about a financial filing from the evidence.

    Give the final answer only: a number (with % for percentages), a yes/no, or a short
    phrase. Do the arithmetic yourself if the question needs it.
    """

    question: str = dspy.InputField()
    evidence: str = dspy.InputField(desc="passages from the filing: tables and text")
    answer: str = dspy.OutputField(desc="the final answer, short")
