"""The judge's pre-check: wrong answers that need no LLM to see (before the LLM stage).

A small judge LM credits plainly wrong answers often enough to swamp a comparison: on 76
naive-RAG answers to FinanceBench dev, the 1.5B backbone as judge gave half credit to 18
refusals, 2 empty answers and "3M" (for a gold opening "No, the company is managing its
CAPEX …"). So before any LLM sees them, three cases score 0:

- an empty answer;
- a short refusal without a figure ("not stated in the evidence", "cannot be
  determined") when the gold is not itself a refusal;
- for a yes/no gold, an answer that opens with the opposite word, or a short answer that
  says neither yes nor no nor a direction ("3M" for "No, the company …").
"""

from __future__ import annotations

from filingqa.metrics.category import AnswerCategory
from filingqa.metrics.numbers import extract_numbers
from filingqa.metrics.numeric import DIRECTIONAL_WORDS, POLAR_WORDS, words
from filingqa.metrics.verdict import Verdict
from filingqa.program.refusal import is_refusal

MAX_REFUSAL_WORDS = 25  # longer answers that mention a gap may still answer: the LLM decides
MAX_SILENT_WORDS = 5  # a yes/no answer this short without yes, no or a direction states none


def precheck(gold: str, prediction: str, category: AnswerCategory) -> Verdict | None:
    """A 0 verdict when ``prediction`` is plainly wrong in one of the ways above, else None."""
    found = words(prediction)
    if not prediction.strip():
        return _wrong("the answer is empty")
    if _refuses(prediction) and not is_refusal(gold):
        return _wrong("the answer refuses; the gold answers")
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


def _refuses(prediction: str) -> bool:
    """A short refusal with no figure in it (an answer that gives a figure and notes a
    gap still answers)."""
    short = len(words(prediction)) <= MAX_REFUSAL_WORDS
    return short and is_refusal(prediction) and not extract_numbers(prediction)


def _wrong(reason: str) -> Verdict:
    return Verdict(score=0, reason=f"pre-check: {reason}", stage="precheck")
