"""Statement figures as evidence: labelled rows the reader sees before the retrieved passages.

A figure looked up in a filing's statement records reads as one line (broken here)::

    Operating cash flow: Net cash provided by operating activities | FY2019 | 10,811 |
    USD millions | 3M_2019_10K p.54

the concept as questions name it and the row label the filing prints (when that reads
otherwise), its fiscal period, the value as printed (parentheses kept, currency signs
dropped), its unit and scale, and where it is printed. The rows of one statement table make
one passage on that table's page, so tracing a program's numbers back to the evidence
(:mod:`~filingqa.checks.citations`) cites the statement page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from filingqa.records.documents import Passage
from filingqa.records.statements import StatementRecord

ROWS_PART = "rows"  # a rows passage's id: the table passage's id with this part
_TITLES = {
    "income": "Income statement",
    "balance": "Balance sheet",
    "cash_flow": "Cash flow statement",
}
_WORDS = re.compile(r"[a-z0-9]+")
_NAMES = {  # concepts whose names read badly with their underscores spaced out
    "sga": "SG&A",
    "research_development": "R&D",
    "eps_basic": "basic EPS",
    "eps_diluted": "diluted EPS",
    "property_plant_equipment": "PP&E, net",
    "depreciation_amortization": "depreciation and amortization",
    "short_term_investments": "short-term investments",
    "short_term_debt": "short-term debt",
    "long_term_debt": "long-term debt",
    "cash_and_equivalents": "cash and cash equivalents",
}


def statement_rows(records: Iterable[StatementRecord], budget_chars: int) -> list[Passage]:
    """One row per concept and period (the first record of each, so the filing reporting
    the period comes before a later filing's comparative column), in the records' order
    while the rows fit ``budget_chars``; the rows of each statement table as one passage,
    in order of their first row."""
    chosen: dict[tuple[str, str], StatementRecord] = {}
    for record in records:
        if record.concept is not None:
            chosen.setdefault((record.concept, record.period), record)
    tables: dict[str, list[StatementRecord]] = {}
    used = 0
    for record in chosen.values():
        used += len(row(record)) + 1
        if used > budget_chars:
            break
        tables.setdefault(record.table_id, []).append(record)
    return [_passage(table_id, rows) for table_id, rows in tables.items()]


def row(record: StatementRecord) -> str:
    """A record as one labelled line: item | period | value | unit | filing and page."""
    return " | ".join(
        [_item(record), record.period, _value(record), _unit(record), _source(record)]
    )


def _passage(table_id: str, records: list[StatementRecord]) -> Passage:
    first = records[0]
    title = f"{_TITLES[first.statement]} figures"
    header = f"{title} ({_stated_scale(records)}item | period | value | unit | filing page):"
    return Passage(
        id=f"{table_id}.{ROWS_PART}",
        doc_id=first.doc_id,
        page=first.page,
        kind="table",
        text="\n".join([header, *(row(record) for record in records)]),
        parent_id=table_id,
        title=title,
    )


def _stated_scale(records: list[StatementRecord]) -> str:
    """``in millions; `` when every amount of ``records`` is in millions (etc.), as a
    statement's own header states it, so the figures read at their scale; else nothing."""
    scales = {record.scale for record in records if record.unit != "USD/share"}
    (scale,) = scales if len(scales) == 1 else ("units",)
    return "" if scale == "units" else f"in {scale}; "


def concept_name(concept: str) -> str:
    """A concept as questions name it: ``capital_expenditure`` → "Capital expenditure"."""
    name = _NAMES.get(concept) or concept.replace("_", " ")
    return name[0].upper() + name[1:]


def _item(record: StatementRecord) -> str:
    """The row label the filing prints, after the concept's name unless it holds its words."""
    printed = " ".join(record.line_item.split())
    if record.concept is None:
        return printed
    name = concept_name(record.concept)
    return printed if _stems(name) <= _stems(printed) else f"{name}: {printed}"


def _stems(text: str) -> set[str]:
    """The words of ``text``, lower case, a plural's ``s`` dropped."""
    return {word.removesuffix("s") for word in _WORDS.findall(text.lower())}


def _value(record: StatementRecord) -> str:
    """The cell as printed without currency signs or spaces; a dash as 0."""
    shown = re.sub(r"[$\s]", "", record.printed)
    return shown if any(c.isdigit() for c in shown) else "0"


def _unit(record: StatementRecord) -> str:
    unit = "USD per share" if record.unit == "USD/share" else record.unit
    return unit if record.scale == "units" else f"{unit} {record.scale}"


def _source(record: StatementRecord) -> str:
    return f"{record.doc_id} p.{record.page}"
