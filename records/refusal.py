"""The refusal classification: whether an answer declines to answer (or is empty), and the
opening of an answer saying the index holds no filing that could answer."""

from __future__ import annotations

import re

_REFUSAL = re.compile(
    r"cannot (be )?(determine|determined|calculate|calculated|answer|answered|find|found)|"
    r"can't (determine|calculate|answer|find)|unable to|"
    r"\bnot (provided|available|disclosed|stated|given|mentioned|included|specified|found)\b|"
    r"insufficient (information|data|evidence)|no (information|data) (is )?(available|provided)",
    re.IGNORECASE,
)


NOT_INDEXED = "Not in the index:"
"""How a ``not_indexed`` answer opens (the holdings rule's, ``filingqa.checks.holdings``)."""


def says_not_indexed(text: str) -> bool:
    """Whether ``text`` is a ``not_indexed`` answer."""
    return text.lstrip().startswith(NOT_INDEXED)


def is_refusal(text: str) -> bool:
    """Whether ``text`` refuses to answer (or is empty)."""
    return not text.strip() or bool(_REFUSAL.search(text))
