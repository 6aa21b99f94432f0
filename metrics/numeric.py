"""The deterministic numeric stage: decides number-like gold answers without an LLM.

Rules:

* Gate: the gold is number-like when it holds exactly one number (years such as ``2022``
  aside) with at most four other words, does not open with yes/no and has no directional
  word (``increased``, ``improved``, ...). Other golds are not decided here (``None``).
* The prediction's answer is its first or its last number (years aside, unless the gold
  is a year): answers either lead with the result or conclude with it after the working.
* A candidate passes when it is within ±2% of the gold, or when rounding it (half away
  from zero) to the gold's precision as written gives the gold (``0.01425`` vs ``0.01``);
  a gold of exactly 0 must be met exactly; the sign always counts.
  A year gold (``2019``) must match exactly; a unit-shifted reading only by the ±2% band.
* Scales: both scales stated (scale word or the record's scale) compare in base units;
  a missing scale is taken to be the other side's, and for a number read in such an
  implied unit a ×1000 or ÷1000 unit shift is also tried (thousands/millions/billions).
  A prediction with a scale word is also read in base units against an unscaled gold
  (``$8.4 billion`` vs ``$8,400,000,000``), without shifts.
* A question that asks for a scale ("Answer in USD millions") fixes the unit of an
  answer without a scale word: no unit shift is tried then (``59.268`` is not 59,268
  million).
* Percent ↔ fraction (×100, ÷100) only when explicit: a ``%`` on one side converts that
  side, a record scale/unit of percent allows either direction; no unit shifts then.
* A ratio carries no scale word: for a bare gold (no currency, percent or scale) to a
  question asking for a ratio, turnover, coverage, days or times, an answer with a scale
  word (``1.73 thousand``) scores 0.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from filingqa.core.numbers import (
    ParsedNumber,
    asked_scale,
    extract_numbers,
    names_percent,
    names_ratio,
    scale_multiplier,
)
from filingqa.metrics.verdict import Verdict

RELATIVE_TOLERANCE = 0.02
MAX_EXTRA_WORDS = 4
MAX_FIGURE_WORDS = 2  # besides its numbers, a bare figure has at most a unit or scale word
UNIT_SHIFTS = (1e3, 1e-3)

POLAR_WORDS = frozenset({"yes", "no"})
BOOLEAN_POLARITY = {"true": "yes", "false": "no"}
"""A yes/no answer given as a program's bool printed as it is ("False") says no."""
DIRECTIONAL_WORDS = frozenset(
    {
        "increase",
        "increased",
        "increases",
        "increasing",
        "decrease",
        "decreased",
        "decreases",
        "decreasing",
        "improve",
        "improved",
        "improves",
        "improving",
        "improvement",
        "decline",
        "declined",
        "declines",
        "declining",
        "grew",
        "grow",
        "grown",
        "rose",
        "risen",
        "rise",
        "fell",
        "fall",
        "fallen",
        "drop",
        "dropped",
        "higher",
        "lower",
        "up",
        "down",
        "better",
        "worse",
        "favorable",
        "unfavorable",
    }
)

_WORD = re.compile(r"[^\W\d_]+")
_ASKS_QUANTITY = re.compile(
    r"\bhow (?:much|many)\b|\b(?:quantity|amount|total|value|number|size) of\b"
    r"|\bwhat (?:is|was|were|are) the (?:total )?(?:amount|quantity|value|number|size)\b",
    re.IGNORECASE,
)


def words(text: str) -> list[str]:
    """The lower-cased alphabetic words of ``text``."""
    return [word.lower() for word in _WORD.findall(text)]


def answer_words(text: str) -> list[str]:
    """:func:`words` of an answer, an opening true/false read as yes/no."""
    found = words(text)
    return [BOOLEAN_POLARITY.get(found[0], found[0]), *found[1:]] if found else found


def is_gated_text(text: str) -> bool:
    """Whether ``text`` opens with yes/no or uses a directional word (LLM territory)."""
    found = words(text)
    return bool(found) and (found[0] in POLAR_WORDS or not DIRECTIONAL_WORDS.isdisjoint(found))


def _main_numbers(numbers: list[ParsedNumber], keep_years: bool) -> list[ParsedNumber]:
    """The numbers that can be an answer: years set aside unless nothing else is there."""
    if keep_years:
        return numbers
    return [number for number in numbers if not number.is_year_like] or numbers


def answer_number(text: str) -> ParsedNumber | None:
    """The first number of an answer, years aside unless it holds only years; None if none."""
    main = _main_numbers(extract_numbers(text), keep_years=False)
    return main[0] if main else None


def gold_number(gold: str) -> ParsedNumber | None:
    """The gold's number when the gold is number-like (see the gate rule), else None."""
    if not isinstance(gold, str) or is_gated_text(gold):
        return None
    main = _main_numbers(extract_numbers(gold), keep_years=False)
    if len(main) != 1:
        return None
    numbers_removed = gold
    for number in extract_numbers(gold):
        numbers_removed = numbers_removed.replace(number.text, " ")
    return main[0] if len(words(numbers_removed)) <= MAX_EXTRA_WORDS else None


@dataclass(frozen=True, slots=True)
class _GoldFrame:
    """The gold number and the unit its written magnitude is in."""

    number: ParsedNumber
    multiplier: float
    scale_stated: bool
    record_percent: bool
    in_points: bool  # the record's scale is percent: the gold is already in percent points
    scale_asked: bool  # the question names the scale an answer is to be given in


def _frame(gold: ParsedNumber, scale: str | None, unit: str | None, question: str) -> _GoldFrame:
    record_multiplier = scale_multiplier(scale)
    return _GoldFrame(
        number=gold,
        multiplier=gold.multiplier if gold.scale_word else record_multiplier,
        scale_stated=gold.scale_word is not None or record_multiplier != 1.0,
        record_percent=names_percent(scale, unit),
        in_points=names_percent(scale),
        scale_asked=asked_scale(question) is not None,
    )


@dataclass(frozen=True, slots=True)
class _View:
    """One reading of the prediction in the gold's unit.

    ``shiftable``: read in an implied unit, so a unit shift may apply. ``roundable``: may
    match by rounding to the gold's precision (not after a unit shift, which would make
    ``1,600`` round to a gold ``2``).
    """

    value: float
    label: str
    shiftable: bool
    roundable: bool = True


def _base_views(pred: ParsedNumber, frame: _GoldFrame) -> list[_View]:
    """The prediction expressed in the gold's unit, one view per reading of its scale."""
    if pred.scale_word and frame.scale_stated:
        return [_View(pred.value / frame.multiplier, "same value in base units", shiftable=False)]
    if pred.scale_word:
        return [
            _View(pred.magnitude, "gold scale implied", shiftable=True),
            _View(pred.value, "gold in units", shiftable=False),
        ]
    return [_View(pred.magnitude, "as written", shiftable=True)]


def _percent_views(base: list[_View], pred: ParsedNumber, frame: _GoldFrame) -> list[_View]:
    """Percent ↔ fraction readings, only where a % sign or the record makes it explicit.

    A gold in percent points (scale percent) is never compared with the prediction ÷ 100:
    that would pass an answer 100 times too large.
    """
    factors: list[tuple[float, str]] = []
    if (pred.is_percent and not frame.number.is_percent) or (
        frame.record_percent and not frame.in_points
    ):
        factors.append((0.01, "percent as fraction"))
    if frame.record_percent or (frame.number.is_percent and not pred.is_percent):
        factors.append((100.0, "fraction as percent"))
    return [
        _View(view.value * factor, label, shiftable=False)
        for view in base
        for factor, label in factors
    ]


def _views(pred: ParsedNumber, frame: _GoldFrame) -> list[_View]:
    """Every comparable reading of the prediction, with a label for the reason."""
    base = _base_views(pred, frame)
    if frame.record_percent or pred.is_percent or frame.number.is_percent:
        return base + _percent_views(base, pred, frame)
    shifted = [
        _View(view.value * shift, f"unit shift ×{shift:g}", shiftable=False, roundable=False)
        for view in base
        if view.shiftable and not frame.scale_asked
        for shift in UNIT_SHIFTS
    ]
    return base + shifted


def within_tolerance(
    value: float, target: float, decimals: int, *, relative: bool = True, rounding: bool = True
) -> bool:
    """Within ±2% of ``target`` (if ``relative``), or equal to it at ``decimals`` places.

    The rounding test (if ``rounding``) rounds half away from zero: ``24.255`` gives a gold
    ``24.26``, ``24.265`` does not, nor does ``0.5`` give ``0``. A gold of exactly 0 (none,
    no change) takes no rounding: ``0.4`` is not ``0``.
    """
    gap = abs(value - target)
    if relative and gap <= RELATIVE_TOLERANCE * abs(target):
        return True
    if not rounding or target == 0:
        return gap <= 1e-9
    half_unit = 0.5 * 10.0 ** -min(decimals, 15)
    if math.isclose(gap, half_unit, rel_tol=1e-9):
        return abs(value) < abs(target)  # the half rounds away from zero, onto the gold
    return gap < half_unit


def _candidates(prediction: str, gold: ParsedNumber) -> list[ParsedNumber]:
    """The prediction's first and last answer numbers (one when they coincide)."""
    main = _main_numbers(extract_numbers(prediction), keep_years=gold.is_year_like)
    return main[:1] + main[-1:] if len(main) > 1 else main


def bare_figure(text: str) -> ParsedNumber | None:
    """The one figure ``text`` is (years aside), with at most a unit or scale word besides;
    None for any other text."""
    numbers = extract_numbers(text)
    figures = [number for number in numbers if not number.is_year_like]
    rest = text
    for number in numbers:
        rest = rest.replace(number.text, " ")
    return figures[0] if len(figures) == 1 and len(words(rest)) <= MAX_FIGURE_WORDS else None


def sentence_figure_verdict(
    question: str, gold: str, prediction: str, *, scale: str | None, unit: str | None
) -> Verdict | None:
    """A bare figure answering a question that asks how much, against a gold sentence that
    states one figure ("$411" for "restructuring costs amounted to $411 million"): judged
    as that figure; None for any other question, gold or answer."""
    figures = [number for number in extract_numbers(gold) if not number.is_year_like]
    if not _ASKS_QUANTITY.search(question) or len(figures) != 1 or not bare_figure(prediction):
        return None
    verdict = numeric_verdict(
        figures[0].text, prediction, scale=scale, unit=unit, question=question
    )
    if verdict is None:
        return None
    return verdict.model_copy(update={"reason": f"the gold's one figure: {verdict.reason}"})


def is_ratio_gold(
    gold: str, number: ParsedNumber, scale: str | None, unit: str | None, question: str
) -> bool:
    """Whether the gold is a bare ratio: no currency, percent or scale, asked as a ratio."""
    bare = not (number.scale_word or number.is_percent or "$" in gold)
    unscaled = scale_multiplier(scale) == 1.0 and not names_percent(scale, unit)
    return bare and unscaled and not unit and names_ratio(question)


def numeric_verdict(
    gold: str,
    prediction: str,
    *,
    scale: str | None = None,
    unit: str | None = None,
    question: str = "",
) -> Verdict | None:
    """Score a number-like gold deterministically; None when the gold is not number-like.

    ``scale`` is the record's scale name (``"million"``, ``"percent"``, ...) and ``unit``
    its unit (``"percent"``, ``"USD"``, ...); both describe the gold as written.
    ``question`` tells a ratio and a scale the answer is asked in.
    """
    number = gold_number(gold)
    if number is None:
        return None
    candidates = _candidates(prediction if isinstance(prediction, str) else "", number)
    if not candidates:
        return Verdict(
            score=0, reason=f"no number in the prediction; gold is {number.text}", stage="numeric"
        )
    scaled = [candidate.text for candidate in candidates if candidate.scale_word]
    if scaled and is_ratio_gold(gold, number, scale, unit, question):
        reason = f"{scaled[0]} carries a scale word; the gold {number.text} is a ratio"
        return Verdict(score=0, reason=reason, stage="numeric")
    frame = _frame(number, scale, unit, question)
    relative = not number.is_year_like
    for candidate in candidates:
        for view in _views(candidate, frame):
            if within_tolerance(
                view.value,
                number.magnitude,
                number.decimals,
                relative=relative,
                rounding=view.roundable,
            ):
                reason = f"{candidate.text} matches gold {number.text} ({view.label})"
                return Verdict(score=1, reason=reason, stage="numeric")
    tried = " / ".join(candidate.text for candidate in candidates)
    reason = f"{tried} does not match gold {number.text} within 2% or at the gold's precision"
    return Verdict(score=0, reason=reason, stage="numeric")
