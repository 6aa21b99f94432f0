"""Statement records and the book that looks them up."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from pydantic import ValidationError

from filingqa.records.statements import StatementBook, StatementRecord, company_key


def _record(**changes: Any) -> StatementRecord:
    fields: dict[str, Any] = {
        "company": "Widget Corp",
        "statement": "balance",
        "line_item": "Total assets",
        "concept": "total_assets",
        "period": "FY2023",
        "span": "instant",
        "fiscal_year": 2023,
        "period_end": date(2023, 6, 30),
        "value": 1490.0,
        "printed": "$ 1,490",
        "scale": "millions",
        "doc_id": "WIDGET_2023_10K",
        "page": 3,
        "table_id": "WIDGET_2023_10K:p3:table1",
        "comparative": False,
    }
    return StatementRecord(**(fields | changes))


def test_a_record_is_frozen_and_knows_its_amount() -> None:
    record = _record()
    assert record.amount == 1.49e9
    assert _record(value=-2.5, scale="units", unit="USD/share").amount == -2.5
    with pytest.raises(ValidationError):
        record.value = 1.0  # type: ignore[misc]


def test_a_record_rejects_unknown_fields_and_statements() -> None:
    with pytest.raises(ValidationError):
        _record(statement="equity")
    with pytest.raises(ValidationError):
        _record(source="x")


def test_company_names_compare_loosely() -> None:
    assert company_key("Widget Corp.") == company_key("WIDGET CORP") == "widgetcorp"


def test_figure_prefers_the_filing_reporting_the_period() -> None:
    later = _record(
        doc_id="WIDGET_2024_10K", table_id="WIDGET_2024_10K:p3:table1", comparative=True
    )
    own = _record()
    other = _record(concept="total_liabilities", line_item="Total liabilities", value=605.0)
    book = StatementBook([later, own, other])
    assert book.figure("widget corp", "total_assets", "FY2023") == own
    assert book.figure("Widget Corp", "total_assets", "FY2022") is None
    assert book.find(concept="total_assets") == [own, later]
    assert book.find(doc_id="WIDGET_2024_10K") == [later]
    assert len(book) == 3 and list(book) == [later, own, other]


def test_records_without_a_concept_are_kept_but_not_indexed() -> None:
    unlabelled = _record(concept=None, line_item="Other assets")
    book = StatementBook([unlabelled])
    assert book.find(company="Widget Corp", period="FY2023") == [unlabelled]
    assert book.figure("Widget Corp", "total_assets", "FY2023") is None
