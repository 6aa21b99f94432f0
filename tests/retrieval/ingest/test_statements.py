"""Statement tables found in a filing and read into labelled records."""

from __future__ import annotations

from datetime import date

import pytest

from filingqa.records.documents import Document
from filingqa.records.qa_record import Table
from filingqa.records.statements import StatementBook, StatementRecord
from filingqa.retrieval.ingest.filings import text_pages
from filingqa.retrieval.ingest.html import html_pages
from filingqa.retrieval.ingest.pdf import PageContent
from filingqa.retrieval.ingest.statements import (
    cell_value,
    column_headers,
    column_period,
    find_statement_tables,
    row_unit,
    span_of,
    split_shared_dates,
    statement_records,
    table_scale,
)
from filingqa.retrieval.vocabulary.fiscal import FiscalCalendar, december_calendar

JUNE = FiscalCalendar(company="Widget Corp", fiscal_year_end_month=6, fiscal_year_end_day=30)
RETAIL = FiscalCalendar(company="Mart", fiscal_year_end_month=1)  # 52/53 weeks, ends ~Jan 31

# A 10-K of a company whose fiscal year ends June 30: cover, the three statements (the
# cash-flow statement's columns are bare years under a "Years Ended June 30," title and its
# amounts in thousands), then a note whose table merely mentions the balance sheet.
FILING = "\f".join(
    [
        "FORM 10-K\nFor the fiscal year ended June 30, 2023\nWIDGET CORP",
        """WIDGET CORP
CONSOLIDATED STATEMENTS OF INCOME
(In millions, except per share data)
| | Year Ended June 30, 2023 | Year Ended June 30, 2022 | Year Ended June 30, 2021 |
|---|---|---|---|
| Net sales | $ 1,200 | $ 1,000 | $ 900 |
| Cost of sales | 700 | 600 | 550 |
| Gross profit | 500 | 400 | 350 |
| Selling, general and administrative | 200 | 180 | 170 |
| Restructuring charges | — | 15 | — |
| Operating income | 300 | 205 | 180 |
| Interest expense | (20) | (25) | (30) |
| Income before income taxes | 280 | 180 | 150 |
| Provision for income taxes | 60 | 40 | 30 |
| Net income | $ 220 | $ 140 | $ 120 |
| Earnings per share: | | | |
| Basic | $ 2.20 | $ 1.40 | $ 1.20 |
| Diluted | $ 2.15 | $ 1.38 | $ 1.19 |
| Weighted-average shares outstanding: | | | |
| Basic | 100 | 100 | 100 |
""",
        """WIDGET CORP
CONSOLIDATED BALANCE SHEETS
(In millions)
| | June 30, 2023 | June 30, 2022 |
|---|---|---|
| Current assets: | | |
| Cash and cash equivalents | $ 150 | $ 120 |
| Accounts receivable, net | 210 | 190 |
| Inventories | 330 | 300 |
| Total current assets | 690 | 610 |
| Property, plant and equipment, net | 800 | 760 |
| Total assets | $ 1,490 | $ 1,370 |
| Current liabilities: | | |
| Accounts payable | $ 180 | $ 170 |
| Current portion of long-term debt | 25 | 20 |
| Total current liabilities | 205 | 190 |
| Long-term debt | 400 | 420 |
| Total liabilities | 605 | 610 |
| Total shareholders' equity | 885 | 760 |
| Total liabilities and shareholders' equity | $ 1,490 | $ 1,370 |
""",
        """WIDGET CORP
CONSOLIDATED STATEMENTS OF CASH FLOWS
(In thousands)
Years Ended June 30,
| | 2023 | 2022 | 2021 |
|---|---|---|---|
| Operating activities: | | | |
| Net income | 220,000 | 140,000 | 120,000 |
| Depreciation and amortization | 90,000 | 85,000 | 80,000 |
| Net cash provided by operating activities | 310,000 | 230,000 | 200,000 |
| Investing activities: | | | |
| Purchases of property, plant and equipment | (150,000) | (120,000) | (100,000) |
| Net cash used in investing activities | (150,000) | (120,000) | (100,000) |
| Financing activities: | | | |
| Cash dividends paid | (50,000) | (40,000) | (35,000) |
| Net cash used in financing activities | (130,000) | (90,000) | (95,000) |
""",
        """Note 5. Leases
Amounts recognised in the consolidated balance sheets were as follows:
| | 2023 | 2022 |
|---|---|---|
| Operating lease assets | 40 | 35 |
| Operating lease liabilities | 42 | 37 |
""",
    ]
)
DOCUMENT = Document(doc_id="WIDGET_2023_10K", company="Widget Corp", doc_type="10k")


@pytest.fixture(scope="module")
def records() -> list[StatementRecord]:
    return statement_records(DOCUMENT, text_pages(FILING), JUNE)


def _one(records: list[StatementRecord], concept: str, period: str) -> StatementRecord:
    found = [r for r in records if r.concept == concept and r.period == period]
    assert len(found) == 1, found
    return found[0]


def test_the_three_statements_are_found_and_the_note_is_not() -> None:
    found = find_statement_tables(text_pages(FILING))
    assert [(t.statement, t.page, t.number) for t in found] == [
        ("income", 2, 1),
        ("balance", 3, 1),
        ("cash_flow", 4, 1),
    ]


def test_income_statement_figures_carry_concept_period_scale_and_source(
    records: list[StatementRecord],
) -> None:
    revenue = _one(records, "revenue", "FY2023")
    assert revenue.line_item == "Net sales"
    assert revenue.statement == "income"
    assert (revenue.value, revenue.scale, revenue.unit) == (1200.0, "millions", "USD")
    assert revenue.amount == 1.2e9
    assert (revenue.fiscal_year, revenue.fiscal_quarter, revenue.span) == (2023, None, "year")
    assert revenue.period_end == date(2023, 6, 30)
    assert (revenue.doc_id, revenue.page, revenue.table_id) == (
        "WIDGET_2023_10K",
        2,
        "WIDGET_2023_10K:p2:table1",
    )
    assert _one(records, "cost_of_revenue", "FY2021").value == 550.0
    assert _one(records, "restructuring", "FY2023").value == 0.0
    assert _one(records, "restructuring", "FY2022").value == 15.0


def test_parentheses_are_negative_as_printed(records: list[StatementRecord]) -> None:
    interest = _one(records, "interest_expense", "FY2022")
    assert (interest.value, interest.printed) == (-25.0, "(25)")
    capex = _one(records, "capital_expenditure", "FY2023")
    assert capex.line_item == "Purchases of property, plant and equipment"
    assert (capex.value, capex.scale, capex.amount) == (-150000.0, "thousands", -1.5e8)


def test_per_share_rows_are_dollars_and_share_counts_keep_the_scale(
    records: list[StatementRecord],
) -> None:
    diluted = _one(records, "eps_diluted", "FY2023")
    assert (diluted.value, diluted.unit, diluted.scale) == (2.15, "USD/share", "units")
    assert _one(records, "eps_basic", "FY2021").value == 1.2
    shares = [r for r in records if r.unit == "shares" and r.period == "FY2023"]
    assert [(r.line_item, r.concept, r.value, r.scale) for r in shares] == [
        ("Basic", None, 100.0, "millions")
    ]


def test_balance_sheet_columns_are_instants_at_the_fiscal_year_end(
    records: list[StatementRecord],
) -> None:
    assets = _one(records, "total_assets", "FY2022")
    assert (assets.span, assets.period_end, assets.value) == ("instant", date(2022, 6, 30), 1370.0)
    assert _one(records, "total_current_liabilities", "FY2023").value == 205.0
    assert _one(records, "short_term_debt", "FY2023").value == 25.0
    assert _one(records, "total_equity", "FY2023").value == 885.0
    assert _one(records, "accounts_receivable", "FY2023").section == "Current assets:"


def test_bare_year_columns_take_month_and_day_from_the_title(
    records: list[StatementRecord],
) -> None:
    cash = _one(records, "operating_cash_flow", "FY2021")
    assert (cash.period_end, cash.value) == (date(2021, 6, 30), 200000.0)
    assert _one(records, "dividends_paid", "FY2023").value == -50000.0


def test_earlier_columns_are_comparatives_of_the_filing(records: list[StatementRecord]) -> None:
    comparative = {r.period: r.comparative for r in records if r.concept == "net_income"}
    assert comparative == {"FY2023": False, "FY2022": True, "FY2021": True}
    assert {r.doc_id for r in records} == {"WIDGET_2023_10K"}


def test_a_concept_printed_twice_in_a_table_is_carried_by_its_total_row() -> None:
    pages = text_pages(
        """CONSOLIDATED STATEMENTS OF OPERATIONS
(In millions)
| | 2023 | 2022 |
|---|---|---|
| Revenues: | | |
| Product revenue | 80 | 70 |
| Revenue | 20 | 15 |
| Total revenues | 100 | 85 |
| Net income | 10 | 9 |
"""
    )
    records = statement_records(Document(doc_id="D", doc_type="10k"), pages)
    revenue = [(r.line_item, r.value) for r in records if r.concept == "revenue"]
    assert revenue == [("Total revenues", 100.0), ("Total revenues", 85.0)]


def test_cost_of_revenue_printed_only_in_parts_is_their_sum() -> None:
    pages = text_pages(
        """CONSOLIDATED STATEMENTS OF OPERATIONS
(Dollars in millions)
| | 2022 | 2021 |
|---|---|---|
| Sales of products | 55,893 | 51,386 |
| Sales of services | 10,715 | 10,900 |
| Total revenues | 66,608 | 62,286 |
| Cost of products | (53,969) | (51,187) |
| Cost of services | (9,109) | (8,700) |
| Total costs and expenses | (63,078) | (59,887) |
| Net loss | (5,053) | (4,290) |
"""
    )
    records = statement_records(Document(doc_id="B", doc_type="10k"), pages)
    cost = [
        (r.line_item, r.period, r.value, r.printed)
        for r in records
        if r.concept == "cost_of_revenue"
    ]
    assert cost == [
        ("Cost of products + Cost of services", "FY2022", -63078.0, "(63,078)"),
        ("Cost of products + Cost of services", "FY2021", -59887.0, "(59,887)"),
    ]
    parts = {r.line_item for r in records if r.concept is None}
    assert {"Cost of products", "Cost of services"} <= parts


def test_cost_of_revenue_parts_with_a_total_row_keep_the_total() -> None:
    pages = text_pages(
        """CONSOLIDATED STATEMENTS OF OPERATIONS
(In millions)
| | 2023 | 2022 |
|---|---|---|
| Total revenue | 500 | 400 |
| Cost of products | 100 | 90 |
| Cost of services | 50 | 40 |
| Total cost of revenue | 150 | 130 |
| Net income | 60 | 50 |
"""
    )
    records = statement_records(Document(doc_id="D", doc_type="10k"), pages)
    cost = [(r.line_item, r.value) for r in records if r.concept == "cost_of_revenue"]
    assert cost == [("Total cost of revenue", 150.0), ("Total cost of revenue", 130.0)]


def test_an_unlabelled_subtotal_is_its_sections_total() -> None:
    table = Table(
        id="t1",
        caption="CONSOLIDATED STATEMENTS OF OPERATIONS (In thousands)",
        rows=[
            ["", "Year Ended December 31, 2020", "Year Ended December 31, 2019"],
            ["Revenues", "", ""],
            ["Casino", "2,871", "6,517"],
            ["Rooms", "830", "2,322"],
            ["", "3,701", "8,839"],
            ["", "99", "99"],
            ["Operating income (loss)", "(642)", "3,940"],
            ["Net income (loss)", "(1,032)", "2,049"],
        ],
    )
    pages = [PageContent(number=1, blocks=[table])]
    records = statement_records(Document(doc_id="M", doc_type="10k"), pages)
    revenue = [(r.line_item, r.section, r.value) for r in records if r.concept == "revenue"]
    assert revenue == [("", "Revenues", 3701.0), ("", "Revenues", 8839.0)]
    assert 99.0 not in {r.value for r in records}
    assert {r.period for r in records} == {"FY2020", "FY2019"}


def test_records_are_found_through_the_book(records: list[StatementRecord]) -> None:
    book = StatementBook(records)
    figure = book.figure("WIDGET CORP", "total_current_assets", "FY2023")
    assert figure is not None and figure.value == 690.0


def test_an_html_statement_reads_like_a_pdf_one() -> None:
    html = """<html><body>
<p>CONSOLIDATED STATEMENTS OF OPERATIONS</p>
<p>(in thousands, except per share amounts)</p>
<table>
<tr><td></td><td colspan="3">Year Ended December 31,</td></tr>
<tr><td></td><td colspan="2">2022</td><td>2021</td></tr>
<tr><td>Total revenues</td><td>$</td><td>5,000</td><td>4,000</td></tr>
<tr><td>Net loss</td><td>$</td><td>(300</td><td>(250)</td></tr>
<tr><td>Net loss per share, basic and diluted</td><td>$</td><td>(0.30)</td><td>(0.25)</td></tr>
</table></body></html>"""
    document = Document(doc_id="H_2022_10K", company="H", doc_type="10k")
    records = statement_records(document, html_pages(html), december_calendar("H"))
    figures = {(r.concept, r.period): (r.value, r.scale) for r in records if r.concept}
    assert figures[("revenue", "FY2022")] == (5000.0, "thousands")
    assert figures[("net_income", "FY2021")] == (-250.0, "thousands")
    per_share = [r for r in records if r.unit == "USD/share" and r.period == "FY2022"]
    assert [(r.value, r.scale) for r in per_share] == [(-0.3, "units")]


# --- column headers -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "context", "statement", "annual", "label", "end"),
    [
        ("Three Months Ended July 29, 2023", "", "income", False, "Q2 FY2024", date(2023, 7, 29)),
        ("Six Months Ended July 29, 2023", "", "cash_flow", False, "H1 FY2024", date(2023, 7, 29)),
        ("July 29, 2023", "", "balance", False, "Q2 FY2024", date(2023, 7, 29)),
        ("January 28, 2023", "", "balance", False, "FY2023", date(2023, 1, 28)),
        ("2023", "Fiscal Years Ended", "income", True, "FY2023", date(2023, 1, 31)),
        ("July 29, 2023", "Three Months Ended", "income", False, "Q2 FY2024", date(2023, 7, 29)),
        ("Nine Months Ended Oct. 28, 2023", "", "income", False, "9M FY2024", date(2023, 10, 28)),
    ],
)
def test_column_headers_become_fiscal_periods_of_a_52_53_week_retailer(
    header: str, context: str, statement: str, annual: bool, label: str, end: date
) -> None:
    period = column_period(header, context, statement, RETAIL, annual)  # type: ignore[arg-type]
    assert period is not None
    assert (period.label, period.end) == (label, end)


def test_quarter_names_and_numeric_dates_are_read() -> None:
    december = december_calendar("Co")
    fourth = column_period("Q4 2022", "", "income", december, annual=False)
    assert fourth is not None and (fourth.label, fourth.end) == ("Q4 FY2022", date(2022, 12, 31))
    weeks = column_period("12 Weeks Ended 3/25/2023", "", "income", december, annual=False)
    assert weeks is not None and (weeks.label, weeks.span) == ("Q1 FY2023", "quarter")
    assert column_period("% Change", "", "income", december, annual=True) is None


def test_span_words() -> None:
    assert span_of("Thirteen Weeks Ended") == "quarter"
    assert span_of("26 weeks ended") == "half"
    assert span_of("Fiscal Year Ended") == "year"
    assert span_of("Three Months Ended / Six Months Ended") is None
    assert span_of("(unaudited)") is None


def test_month_days_spread_over_every_column_are_given_back_to_theirs() -> None:
    headers = ["January 28, January 29, 2023", "January 28, January 29, 2022"]
    assert split_shared_dates(headers) == ["January 28, 2023", "January 29, 2022"]
    own = ["June 30, 2023", "June 30, 2022"]
    assert split_shared_dates(own) == own


def test_header_rows_join_per_column() -> None:
    table = Table(
        id="t1",
        rows=[
            ["", "Three Months Ended", "Three Months Ended"],
            ["", "June 30, 2023", "June 30, 2022"],
            ["Revenue", "10", "9"],
        ],
    )
    assert column_headers(table) == [
        "Three Months Ended June 30, 2023",
        "Three Months Ended June 30, 2022",
    ]


# --- cells, scale, units ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cell", "value"),
    [
        ("(1,234)", -1234.0),
        ("$ (1,234)", -1234.0),
        ("$12.5", 12.5),
        ("—", 0.0),
        ("$ -", 0.0),
        ("1,234 (a)", 1234.0),
        ("12%", None),
        ("n/m", None),
    ],
)
def test_cell_values(cell: str, value: float | None) -> None:
    assert cell_value(cell) == value


def test_scale_from_the_title() -> None:
    assert table_scale("(In millions, except per share data)") == "millions"
    assert table_scale("(Dollars in Thousands)") == "thousands"
    assert table_scale("CONSOLIDATED BALANCE SHEETS") is None


def test_row_units() -> None:
    assert row_unit("Diluted", "Earnings per share:", "millions") == ("USD/share", "units")
    assert row_unit("Diluted", "Weighted-average shares:", "millions") == ("shares", "millions")
    assert row_unit("Basic", "Shares used in calculation (000's)", "millions") == (
        "shares",
        "thousands",
    )
    assert row_unit("Dividends declared per share", None, "millions") == ("USD/share", "units")
    assert row_unit("Total assets", None, "millions") == ("USD", "millions")
