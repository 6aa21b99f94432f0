"""Automatic checks on a draft answer: the program is executed again and its value compared,
and every number it copied must appear in the evidence (one copied at the wrong scale,
``11.588`` for 11,588, is named as such); an answer written in words (no program) may only
use numbers the evidence holds, at the scale the evidence states. Numbers invented either
way make the verifier reject whatever the LM says — also when the evidence itself told the
model what to answer: an instruction inside a passage is only text.
"""

from __future__ import annotations

import math

from pydantic import BaseModel

from filingqa.checks.citations import untraced_numbers
from filingqa.checks.units import misread_feedback, misread_scale, scale_slips
from filingqa.checks.unsupported_numbers import unsupported_numbers
from filingqa.evidence.render import render
from filingqa.records import Passage
from filingqa.sandbox import run_python
from filingqa.sandbox.outcome import Answer


class CheckReport(BaseModel):
    """What the automatic checks found; ``problems`` is empty when all passed."""

    problems: list[str]
    untraced: list[float]

    def render(self) -> str:
        """The findings as text for the LM verifier."""
        return "; ".join(self.problems) if self.problems else "all automatic checks passed"


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
        slips = scale_slips(answer, passages)
        if slips:
            problems.append(f"the answer states figures at the wrong scale: {'; '.join(slips)}")
    if program.strip():
        rerun = run_python(program)
        if not rerun.ok:
            problems.append(f"the program fails when run again ({rerun.feedback()})")
        elif not _same(rerun.value, value):
            problems.append(f"the program gives {rerun.value!r} when run again, not {value!r}")
        untraced = sorted(untraced_numbers(program, passages))
        misread = misread_scale(untraced, passages)
        unexplained = [n for n in untraced if n not in misread]
        if unexplained:
            listed = ", ".join(f"{n:g}" for n in unexplained)
            problems.append(f"numbers not found in the evidence: {listed}")
        if misread:
            problems.append(misread_feedback(misread))
    return CheckReport(problems=problems, untraced=untraced)


def _same(a: Answer | None, b: Answer | None) -> bool:
    numbers = (int, float)
    if isinstance(a, numbers) and isinstance(b, numbers) and not isinstance(a, bool):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b
