"""Formula conventions: how a computation the question names is done in financial reporting,
spelled out for the program writer where the small model gets it wrong.

"The 2019 average" of a figure shown for several year-ends is the average balance of the
year: the mean of its 2019 and 2018 values. A small model takes the mean of every column
instead, so the convention is spelled out. No note is given for percentage change, change or
averages over named years: the model already knows them, and any extra line shifts its
greedy output (how the notes were compared: docs/experiments.md).

A metric of the catalogue (:mod:`~filingqa.checks.metric_catalogue`: free cash flow, the
quick ratio, working capital, EBITDA, margins, turnover and days ratios, ...) the question
names gets its standard definition, but only when no table row of the evidence is labelled
with it and the question does not state its own formula (the question's formula wins): the
model otherwise copies the nearest line, such as net cash provided by operating activities
for free cash flow, even with the filing's own sentence defining the metric in the evidence.
"""

from __future__ import annotations

import re

from filingqa.checks.metric_catalogue import (
    Mention,
    first_mentions,
    metrics_named,
    question_defines,
)
from filingqa.checks.table_rows import table_rows
from filingqa.retrieval.vocabulary import lexicon

_AVERAGE = re.compile(r"\baverage\b(?!\s+(?:\w+\s+){0,4}?per\b)", re.IGNORECASE)
_CHANGE = re.compile(r"\b(?:change|increase|decrease|difference)\b", re.IGNORECASE)


def formula_note(question: str, evidence: str = "") -> str | None:
    """The conventions ``question`` calls for over ``evidence``, as one line for the program
    writer, or None: the year-average convention (:func:`average_note`) and the definition
    of each metric it names that it does not define itself and no table row of ``evidence``
    is labelled with (:func:`definition_notes`)."""
    notes = [average_note(question), *definition_notes(question, evidence)]
    return " ".join(note for note in notes if note) or None


def definition_notes(question: str, evidence: str) -> list[str]:
    """The definition of each metric of :func:`unstated_metrics`, as a line
    ``name = definition.``"""
    return [f"{name} = {definition}." for name, definition in unstated_metrics(question, evidence)]


def unstated_metrics(question: str, evidence: str) -> list[tuple[str, str]]:
    """``(name, definition)`` of each noted :mod:`~filingqa.checks.metric_catalogue` metric
    ``question`` names (:func:`note_name`), unless the question states its own formula for
    the metric, a table row of ``evidence`` is labelled with it, or another such metric's
    definition states its definition in full (free cash flow's states capex's)."""
    labelled = metrics_named(" | ".join(row.label for row in table_rows(evidence)))
    unstated = [
        (note_name(mention), mention.metric.definition)
        for mention in first_mentions(question)
        if mention.metric.noted
        and mention.metric not in labelled
        and not question_defines(question, mention.metric)
    ]
    return [
        (name, definition)
        for name, definition in unstated
        if not any(definition in other and definition != other for _, other in unstated)
    ]


def note_name(mention: Mention) -> str:
    """The name a definition note gives a metric: as the question writes it, an acronym
    ("FCF", "DPO") spelled out, the first letter a capital."""
    name = mention.metric.name if mention.written.isupper() else mention.written
    return name[:1].upper() + name[1:]


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
