"""Text helpers shared by the loaders: numbers, scales, free-text answers, tables."""

from __future__ import annotations

import re
from typing import NamedTuple

from filingqa.core.numbers import asked_scale
from filingqa.records.qa_record import AnswerType, AnswerValue, Scale

MINUS_SIGNS = str.maketrans({"−": "-", "–": "-", "—": "-", "‒": "-"})

_QUANTITY = re.compile(
    r"""^\s*
    (?P<sign>[-+])?\s*
    (?P<open>\()?\s*
    (?P<currency>\$|USD\s*)?\s*
    (?P<inner_sign>-)?\s*
    (?P<number>(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:e[-+]?\d+)?)\s*
    (?P<close>\))?\s*
    (?P<percent>%)?\s*
    (?P<scale>thousands?|millions?|billions?)?\s*$""",
    re.IGNORECASE | re.VERBOSE,
)
_YES_NO = re.compile(r"^\s*(yes|no)\b", re.IGNORECASE)


class Quantity(NamedTuple):
    """A number read from text, with the scale word and unit it was written with."""

    value: float
    scale: Scale
    unit: str | None


class Answer(NamedTuple):
    """A free-text gold answer classified for :class:`QARecord` fields."""

    answer_type: AnswerType
    value: AnswerValue
    scale: Scale
    unit: str | None


def parse_quantity(text: str) -> Quantity | None:
    """Read text that is only a number (``$1,577.00``, ``(12.5)``, ``65.4%``, ``3 million``).

    Parentheses make the number negative (accounting style). None if text is not just a
    number.
    """
    match = _QUANTITY.match(text.translate(MINUS_SIGNS))
    if not match or bool(match["open"]) != bool(match["close"]):
        return None
    value = float(match["number"].replace(",", ""))
    if match["sign"] == "-" or match["inner_sign"] or match["open"]:
        value = -value
    scale: Scale = "percent" if match["percent"] else ""
    if match["scale"]:
        scale = match["scale"].lower().rstrip("s")  # type: ignore[assignment]
    unit = "%" if match["percent"] else ("USD" if match["currency"] else None)
    return Quantity(value, scale, unit)


def format_number(value: float) -> str:
    """A number as plain text: ``42`` for whole numbers, else Python's shortest repr."""
    return str(int(value)) if value.is_integer() else repr(value)


def question_scale(question: str) -> Scale:
    """The scale a question asks for (``in USD millions`` → ``million``), else ``""``."""
    return asked_scale(question) or ""  # type: ignore[return-value]


def classify_answer(answer: str, question: str = "") -> Answer:
    """Classify a free-text gold answer: number, yes/no or explanation.

    A number-only answer is a ``number`` (its scale from the answer, else from the
    question); an answer starting with yes/no is ``yes_no``; anything else is an
    ``explanation``.
    """
    quantity = parse_quantity(answer)
    if quantity is not None:
        scale = quantity.scale or question_scale(question)
        unit = quantity.unit or ("USD" if scale in ("thousand", "million", "billion") else None)
        return Answer("number", quantity.value, scale, unit)
    yes_no = _YES_NO.match(answer)
    if yes_no:
        return Answer("yes_no", yes_no[1].lower() == "yes", "", None)
    return Answer("explanation", None, "", None)


def parse_pipe_table(text: str) -> list[list[str]]:
    """Rows of a table written one row per line with ``|``-separated cells."""
    rows = []
    for line in text.splitlines():
        if not line.strip():
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        rows.append(cells)
    return rows
