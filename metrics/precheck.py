"""The judge's pre-check: wrong answers that need no LLM to see (before the LLM stage).

A small judge LM credits plainly wrong answers often enough to swamp a comparison: it gives
half credit to refusals, empty answers and a company name ("3M" for a gold opening "No, the
company is managing its CAPEX …"; counts: docs/experiments.md). So before any LLM sees
them, these answers score 0:

- an empty answer, or the program's failure notice ("no answer (reason 1:
  truncated_output)", "no answer: its figures are not in the evidence");
- a short refusal without a figure ("not stated in the evidence", "cannot be
  determined"; a year such as the question's "July 2022" is no figure) when the gold is
  not itself a refusal;
- for a yes/no gold, an answer that opens with the opposite word, or a short answer that
  says neither yes nor no nor a direction ("3M" for "No, the company …"); an opening
  "True"/"False" (a program's bool) counts as yes/no;
- a bare figure that equals none of the gold's figures, nor a difference, ratio or
  relative change of two of them, at any scale ("112" for "restructuring costs in FY2022
  amounted to $411 million"; "3.0%" for "from 24.6% in FY2021 to 21.6%" passes on).
"""

from __future__ import annotations

import re
from itertools import permutations

from filingqa.core.numbers import ParsedNumber, extract_numbers
from filingqa.metrics.category import AnswerCategory
from filingqa.metrics.numeric import (
    DIRECTIONAL_WORDS,
    POLAR_WORDS,
    answer_words,
    bare_figure,
    within_tolerance,
    words,
)
from filingqa.metrics.verdict import Verdict
from filingqa.records.refusal import is_refusal

# Besides the program's refusal phrases: how the 1.5B model words "the evidence lacks it"
# ("The evidence does not provide any information about the operating margin change.")
_NO_INFORMATION = re.compile(
    r"\b(does|do|did) not (provide|contain|include|mention|specify|state|disclose|give|show)\b"
    r"|\bno (relevant |specific )?(information|data|mention|details?)\b",
    re.IGNORECASE,
)
# How the program says it has no answer: "no answer (reason 1: truncated_output)",
# "no answer: its figures are not in the evidence"
_FAILURE_NOTICE = re.compile(r"\s*no answer\b", re.IGNORECASE)
MAX_REFUSAL_WORDS = 25  # longer answers that mention a gap may still answer: the LLM decides
MAX_SILENT_WORDS = 5  # a yes/no answer this short without yes, no or a direction states none
# A bare figure matches a gold figure at any of these scales (thousands, millions, percent…)
SHIFTS = (1.0, 1e3, 1e-3, 1e6, 1e-6, 1e9, 1e-9, 100.0, 0.01)


def precheck(gold: str, prediction: str, category: AnswerCategory) -> Verdict | None:
    """A 0 verdict when ``prediction`` is plainly wrong in one of the ways above, else None."""
    found = answer_words(prediction)
    if not prediction.strip():
        return _wrong("the answer is empty")
    if _FAILURE_NOTICE.match(prediction):
        return _wrong("the answer is a failure notice, not an answer")
    if refuses(prediction) and not is_refusal(gold):
        return _wrong("the answer refuses; the gold answers")
    if _figure_off_gold(gold, prediction):
        return _wrong("the answer is a figure the gold does not hold")
    if category != "yes_no":
        return None
    gold_words = words(gold)
    polarity = gold_words[0] if gold_words and gold_words[0] in POLAR_WORDS else None
    if polarity is not None and found[:1] and found[0] in POLAR_WORDS and found[0] != polarity:
        return _wrong(f"the answer says '{found[0]}', the gold '{polarity}'")
    states = POLAR_WORDS | DIRECTIONAL_WORDS
    if len(found) <= MAX_SILENT_WORDS and states.isdisjoint(found):
        return _wrong("a yes/no question, and the answer says neither yes nor no")
    return None


def refuses(prediction: str) -> bool:
    """A short refusal with no figure in it (an answer that gives a figure and notes a
    gap still answers)."""
    short = len(words(prediction)) <= MAX_REFUSAL_WORDS
    refuses = is_refusal(prediction) or bool(_NO_INFORMATION.search(prediction))
    return short and refuses and not any(map(_is_figure, extract_numbers(prediction)))


def _is_figure(number: ParsedNumber) -> bool:
    """A number an answer could give, unlike the "3M" of a company name or a year: two or
    more digits, a decimal point, a percent or a currency sign."""
    if number.is_year_like:
        return False
    digits = sum(c.isdigit() for c in number.text)
    return digits > 1 or "." in number.text or number.is_percent or "$" in number.text


def _figure_off_gold(gold: str, prediction: str) -> bool:
    """Whether ``prediction`` is a bare figure and the gold has figures, none of them it."""
    figure = bare_figure(prediction)
    golds = [n for n in extract_numbers(gold) if not n.is_year_like]
    if figure is None or not golds:
        return False
    value = abs(figure.value)
    return not any(
        within_tolerance(value * shift, target, 2) for target in _derived(golds) for shift in SHIFTS
    )


def _derived(golds: list[ParsedNumber]) -> set[float]:
    """The gold's figures and, for each pair, their difference, ratio and relative change
    (all as magnitudes)."""
    values = [abs(g.value) for g in golds]
    found = set(values)
    for a, b in permutations(values, 2):
        found.add(abs(a - b))
        if b:
            found |= {a / b, abs(a - b) / b}
    return found


def _wrong(reason: str) -> Verdict:
    return Verdict(score=0, reason=f"pre-check: {reason}", stage="precheck")
