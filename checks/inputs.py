"""Question checks: what makes a question unaskable, said in one clear line.

A question is text with at least one letter or digit, at most ``MAX_QUESTION_CHARS`` long
(a question that long is a pasted document, and would crowd the evidence out of the
model's context). Any language is accepted; control characters are dropped.
"""

from __future__ import annotations

import re

MAX_QUESTION_CHARS = 2000
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def question_problem(question: object) -> str | None:
    """Why ``question`` cannot be answered as asked, or None when it can."""
    if not isinstance(question, str):
        return f"the question must be text, not {type(question).__name__}"
    if not question.strip():
        return "the question is empty"
    if len(question) > MAX_QUESTION_CHARS:
        return (
            f"the question is {len(question):,} characters long; the limit is "
            f"{MAX_QUESTION_CHARS:,} (ask about one figure, and index documents instead of "
            "pasting them)"
        )
    if not any(character.isalnum() for character in question):
        return "the question has no words or numbers"
    return None


def clean_question(question: str) -> str:
    """``question`` without control characters and surrounding whitespace."""
    return _CONTROL.sub(" ", question).strip()
