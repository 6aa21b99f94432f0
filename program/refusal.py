"""Anti-refusal: a refusing draft is reviewed against the evidence before it is returned.

The reviewer may rewrite the draft into an answer, but never with a number that is not in
the evidence or computed by the executed program; such a rewrite is discarded and the
refusal stands.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import dspy
from pydantic import BaseModel

from filingqa.metrics.numbers import extract_numbers
from filingqa.signatures.review import ReviewRefusal

_REFUSAL = re.compile(
    r"cannot (be )?(determine|determined|calculate|calculated|answer|answered|find|found)|"
    r"can't (determine|calculate|answer|find)|unable to|"
    r"\bnot (provided|available|disclosed|stated|given|mentioned|included|specified|found)\b|"
    r"insufficient (information|data|evidence)|no (information|data) (is )?(available|provided)",
    re.IGNORECASE,
)
# Years, small counts and percentages-of-100 are not figures a reviewer could invent.
_SMALL = 12


class Review(BaseModel):
    """What the reviewer decided about a refusing draft."""

    answer: str
    refused: bool
    reason: str


def is_refusal(text: str) -> bool:
    """Whether ``text`` refuses to answer (or is empty)."""
    return not text.strip() or bool(_REFUSAL.search(text))


def unsupported_numbers(text: str, evidence: str, computed: Sequence[float] = ()) -> list[float]:
    """Numbers in ``text`` found neither in ``evidence`` nor among ``computed`` values (a
    computed value rounded to 0-2 decimals, as answers show it, counts as computed)."""
    known = {round(abs(n.magnitude), 6) for n in extract_numbers(evidence)}
    known |= {round(abs(round(value, places)), 6) for value in computed for places in (0, 1, 2, 6)}
    found = []
    for number in extract_numbers(text):
        magnitude = round(abs(number.magnitude), 6)
        if magnitude in known or _is_incidental(magnitude):
            continue
        if not any(abs(magnitude - k) <= 0.005 * max(k, 1e-9) for k in known):
            found.append(number.magnitude)
    return found


def _is_incidental(magnitude: float) -> bool:
    return (magnitude.is_integer() and magnitude <= _SMALL) or 1900 <= magnitude <= 2100


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
