"""The datasets' own metrics of an eval answer, beside the strict judge: TAT-QA exact match
and F1 (answer and scale together), FinQA execution accuracy.

An eval row keeps the answer as text, so the prediction is read from it the way the judge
reads it: the answer's first number (years aside) with its scale word or ``%`` for
numeric golds, the whole text (split at ``"; "``) for span golds, its scale read from its
first number and scale words after numbers left out of the spans (TAT-QA compares the
scale apart: ``73,260 thousand; 57,768 thousand`` is the spans ``73,260``, ``57,768`` in
thousands), an opening yes/no (or True/False) for FinQA's ``greater`` answers. Datasets
without an official metric (FinanceBench, LOFin, FinQA records without an executed gold)
get none.
"""

from __future__ import annotations

from filingqa.core.numbers import ParsedNumber, extract_numbers
from filingqa.datasets import finqa, tatqa
from filingqa.datasets.tatqa import MULTI_SPAN_SEPARATOR
from filingqa.metrics.finqa_official import POLAR_ANSWERS, finqa_execution_match
from filingqa.metrics.numeric import answer_number, answer_words
from filingqa.metrics.tatqa_official import NUMERIC_ANSWER_TYPES, tatqa_score
from filingqa.records import QARecord

TATQA_SCALES = {1e3: "thousand", 1e6: "million", 1e9: "billion"}
"""TAT-QA's scale names by multiplier (``percent`` comes from a ``%`` sign)."""


def official_scores(record: QARecord, answer: str) -> dict[str, float]:
    """The official metric(s) of ``answer`` to ``record``, by name; empty where none exists.

    Names: ``tatqa_em`` and ``tatqa_f1`` (TAT-QA), ``finqa_exe`` (FinQA).
    """
    if record.dataset == tatqa.NAME:
        return _tatqa(record, answer)
    if record.dataset == finqa.NAME and "exe_ans" in record.meta:
        return {"finqa_exe": float(finqa_execution_match(record.meta["exe_ans"], _finqa(answer)))}
    return {}


def _tatqa_scale(number: ParsedNumber | None) -> str:
    if number is None:
        return ""
    if number.is_percent:
        return "percent"
    return TATQA_SCALES.get(number.multiplier, "")


def _without_scale_words(span: str) -> str:
    """``span`` with the scale word of each of its numbers left out (``73,260 thousand`` →
    ``73,260``), as the number parser reads them."""
    for number in reversed(extract_numbers(span)):
        if number.scale_word:
            bare = number.text[: len(number.text) - len(number.scale_word)].rstrip()
            span = span[: number.start] + bare + span[number.start + len(number.text) :]
    return span


def _tatqa(record: QARecord, answer: str) -> dict[str, float]:
    answer_type = record.meta.get("tatqa_answer_type")
    number = answer_number(answer)
    if answer_type in NUMERIC_ANSWER_TYPES:
        prediction: str | float | list[str] | None = None if number is None else number.magnitude
    else:
        spans = [span for span in answer.split(MULTI_SPAN_SEPARATOR) if span.strip()]
        prediction = [_without_scale_words(span) for span in spans] if number else spans
    score = tatqa_score(
        record.answer_value,  # type: ignore[arg-type]  # float or spans for TAT-QA records
        record.scale,
        prediction,
        _tatqa_scale(number),
        answer_type,
    )
    return {"tatqa_em": score.exact_match, "tatqa_f1": score.f1}


def _finqa(answer: str) -> float | str | None:
    """The value FinQA would compare: yes/no, or the first number (a percentage as a
    fraction, since FinQA's executed golds are fractions; scale words are not applied)."""
    found = answer_words(answer)
    if found and found[0] in POLAR_ANSWERS:
        return found[0]
    number = answer_number(answer)
    if number is None:
        return None
    return number.magnitude / 100 if number.is_percent else number.magnitude
