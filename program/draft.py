"""A draft: one answer attempt of the reasoning loop, with what supports it."""

from __future__ import annotations

import ast
from typing import Literal

from pydantic import BaseModel, Field

from filingqa.checks.answer_checks import CheckReport
from filingqa.checks.quotes import CheckedQuote
from filingqa.lm.faults import Fault
from filingqa.program.verification import Verdict
from filingqa.records import Passage
from filingqa.records.refusal import is_refusal
from filingqa.sandbox.outcome import Answer


class Draft(BaseModel):
    """One answer attempt: the answer, the executed program and its value (PoT), the
    passages it was drafted from, the quotes it was taken from (extracted answers), the
    automatic checks, the verdict, problems and faults, and why its answer is unusable
    when it echoes the request or repeats itself."""

    path: Literal["pot", "cot", "quote", "decide"]
    answer: str
    value: Answer | None = None
    program: str = ""
    figures: list[float] = Field(
        default_factory=list, description="the numbers its program's variables held at the end"
    )
    passages: list[Passage]
    quotes: list[CheckedQuote] = Field(default_factory=list)
    checks: CheckReport | None = None
    verdict: Verdict | None = None
    problems: list[str] = Field(default_factory=list)
    faults: list[Fault] = Field(default_factory=list)
    unusable: str = Field(
        default="", description="why the answer is no answer (it echoes or repeats), if it is"
    )

    @property
    def accepted(self) -> bool:
        """Whether the verifier accepted it."""
        return self.verdict is not None and self.verdict.verdict == "ACCEPT"

    def support(self) -> int:
        """Higher is better supported: accepted > clean checks > has a usable answer.

        On a tie the loop keeps the earlier draft: the small verifier also rejects correct
        programs, and a revision it rejected too is no better supported than what it revised.
        """
        if self.accepted:
            return 3
        if not self.problems and not self.faults and not is_refusal(self.answer):
            return 2
        return 1 if self.answer.strip() and not self.unusable else 0

    def feedback(self) -> str:
        """What the verifier held against it: its reasons, else what it found missing."""
        if self.verdict is None:
            return ""
        return "; ".join(self.verdict.reasons) or self.verdict.missing

    def repeats(self, previous: Draft) -> bool:
        """Whether this revision gave back the answer and program of the draft it revised,
        over the same evidence: verifying it would repeat the earlier verdict, and revising
        it again would repeat the same revision request."""
        return (
            self.answer == previous.answer
            and self.program == previous.program
            and [p.id for p in self.passages] == [p.id for p in previous.passages]
        )

    def computed(self) -> list[float]:
        """The numbers its executed program produced: its value (a dict's numeric items
        included) and the figures its variables derived (a variable holding a number the
        program wrote down is not derived: that number must be in the evidence)."""
        items = self.value.values() if isinstance(self.value, dict) else [self.value]
        value = [float(v) for v in items if isinstance(v, int | float) and not isinstance(v, bool)]
        written = _literals(self.program)
        return value + [f for f in self.figures if abs(f) not in written]

    def reasoning_fault(self) -> Fault | None:
        """The fault that stopped its reasoning step, if one did."""
        return next((f for f in self.faults if f.step.startswith("reason")), None)


def _literals(program: str) -> set[float]:
    """The magnitudes of the numbers written in ``program`` (none when it does not parse)."""
    try:
        tree = ast.parse(program)
    except SyntaxError:
        return set()
    return {
        abs(float(node.value))
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    }
