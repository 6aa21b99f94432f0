"""Financial-statement line items as labelled records, and a lookup over them.

A :class:`StatementRecord` is one figure of an income statement, balance sheet or cash-flow
statement as a filing prints it: the row's label and its normalized concept (names from
:mod:`filingqa.records.concepts`), the fiscal period of its column, the value with the
table's unit and scale, and where it was printed (document, page, table). A filing's
comparative columns make records too, marked ``comparative`` and kept with the filing
they came from. :class:`StatementBook` finds records by company, concept and period.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from filingqa.records.concepts import Statement

Scale = Literal["units", "thousands", "millions", "billions"]
Unit = Literal["USD", "USD/share", "shares"]
PeriodSpan = Literal["year", "nine_months", "half", "quarter", "instant"]

SCALE_MULTIPLIERS: dict[Scale, float] = {
    "units": 1.0,
    "thousands": 1e3,
    "millions": 1e6,
    "billions": 1e9,
}


class StatementRecord(BaseModel):
    """One figure of a primary financial statement, as printed in one filing."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    company: str
    statement: Statement
    line_item: str = Field(description="the row label as printed")
    section: str | None = Field(default=None, description="the section row it falls under")
    concept: str | None = Field(default=None, description="normalized concept; None if unknown")
    period: str = Field(description="fiscal period label: FY2019, Q2 FY2023, H1 FY2023, 9M FY2023")
    span: PeriodSpan = Field(description="a flow's length, or instant for a balance")
    fiscal_year: int = Field(description="fiscal year as the company names it")
    fiscal_quarter: int | None = Field(default=None, ge=1, le=4, description="last quarter")
    period_end: date | None = Field(default=None, description="the column's end (or balance) date")
    value: float = Field(description="the number as printed; parentheses make it negative")
    printed: str = Field(description="the cell text as printed, e.g. '$ (1,234)'")
    unit: Unit = "USD"
    scale: Scale = Field(default="units", description="from the table's 'in millions' header")
    doc_id: str = Field(description="the filing the figure was printed in")
    page: int = Field(ge=1, description="1-based page")
    table_id: str = Field(description="the table passage: <doc_id>:p<page>:table<n>")
    comparative: bool = Field(description="an earlier period than the filing reports")

    @property
    def amount(self) -> float:
        """The value in base units (dollars, shares): value times the scale."""
        return self.value * SCALE_MULTIPLIERS[self.scale]


def company_key(name: str) -> str:
    """A company name compared loosely: lower case, letters and digits only."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


class StatementBook:
    """Statement records indexed for lookup by company, concept and period."""

    def __init__(self, records: Iterable[StatementRecord]) -> None:
        self._records = list(records)
        self._by_key: dict[tuple[str, str, str], list[StatementRecord]] = {}
        for record in self._records:
            if record.concept is not None:
                key = (company_key(record.company), record.concept, record.period)
                self._by_key.setdefault(key, []).append(record)

    def __iter__(self) -> Iterator[StatementRecord]:
        return iter(self._records)

    def __len__(self) -> int:
        return len(self._records)

    def find(
        self,
        company: str | None = None,
        concept: str | None = None,
        period: str | None = None,
        doc_id: str | None = None,
    ) -> list[StatementRecord]:
        """The records matching every given field: each filing's own figures first, then
        comparatives, each in the order they were added."""
        if company is not None and concept is not None and period is not None:
            found = self._by_key.get((company_key(company), concept, period), [])
        else:
            found = [
                r
                for r in self._records
                if (company is None or company_key(r.company) == company_key(company))
                and (concept is None or r.concept == concept)
                and (period is None or r.period == period)
            ]
        found = [r for r in found if doc_id is None or r.doc_id == doc_id]
        return sorted(found, key=lambda r: r.comparative)

    def figure(self, company: str, concept: str, period: str) -> StatementRecord | None:
        """The record of ``concept`` for ``period``: the filing reporting that period
        first, else a later filing's comparative column; None if there is none."""
        found = self.find(company, concept, period)
        return found[0] if found else None
