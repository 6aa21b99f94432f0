"""Verify and refine: accept an answer only when the evidence supports it."""

from __future__ import annotations

from typing import Literal

import dspy


class VerifyAnswer(dspy.Signature):
    """Check a draft answer against the evidence. ACCEPT only if the evidence contains what
    the answer needs, the figures used are the right ones (company, period, line item,
    consolidated or segment), and the automatic checks found no problem.
    """

    question: str = dspy.InputField()
    evidence: str = dspy.InputField()
    answer: str = dspy.InputField(desc="the draft answer")
    working: str = dspy.InputField(desc="the program that computed it, or empty")
    checks: str = dspy.InputField(desc="results of the automatic checks")
    reasons: list[str] = dspy.OutputField(desc="short findings, problems first")
    missing: str = dspy.OutputField(desc="what evidence is missing, or empty")
    verdict: Literal["ACCEPT", "REJECT"] = dspy.OutputField()


class RefineQuestions(dspy.Signature):
    """Write new search questions aimed only at what the verifier found missing."""

    question: str = dspy.InputField()
    missing: str = dspy.InputField()
    tried: list[str] = dspy.InputField(desc="queries already searched")
    queries: list[str] = dspy.OutputField(desc="1 to 3 new queries")
