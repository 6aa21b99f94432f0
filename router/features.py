"""What the trained router sees of a question: FinAgent-RAG style features from its text.

Length, comparative/superlative wording, financial entities (canonical metrics the
finance lexicon recognises), distinct numbers, sub-questions and how deeply operations
nest, distinct periods, a year-over-year pattern, the span in years, and the computation
type (lookup, single-step, multi-step). Pure functions: no LM, no model.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict

from filingqa.retrieval.vocabulary import lexicon

Computation = Literal["lookup", "single-step", "multi-step"]
COMPUTATION_CODES: dict[Computation, int] = {"lookup": 0, "single-step": 1, "multi-step": 2}
FEATURE_VERSION = 1

_COMPARATIVE = re.compile(
    r"\b(\w+er than|more|less|fewer|higher|lower|greater|larger|smaller|bigger|better|worse|"
    r"most|least|highest|lowest|largest|smallest|biggest|best|worst|exceed(ed|s)?|outperform\w*)\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"(?<![\w.])\$?\d[\d,]*(?:\.\d+)?%?")
_SUB_QUESTION = re.compile(
    r"\?\s*\S|;|\b(?:and|as well as|also)\s+(?:what|how|which|when|why|is|was|did|does)\b|"
    r"\brespectively\b",
    re.IGNORECASE,
)
_YOY = re.compile(
    r"\b(year[- ]over[- ]year|yoy|y/y|from (?:fy\s?)?\d{4} to (?:fy\s?)?\d{4}|"
    r"between (?:fy\s?)?\d{4} and (?:fy\s?)?\d{4}|(?:prior|previous|preceding) (?:fiscal )?year|"
    r"compared (?:to|with) (?:the )?(?:prior|previous|last) year)\b",
    re.IGNORECASE,
)
# Operations by the number of arithmetic steps they take.
_MULTI_STEP = re.compile(
    r"\b(percentage change|percent change|% change|growth rate|rate of (?:growth|change)|"
    r"cagr|compound(?:ed)? annual|average (?:annual )?(?:growth|change)|change in the "
    r"(?:ratio|margin|percentage|average)|(?:increase|decrease|change|growth) in percent(?:age)?)",
    re.IGNORECASE,
)
_SINGLE_STEP = re.compile(
    r"\b(change|difference|increase|decrease|grew|growth|declined?|sum|total|combined|average|"
    r"mean|ratio|proportion|percentage|percent|share of|portion|margin|per|times|divided|"
    r"multipl\w+|net of|less|minus|plus|excluding)\b",
    re.IGNORECASE,
)

FEATURE_NAMES: tuple[str, ...] = (
    "question_words",
    "comparative",
    "financial_entities",
    "distinct_numbers",
    "sub_questions",
    "operation_depth",
    "distinct_periods",
    "year_over_year",
    "span_years",
    "computation",
)


class RouterFeatures(BaseModel):
    """The router's view of one question (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    question_words: int
    comparative: bool
    financial_entities: int
    distinct_numbers: int
    sub_questions: int
    operation_depth: int
    distinct_periods: int
    year_over_year: bool
    span_years: int
    computation: Computation

    def vector(self) -> list[float]:
        """The features as numbers, in :data:`FEATURE_NAMES` order."""
        values = self.model_dump()
        values["computation"] = COMPUTATION_CODES[self.computation]
        return [float(values[name]) for name in FEATURE_NAMES]


def computation_type(question: str) -> Computation:
    """Lookup (no operation word), single-step (one), multi-step (several, or an operation
    that takes several steps such as a percentage change or a CAGR)."""
    if _MULTI_STEP.search(question):
        return "multi-step"
    operations = _SINGLE_STEP.findall(question)
    if not operations:
        return "lookup"
    return "single-step" if len(operations) == 1 else "multi-step"


def operation_depth(question: str) -> int:
    """How many operations the question chains (multi-step operations count two)."""
    return 2 * len(_MULTI_STEP.findall(question)) + len(
        _SINGLE_STEP.findall(_MULTI_STEP.sub(" ", question))
    )


def _distinct_numbers(question: str) -> int:
    years = {str(y) for y in lexicon.years(question)}
    numbers = {m.group(0).strip("$%").replace(",", "") for m in _NUMBER.finditer(question)}
    return len(numbers - years)


def extract(question: str) -> RouterFeatures:
    """The :class:`RouterFeatures` of ``question``."""
    periods = lexicon.periods(question)
    years = set(lexicon.years(question)) | {p.end_date.year for p in periods if p.end_date}
    return RouterFeatures(
        question_words=len(question.split()),
        comparative=bool(_COMPARATIVE.search(question)),
        financial_entities=len(lexicon.metric_terms(question)),
        distinct_numbers=_distinct_numbers(question),
        sub_questions=1 + len(_SUB_QUESTION.findall(question.strip().rstrip("?"))),
        operation_depth=operation_depth(question),
        distinct_periods=len({(p.kind, p.year, p.index, p.end_date) for p in periods}),
        year_over_year=bool(_YOY.search(question)),
        span_years=max(years) - min(years) if years else 0,
        computation=computation_type(question),
    )
