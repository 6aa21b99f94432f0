"""Ambiguity cues: the words that can make a filing question ambiguous.

The ambiguity detector (an LM call) only runs on a question holding one: a qualifier that
ranks or compares without always saying by what measure (best, largest, top, main,
better …) or a term with competing definitions (working capital, EBITDA, free cash flow,
adjusted, fiscal or calendar year). A question with neither has a single reading, whatever
the LM would say, so the call is skipped.
"""

from __future__ import annotations

import re

QUALIFIERS = (
    "best",
    "worst",
    "largest",
    "biggest",
    "smallest",
    "top",
    "main",
    "primary",
    "leading",
    "most",
    "least",
    "highest",
    "lowest",
    "strongest",
    "weakest",
    "major",
    "key",
    "better",
    "worse",
    "larger",
    "bigger",
    "smaller",
    "greater",
    "higher",
    "lower",
    "stronger",
    "weaker",
)
TERMS = (
    "working capital",
    "ebitda",
    "ebitdar",
    "ebit",
    "free cash flow",
    "adjusted",
    "unadjusted",
    "non-gaap",
    "fiscal",
    "calendar",
)
_CUE = re.compile(r"\b(" + "|".join(map(re.escape, (*TERMS, *QUALIFIERS))) + r")\b", re.I)


def ambiguity_cue(question: str) -> str | None:
    """The first qualifier or competing-definition term in ``question`` (lower case), or
    None when it has none and so needs no ambiguity check."""
    found = _CUE.search(question)
    return found.group(1).lower() if found else None
