"""Formula conventions: how a computation the question names is done in financial reporting,
spelled out for the program writer where the small model gets it wrong.

"The 2019 average" of a figure shown for several year-ends is the average balance of the
year: the mean of its 2019 and 2018 values. A small model takes the mean of every column
instead, so the convention is spelled out. No note is given for percentage change, change or
averages over named years: the model already knows them, and any extra line shifts its
greedy output (how the notes were compared: docs/experiments.md).

A metric a filing seldom prints as a line (free cash flow, the quick ratio, working capital,
EBITDA, the dividend payout ratio) gets its definition, but only when no table row of the
evidence is labelled with it: the model otherwise copies the nearest line, such as net cash
provided by operating activities for free cash flow, even with the filing's own sentence
defining the metric in the evidence.
"""

from __future__ import annotations

import re

from filingqa.checks.table_rows import table_rows
from filingqa.retrieval.vocabulary import lexicon

_AVERAGE = re.compile(r"\baverage\b(?!\s+(?:\w+\s+){0,4}?per\b)", re.IGNORECASE)
_CHANGE = re.compile(r"\b(?:change|increase|decrease|difference)\b", re.IGNORECASE)
_DEFINES = re.compile(r"\bdefine[ds]?\b", re.IGNORECASE)

DEFINITIONS: dict[tuple[str, ...], str] = {
    ("Free cash flow", "free cashflow", "FCF"): "net cash provided by operating activities "
    "- capital expenditures (purchases of property, plant and equipment)",
    ("Quick ratio", "acid-test ratio", "acid test ratio"): "(cash and cash equivalents + "
    "short-term investments + accounts receivable) / total current liabilities",
    ("Working capital ratio", "current ratio"): "total current assets / total current liabilities",
    ("Working capital",): "total current assets - total current liabilities",
    ("EBITDA",): "operating income + depreciation and amortization",
    ("Dividend payout ratio", "payout ratio"): "cash dividends paid / net income",
}
"""Metrics filings seldom print as a line: ``names -> formula``, longer names first where
one contains another (a "working capital ratio" is not "working capital")."""
_DEFINITION_PATTERNS = [
    (names[0], formula, re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")\b", re.I))
    for names, formula in DEFINITIONS.items()
]


def formula_note(question: str, evidence: str = "") -> str | None:
    """The conventions ``question`` calls for over ``evidence``, as one line for the program
    writer, or None: the year-average convention (:func:`average_note`) and the definition
    of each metric it names that no table row of ``evidence`` is labelled with
    (:func:`definition_notes`)."""
    notes = [average_note(question), *definition_notes(question, evidence)]
    return " ".join(note for note in notes if note) or None


def definition_notes(question: str, evidence: str) -> list[str]:
    """The formula of each metric of :func:`unstated_metrics`, as a line ``name = formula.``"""
    return [f"{name} = {formula}." for name, formula in unstated_metrics(question, evidence)]


def unstated_metrics(question: str, evidence: str) -> list[tuple[str, str]]:
    """``(name, formula)`` of each :data:`DEFINITIONS` metric ``question`` names, unless the
    question defines its metric itself or a table row of ``evidence`` is labelled with it."""
    if _DEFINES.search(question):
        return []
    labels = " | ".join(row.label for row in table_rows(evidence))
    unnamed, metrics = question, []
    for name, formula, pattern in _DEFINITION_PATTERNS:
        if not pattern.search(unnamed):
            continue
        unnamed = pattern.sub(" ", unnamed)
        if not pattern.search(labels):
            metrics.append((name, formula))
    return metrics


def average_note(question: str) -> str | None:
    """The year-average convention ``question`` calls for, as one line, or None.

    An average of one named year ("the 2019 average", "the change between 2018 and 2019
    average free cash flow") is the mean of that year's and the previous year's values; an
    average per unit ("per employee") or over several named years is left alone.
    """
    if not _AVERAGE.search(question):
        return None
    years = sorted(lexicon.years(question))
    if len(years) == 1 or (len(years) == 2 and _CHANGE.search(question)):
        year = years[-1]
        return (
            f"The {year} average of a figure is the mean of its {year} and {year - 1} "
            f"values: (value in {year} + value in {year - 1}) / 2; likewise for other years."
        )
    return None
