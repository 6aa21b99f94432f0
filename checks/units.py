"""How a computed value is shown: rounded, with % or the scale its sources state; and a
quoted figure, with the scale its passage states."""

from __future__ import annotations

import re

from filingqa.core.numbers import extract_numbers
from filingqa.records import Passage

_PERCENT_WORDS = re.compile(r"%|percent|growth rate|margin|\bchange in rate\b", re.IGNORECASE)
_STATED_SCALE = re.compile(r"\(in (thousands|millions|billions)", re.IGNORECASE)
_FIGURE_MARKS = re.compile(r"[\s$€£(),]")


def display_value(answer: str, question: str, value: object, cited: list[Passage]) -> str:
    """Round a numeric answer for reading; mark percentages, or the scale the sources state.

    Non-numeric values keep ``answer`` as it is.
    """
    if isinstance(value, float | int) and not isinstance(value, bool):
        rounded = f"{value:,.2f}".rstrip("0").rstrip(".")
        if _PERCENT_WORDS.search(question):
            return f"{rounded}%"
        scale = stated_scale(cited)
        return f"{rounded} {scale}" if scale else rounded
    return answer


def stated_scale(cited: list[Passage]) -> str | None:
    """``million`` (etc.) when every cited passage states the same ``(In millions...)``."""
    scales = {
        match.group(1).lower().rstrip("s") for p in cited if (match := _STATED_SCALE.search(p.text))
    }
    found_in_all = all(_STATED_SCALE.search(p.text) for p in cited)
    return scales.pop() if cited and found_in_all and len(scales) == 1 else None


def quoted_figure(answer: str, cited: list[Passage]) -> str:
    """A quoted bare figure with the scale its passages state (``812.4`` → ``812.4
    million``); a figure with a scale word or %, a year, or any other answer unchanged."""
    numbers = extract_numbers(answer)
    if len(numbers) != 1:
        return answer
    (number,) = numbers
    rest = _FIGURE_MARKS.sub("", answer.replace(number.text, "", 1))
    if rest or number.is_percent or number.scale_word or number.is_year_like:
        return answer
    scale = stated_scale(cited)
    return f"{answer} {scale}" if scale else answer
