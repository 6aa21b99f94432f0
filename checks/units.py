"""How a computed value is shown: rounded, with % or a scale word, in the unit the question
asks; a quoted figure, with the scale its passage states; and the figures of an answer stated
at another scale than the evidence's.

A computed amount takes the scale its sources state, times any factor the program divided
its figures by (:func:`~filingqa.checks.program_result.conversion_factor`), restated in the
unit the question asks ("in USD billions") when it asks one. An amount asked in a unit is
stated positively unless the question asks for a change or for a figure that may be
negative (income, a loss, a cash flow). A ratio takes no scale word: the question names one
(ratio, turnover, days, times, per share), or the program divides one figure by another.
"""

from __future__ import annotations

import math
import re
from typing import NamedTuple

from filingqa.checks.program_result import conversion_factor, is_quotient
from filingqa.checks.sign_check import asks_for_change
from filingqa.core.numbers import (
    SCALE_NAMES,
    SCALE_WORDS,
    ParsedNumber,
    asked_scale,
    extract_numbers,
    names_ratio,
)
from filingqa.records import Passage

_PERCENT_WORDS = re.compile(r"%|percent|growth rate|margin|\bchange in rate\b", re.IGNORECASE)
# Figures that may be negative in their own right; a statement's name is not one.
_SIGNED = re.compile(
    r"\b((?<!statement of )(?<!statements of )income(?! statements?)|earnings|profits?|"
    r"loss(es)?|ebit(da)?|margins?|returns?|gains?|deficits?|surplus|balances?(?! sheets?)|"
    r"working capital|equity|net cash|activities|free cash flows?|"
    r"(?<!statement of )(?<!statements of )cash flows?(?! statements?))\b",
    re.IGNORECASE,
)
_STATED_SCALE = re.compile(r"\(in (thousands|millions|billions)", re.IGNORECASE)
_FIGURE_MARKS = re.compile(r"[\s$€£(),]")
_WIDEST_SHIFT = 3  # scales compared: up to 1000**3 apart
_SLIP_SHARE = 0.02  # a figure 1000× off still agrees with the evidence's digits to this share


def display_value(
    answer: str, question: str, value: object, cited: list[Passage], program: str = ""
) -> str:
    """A numeric ``value`` rounded for reading: with % when the question asks a
    percentage, bare when it is a ratio, else as an amount (:func:`shown_amount`).

    Non-numeric values keep ``answer`` as it is.
    """
    if isinstance(value, bool) or not isinstance(value, float | int):
        return answer
    if _PERCENT_WORDS.search(question):
        return f"{_rounded(value)}%"
    if is_ratio(question, program):
        return _rounded(value)
    return shown_amount(value, question, stated_scale(cited), conversion_factor(program))


def is_ratio(question: str, program: str = "") -> bool:
    """Whether a computed value is a ratio (no scale word): the question asks no amount in
    a unit and names a ratio, or the program divides one figure by another."""
    if asked_scale(question):
        return False
    return names_ratio(question) or is_quotient(program)


def states_positively(question: str) -> bool:
    """Whether an amount is stated without its sign: the question asks it in a unit, and
    asks neither a change nor a figure that may be negative (income, a loss, a cash flow)."""
    asked = asked_scale(question) is not None
    return asked and not asks_for_change(question) and not _SIGNED.search(question)


def shown_amount(value: float, question: str, stated: str | None, factor: float = 1.0) -> str:
    """An amount with its scale word: the ``stated`` scale of its sources times the
    program's conversion ``factor``, restated in the unit the question asks."""
    amount = abs(value) if states_positively(question) else value
    scale = value_scale(stated, factor)
    asked = asked_scale(question)
    if scale is None or asked is None:
        word = _scale_name(scale) if scale is not None else None
        return f"{_rounded(amount)} {word}" if word else _rounded(amount)
    restated = amount * scale / SCALE_WORDS[asked]
    return f"{_rounded(restated, _places(restated))} {asked}"


def value_scale(stated: str | None, factor: float = 1.0) -> float | None:
    """The multiplier a computed value is in: the ``stated`` scale (``million``) times the
    program's conversion ``factor``; None when no scale is stated."""
    return SCALE_WORDS[stated] * factor if stated in SCALE_WORDS else None


def stated_scale(cited: list[Passage]) -> str | None:
    """``million`` (etc.) when every cited passage states the same ``(In millions...)``."""
    scales = {_passage_scale(p) for p in cited}
    return scales.pop() if len(scales) == 1 else None


def quoted_figure(answer: str, cited: list[Passage], question: str = "") -> str:
    """A quoted bare figure with the scale its passages state (``812.4`` → ``812.4
    million``), restated as an amount in the unit ``question`` asks when it asks one
    (``(4,625)`` in millions → ``4.62 billion`` for "in USD billions", stated positively
    unless a sign is asked for: :func:`shown_amount`); a figure with a scale word or %, a
    year, or any other answer unchanged."""
    numbers = extract_numbers(answer)
    if len(numbers) != 1:
        return answer
    (number,) = numbers
    rest = _FIGURE_MARKS.sub("", answer.replace(number.text, "", 1))
    if rest or number.is_percent or number.scale_word or number.is_year_like:
        return answer
    scale = stated_scale(cited)
    if scale and asked_scale(question):
        return shown_amount(number.magnitude, question, scale)
    return f"{answer} {scale}" if scale else answer


class _Figure(NamedTuple):
    """An evidence figure: as written, and in base units when its scale is known."""

    number: ParsedNumber
    value: float | None


def scale_slips(text: str, passages: list[Passage]) -> list[str]:
    """Figures of ``text`` with a scale word whose digits are an evidence figure's at
    another scale (``11.59 million`` where a table "(In millions)" prints 11,588), each
    as ``"11.59 million (the evidence: 11,588 million)"``; a figure the evidence holds at
    its scale, or whose evidence figure has no stated scale, is not one."""
    figures = _evidence_figures(passages)
    slips = []
    for number in extract_numbers(text):
        if not number.scale_word or number.is_percent or _held(number, figures):
            continue
        shifted = next((f for f in figures if _shifted(number, f)), None)
        if shifted is not None:
            slips.append(f"{number.text} (the evidence: {_with_scale(shifted)})")
    return slips


def misread_scale(numbers: list[float], passages: list[Passage]) -> dict[float, str]:
    """Of ``numbers`` a program wrote that the evidence does not hold, those that are an
    evidence figure's digits read 1000**k times off (``11.588`` for 11,588: the comma
    taken for a decimal point), each with the figure as the evidence prints it."""
    printed = [n for p in passages for n in extract_numbers(p.text) if not n.is_percent]
    misread = {}
    for number in numbers:
        for figure in printed:
            written = abs(figure.magnitude)
            if any(math.isclose(abs(number) * 1000.0**k, written) for k in (1, 2, 3, -1)):
                misread[number] = figure.text
                break
    return misread


def misread_feedback(misread: dict[float, str]) -> str:
    """The reason a program copying figures at the wrong scale is rejected."""
    listed = "; ".join(
        f"{number:g} where the evidence prints {text}" for number, text in misread.items()
    )
    return (
        f"figures copied at the wrong scale: {listed}. Copy each figure as printed (a comma "
        "separates thousands) and keep the evidence's scale; do not convert it"
    )


def _evidence_figures(passages: list[Passage]) -> list[_Figure]:
    """Every figure of the passages (not percentages or years), in base units where its
    own scale word or its passage's stated scale says."""
    figures = []
    for passage in passages:
        scale = _passage_scale(passage)
        for number in extract_numbers(passage.text):
            if number.is_percent or number.is_year_like:
                continue
            multiplier = number.multiplier if number.scale_word else SCALE_WORDS.get(scale or "")
            value = number.magnitude * multiplier if multiplier else None
            figures.append(_Figure(number, value))
    return figures


def _held(number: ParsedNumber, figures: list[_Figure]) -> bool:
    """Whether the evidence holds ``number`` at its scale, or as digits of no known scale."""
    slack = 0.5 * 10.0**-number.decimals * number.multiplier
    for figure in figures:
        if figure.value is None:
            digits = abs(figure.number.magnitude)
            if any(
                math.isclose(digits, abs(n), rel_tol=0.005)
                for n in (number.magnitude, number.value)
            ):
                return True
        elif abs(abs(figure.value) - abs(number.value)) <= max(0.005 * abs(figure.value), slack):
            return True
    return False


def _shifted(number: ParsedNumber, figure: _Figure) -> bool:
    """Whether ``number``'s digits are ``figure``'s, read 1000**k times off (k ≠ 0)."""
    if figure.value is None:
        return False
    written = abs(figure.number.magnitude)
    for k in range(-_WIDEST_SHIFT, _WIDEST_SHIFT + 1):
        shift = 1000.0**k
        slack = min(0.5 * 10.0**-number.decimals * shift, _SLIP_SHARE * written)
        if k and abs(abs(number.magnitude) * shift - written) <= slack * (1 + 1e-9):
            return True
    return False


def _with_scale(figure: _Figure) -> str:
    """An evidence figure as written, with its scale word when its passage states one."""
    number = figure.number
    if number.scale_word or figure.value is None or number.magnitude == 0:
        return number.text
    word = _scale_name(abs(figure.value / number.magnitude))
    return f"{number.text} {word}" if word else number.text


def _passage_scale(passage: Passage) -> str | None:
    match = _STATED_SCALE.search(passage.text)
    return match.group(1).lower().rstrip("s") if match else None


def _scale_name(multiplier: float) -> str | None:
    """``million`` for 1e6 (etc.); None for base units or no known scale."""
    return next((w for m, w in SCALE_NAMES.items() if math.isclose(m, multiplier)), None)


def _places(value: float) -> int:
    """Decimal places keeping at least three significant digits (two at least)."""
    return 2 if abs(value) >= 1 or value == 0 else 2 - math.floor(math.log10(abs(value)))


def _rounded(value: float, places: int = 2) -> str:
    return f"{value:,.{places}f}".rstrip("0").rstrip(".")
