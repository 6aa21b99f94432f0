"""Anti-refusal: a refusing draft is reviewed against the evidence before it is returned.

The reviewer may rewrite the draft into an answer, but never with a number that is not in
the evidence or computed by the executed program; such a rewrite is discarded and the
refusal stands.
"""

from __future__ import annotations

from collections.abc import Sequence

import dspy
from pydantic import BaseModel

from filingqa.checks.unsupported_numbers import unsupported_numbers
from filingqa.records.refusal import is_refusal
from filingqa.signatures.review import ReviewRefusal


class Review(BaseModel):
    """What the reviewer decided about a refusing draft."""

    answer: str
    refused: bool
    reason: str


class AntiRefusal(dspy.Module):
    """Review a refusing draft; keep it refused unless the evidence supports an answer."""

    def __init__(self) -> None:
        super().__init__()
        self.review = dspy.Predict(ReviewRefusal)

    def forward(
        self, question: str, evidence: str, draft: str, computed: Sequence[float] = ()
    ) -> Review:
        if not is_refusal(draft):
            return Review(answer=draft, refused=False, reason="the draft answers")
        verdict = self.review(question=question, evidence=evidence, draft=draft)
        if verdict.decision == "refuse" or is_refusal(verdict.answer):
            return Review(answer=verdict.answer or draft, refused=True, reason="refusal confirmed")
        invented = unsupported_numbers(verdict.answer, evidence, computed)
        if invented:
            return Review(
                answer=draft,
                refused=True,
                reason=f"rewrite discarded: {invented} not in the evidence",
            )
        return Review(answer=verdict.answer, refused=False, reason="rewritten from the evidence")
