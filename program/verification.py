"""Verification: automatic checks on a draft answer, then the LM verifier's verdict.

The automatic checks never trust the draft: the program is executed again and its value
compared, and every number it copied must appear in the evidence; an answer written in
words (no program) may only use numbers the evidence holds. Numbers invented either way
make the answer REJECT whatever the LM says — also when the evidence itself told the model
what to answer: an instruction inside a passage is only text.
"""

from __future__ import annotations

import math
from typing import Literal

import dspy
from pydantic import BaseModel

from filingqa.program.citations import untraced_numbers
from filingqa.program.passages import render
from filingqa.program.refusal import unsupported_numbers
from filingqa.retrieval import Passage
from filingqa.sandbox import run_python
from filingqa.sandbox.outcome import Answer
from filingqa.signatures.verify import VerifyAnswer

VERDICT_TOKENS = 384  # a verdict and its reasons are short; a looping generation stops here


class CheckReport(BaseModel):
    """What the automatic checks found; ``problems`` is empty when all passed."""

    problems: list[str]
    untraced: list[float]

    def render(self) -> str:
        """The findings as text for the LM verifier."""
        return "; ".join(self.problems) if self.problems else "all automatic checks passed"


class Verdict(BaseModel):
    """ACCEPT or REJECT, with the reasons and what is missing."""

    verdict: Literal["ACCEPT", "REJECT"]
    reasons: list[str]
    missing: str
    checks: CheckReport


def automatic_checks(
    program: str, value: Answer | None, passages: list[Passage], answer: str = ""
) -> CheckReport:
    """Re-execute ``program`` and trace its numbers to ``passages``; without a program,
    trace the numbers of the text ``answer`` instead."""
    problems: list[str] = []
    untraced: list[float] = []
    if not program.strip() and answer.strip():
        untraced = sorted(unsupported_numbers(answer, render(passages)))
        if untraced:
            listed = ", ".join(f"{n:g}" for n in untraced)
            problems.append(f"the answer uses numbers not found in the evidence: {listed}")
    if program.strip():
        rerun = run_python(program)
        if not rerun.ok:
            problems.append(f"the program fails when run again ({rerun.feedback()})")
        elif not _same(rerun.value, value):
            problems.append(f"the program gives {rerun.value!r} when run again, not {value!r}")
        untraced = sorted(untraced_numbers(program, passages))
        if untraced:
            listed = ", ".join(f"{n:g}" for n in untraced)
            problems.append(f"numbers not found in the evidence: {listed}")
    return CheckReport(problems=problems, untraced=untraced)


def _same(a: Answer | None, b: Answer | None) -> bool:
    numbers = (int, float)
    if isinstance(a, numbers) and isinstance(b, numbers) and not isinstance(a, bool):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b


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
        verdict = "REJECT" if checks.problems else judged.verdict
        reasons = [*checks.problems, *judged.reasons]
        return Verdict(verdict=verdict, reasons=reasons, missing=judged.missing, checks=checks)
