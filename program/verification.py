"""Verification: the automatic checks on a draft answer
(:mod:`~filingqa.checks.answer_checks`), then the LM verifier's verdict. A failed automatic
check rejects whatever the LM says.
"""

from __future__ import annotations

from typing import Literal

import dspy
from pydantic import BaseModel

from filingqa.checks.answer_checks import CheckReport, automatic_checks
from filingqa.records import Passage
from filingqa.sandbox.outcome import Answer
from filingqa.signatures.verify import VerifyAnswer

VERDICT_TOKENS = 384  # a verdict and its reasons are short; a looping generation stops here


class Verdict(BaseModel):
    """ACCEPT or REJECT, with the reasons and what is missing."""

    verdict: Literal["ACCEPT", "REJECT"]
    reasons: list[str]
    missing: str
    checks: CheckReport


class Verifier(dspy.Module):
    """Automatic checks first; the LM judges sufficiency and whether the right figures
    were used. A failed automatic check rejects regardless of the LM."""

    def __init__(self) -> None:
        super().__init__()
        self.verify = dspy.Predict(VerifyAnswer, max_tokens=VERDICT_TOKENS)

    def forward(
        self,
        question: str,
        evidence: str,
        answer: str,
        program: str,
        value: Answer | None,
        passages: list[Passage],
        checks: CheckReport | None = None,
    ) -> Verdict:
        """``checks`` already run on this program are reused instead of run again."""
        checks = checks or automatic_checks(program, value, passages)
        judged = self.verify(
            question=question,
            evidence=evidence,
            answer=answer,
            working=program,
            checks=checks.render(),
        )
        verdict: Literal["ACCEPT", "REJECT"] = "REJECT" if checks.problems else judged.verdict
        reasons = [*checks.problems, *judged.reasons]
        return Verdict(verdict=verdict, reasons=reasons, missing=judged.missing, checks=checks)
