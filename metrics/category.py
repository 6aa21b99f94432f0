"""The answer category that calibrates the judge: number, yes/no, span or explanation."""

from __future__ import annotations

from typing import Literal

from filingqa.metrics.numeric import POLAR_WORDS, gold_number, words

AnswerCategory = Literal["number", "yes_no", "span", "explanation"]

MAX_SPAN_WORDS = 12

_ALIASES: dict[str, AnswerCategory] = {
    "number": "number",
    "numeric": "number",
    "arithmetic": "number",
    "count": "number",
    "yes_no": "yes_no",
    "yes/no": "yes_no",
    "boolean": "yes_no",
    "span": "span",
    "multi-span": "span",
    "multi_span": "span",
    "explanation": "explanation",
    "text": "explanation",
    "textual": "explanation",
}


def infer_category(gold: str) -> AnswerCategory:
    """Guess the category from the gold answer's text alone."""
    if gold_number(gold) is not None:
        return "number"
    found = words(gold)
    if found and found[0] in POLAR_WORDS:
        return "yes_no"
    return "span" if len(found) <= MAX_SPAN_WORDS else "explanation"


def resolve_category(answer_type: str | None, gold: str) -> AnswerCategory:
    """The category named by ``answer_type`` (dataset names accepted), else inferred.

    A span whose gold is number-like (TAT-QA's ``"$1,496.5"``) counts as a number.
    """
    named = _ALIASES.get((answer_type or "").strip().lower())
    inferred = infer_category(gold)
    if named is None or (named == "span" and inferred == "number"):
        return inferred
    return named
