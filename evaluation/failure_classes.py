"""Why an answer was judged wrong: failure classes A-F, assigned automatically where the row
says enough, by hand (a ``{row id: class}`` mapping) where it cannot.

A output discipline (no answer, an error, a refusal, the right figure at the wrong scale or
buried among other numbers); B judge over-strict (within 5% of the gold: a rounding or
tolerance disagreement); C dataset truth error and D question self-contradiction (by hand
only: they need reading the source); E retrieval gap (no gold evidence page was retrieved,
or the question's filing is not in the corpus);
F period/semantic (a well-formed answer with the wrong figure: another period, line item,
sign or formula). Pure: no I/O, no LM.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel

from filingqa.core.numbers import extract_numbers
from filingqa.evaluation.runner import Row
from filingqa.metrics.numeric import gold_number
from filingqa.metrics.precheck import refuses

FailureClass = Literal["A", "B", "C", "D", "E", "F"]
CLASS_NAMES: dict[FailureClass, str] = {
    "A": "output discipline",
    "B": "judge over-strict",
    "C": "dataset truth error",
    "D": "question self-contradiction",
    "E": "retrieval gap",
    "F": "period/semantic",
}
NEAR_MISS = 0.05
_SCALE_SLIPS = (1e-6, 1e-3, 1e-2, 1e2, 1e3, 1e6)


class Failure(BaseModel):
    """One wrong answer's class and the evidence for it."""

    label: FailureClass
    why: str

    @property
    def name(self) -> str:
        """The class's name, e.g. "output discipline"."""
        return CLASS_NAMES[self.label]


def _close(a: float, b: float, tolerance: float) -> bool:
    return math.isclose(a, b, rel_tol=tolerance, abs_tol=1e-9)


def _numeric_failure(row: Row) -> Failure | None:
    """A, B or F from the numbers of a number-like gold and the answer (None: not numeric)."""
    gold = gold_number(row.gold)
    predicted = [n.magnitude for n in extract_numbers(row.answer)]
    if gold is None or not predicted:
        return None
    target = gold.magnitude
    first_last = {predicted[0], predicted[-1]}
    if any(_close(p, target, 1e-6) for p in predicted if p not in first_last):
        return Failure(label="A", why="the gold figure is in the answer, among other numbers")
    for p in first_last:
        for slip in _SCALE_SLIPS:
            if _close(p * slip, target, 0.02):
                return Failure(label="A", why=f"the right figure at the wrong scale (×{slip:g})")
        if _close(p, target, NEAR_MISS):
            return Failure(label="B", why=f"{p:g} is within 5% of the gold {target:g}")
        if _close(-p, target, 0.02):
            return Failure(label="F", why="the right magnitude with the opposite sign")
    return Failure(label="F", why="a well-formed number that is not the gold's figure")


def classify(row: Row, manual: Mapping[str, FailureClass] | None = None) -> Failure | None:
    """The failure class of ``row``; None when it was judged fully correct."""
    if row.score >= 1:
        return None
    if manual and row.id in manual:
        return Failure(label=manual[row.id], why="assigned by hand")
    if row.outcome == "not_indexed":
        if row.in_corpus is False:
            return Failure(label="E", why="its filing is not in the corpus (answered not_indexed)")
        return Failure(label="A", why="answered not_indexed although its filing is indexed")
    if row.gold_retrieved is False:
        return Failure(label="E", why="no gold evidence page among the retrieved pages")
    if row.error or row.outcome == "error" or not row.answer.strip():
        detail = row.error or row.note or "empty answer"
        return Failure(label="A", why=f"no usable answer: {detail}")
    if row.outcome == "refused" or refuses(row.answer):
        where = "a gold page was retrieved" if row.gold_retrieved else "the evidence was given"
        return Failure(label="A", why=f"refused although {where}")
    return _numeric_failure(row) or Failure(label="F", why="a wrong span, label or explanation")
