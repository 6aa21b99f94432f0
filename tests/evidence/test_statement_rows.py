"""Statement records as labelled rows: one line a figure, one passage a statement table."""

from __future__ import annotations

from filingqa.evidence.statement_rows import concept_name, row, statement_rows
from filingqa.records.statements import StatementRecord


def record(
    concept: str | None, period: str, printed: str, value: float, **fields
) -> StatementRecord:
    base = {
        "company": "3M",
        "statement": "cash_flow",
        "line_item": "Net cash provided by operating activities",
        "span": "year",
        "fiscal_year": int(period[-4:]),
        "scale": "millions",
        "doc_id": "3M_2019_10K",
        "page": 54,
        "table_id": "3M_2019_10K:p54:table1",
        "comparative": False,
    }
    return StatementRecord(
        concept=concept, period=period, printed=printed, value=value, **(base | fields)
    )


OCF_2019 = record("operating_cash_flow", "FY2019", "$ 7,070", 7070.0)
OCF_2018 = record("operating_cash_flow", "FY2018", "6,439", 6439.0)


def test_a_row_says_what_when_how_much_in_what_and_where() -> None:
    assert row(OCF_2019) == (
        "Operating cash flow: Net cash provided by operating activities | FY2019 | 7,070 | "
        "USD millions | 3M_2019_10K p.54"
    )
    capex = record(
        "capital_expenditure", "FY2019", "(1,699)", -1699.0, line_item="Capital expenditures"
    )
    assert row(capex).startswith("Capital expenditures | FY2019 | (1,699) | USD millions")
    eps = record("eps_diluted", "FY2019", "$ 7.81", 7.81, unit="USD/share", scale="units")
    assert " | 7.81 | USD per share | " in row(eps)
    nil = record("dividends_paid", "FY2019", "—", 0.0, line_item="Dividends paid")
    assert row(nil).startswith("Dividends paid | FY2019 | 0 | USD millions")
    assert concept_name("sga") == "SG&A" and concept_name("total_assets") == "Total assets"


def test_one_row_a_concept_and_period_grouped_by_table_in_order() -> None:
    later = record(  # the FY2019 figure again, as the FY2020 10-K's comparative column
        "operating_cash_flow",
        "FY2019",
        "7,070",
        7070.0,
        doc_id="3M_2020_10K",
        page=50,
        table_id="3M_2020_10K:p50:table2",
        comparative=True,
    )
    assets = record(
        "total_assets",
        "FY2019",
        "44,659",
        44659.0,
        statement="balance",
        line_item="Total assets",
        page=52,
        table_id="3M_2019_10K:p52:table1",
    )
    unlabelled = record(None, "FY2019", "12", 12.0, line_item="Other")
    passages = statement_rows([OCF_2019, later, assets, OCF_2018, unlabelled], 2000)
    assert [(p.id, p.doc_id, p.page, p.kind, p.parent_id) for p in passages] == [
        ("3M_2019_10K:p54:table1.rows", "3M_2019_10K", 54, "table", "3M_2019_10K:p54:table1"),
        ("3M_2019_10K:p52:table1.rows", "3M_2019_10K", 52, "table", "3M_2019_10K:p52:table1"),
    ]
    cash, balance = (p.text.splitlines() for p in passages)
    assert cash == [
        "Cash flow statement figures (in millions; item | period | value | unit | filing page):",
        row(OCF_2019),
        row(OCF_2018),
    ]
    assert balance == [
        "Balance sheet figures (in millions; item | period | value | unit | filing page):",
        row(assets),
    ]


def test_rows_stop_at_the_budget() -> None:
    budget = len(row(OCF_2019)) + 1
    [passage] = statement_rows([OCF_2019, OCF_2018], budget)
    assert passage.text.splitlines()[1:] == [row(OCF_2019)]
    assert statement_rows([OCF_2019], budget - 1) == []
    assert statement_rows([], 4000) == []
