"""Document metadata: cover pages, doc names, calendar inference, the store and its lookups."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from filingqa.retrieval.index.statement_store import record_periods
from filingqa.retrieval.ingest.cover_page import parse_cover_page, read_cover_texts
from filingqa.retrieval.ingest.metadata import (
    DocumentInfo,
    PeriodObservation,
    build_records,
    infer_calendar,
    load_document_info,
    parse_doc_name,
)
from filingqa.retrieval.ingest.metadata_store import MetadataStore
from filingqa.retrieval.vocabulary.companies import normalise_company

# --- hand-written cover pages -------------------------------------------------------------

RETAILER_10K = """UNITED STATES
SECURITIES AND EXCHANGE COMMISSION
FORM 10-K
\u2612 ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended January\u00a028, 2023
OR
\u2610 TRANSITION REPORT PURSUANT TO SECTION 13 OR 15(d)
For the transition period from ______ to ______
Commission file number 1-1234
______________________ WIDGET MART CO., INC.
(Exact name of registrant as specified in its charter)
Minnesota 41-0000000
Securities registered pursuant to Section 12(b) of the Act:
Title of each class Trading Symbol(s) Name of each exchange on which registered
Common Stock, $0.10 par value per share WMC New York Stock Exchange
WIDGET MART FISCAL 2023 FORM 10-K TABLE OF CONTENTS
"""

RETAILER_10Q = """FORM 10-Q
QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the quarterly period ended July 29, 2023
Commission File Number: 1-1234
WIDGET MART CO., INC.
(Exact name of registrant as specified in its charter)
Trading Symbol Name of exchange on which registered
Common Stock WMC New York Stock Exchange
Our gross profit rate increased in the second quarter of fiscal 2024.
"""

BANK_10Q_SPLIT_LAYOUT = """FORM 10-Q
Quarterly report pursuant to Section 13 or 15(d) of the Securities Exchange Act of 1934
For the quarterly period ended Commission file
March 31, 2021 number 1-9999
Example Bancorp & Co.
(Exact name of registrant as specified in its charter)
Title of each class Trading Symbol(s) Name of each exchange on which registered
Common stock EXB The New York Stock Exchange
"""

ONE_WORD_PER_LINE = re.sub(
    " ",
    "\n",
    "FORM 10-K For the fiscal year ended December 31, 2016 Commission File Number 001-11111 "
    "GADGET, INC. (Exact name of registrant as specified in its charter)",
)

NO_EXACT_NAME_LINE = """FORM 10-K
For the fiscal year ended December 31, 2022
Commission file number 1-5555
7Z COMPANY
State of Incorporation: Delaware
"""

EIGHT_K = """FORM 8-K
CURRENT REPORT
Date of Report (Date of earliest event reported): July 1, 2022 (June 30, 2022)
GADGET PLC
(Exact name of registrant as specified in its charter)
Jersey 001-22222 98-0000000
Trading Symbol(s) Name of each exchange on which registered
Ordinary Shares GDGT New York Stock Exchange
"""

EARNINGS_RELEASE = """March 9, 2023
Beauty Barn Announces Fourth Quarter Fiscal 2022 Results
BOLINGBROOK, Ill.--(BUSINESS WIRE)-- Beauty Barn, Inc. (NASDAQ: BBRN) today announced
financial results for the thirteen-week period ("fourth quarter") and fifty-two-week period
("fiscal year") ended January 28, 2023 compared to the same periods ended January 29, 2022.
"""


def test_cover_of_a_10k() -> None:
    cover = parse_cover_page(RETAILER_10K)
    assert cover.form == "10k"
    assert cover.period_end == date(2023, 1, 28)
    assert cover.registrant == "WIDGET MART CO., INC."
    assert cover.ticker == "WMC"
    assert cover.commission_file_number == "1-1234"
    assert cover.fiscal_year_label == 2023


def test_cover_of_a_10q() -> None:
    cover = parse_cover_page(RETAILER_10Q)
    assert (cover.form, cover.period_end) == ("10q", date(2023, 7, 29))
    assert cover.fiscal_year_label == 2024


def test_cover_with_the_date_split_from_its_label() -> None:
    cover = parse_cover_page(BANK_10Q_SPLIT_LAYOUT)
    assert cover.period_end == date(2021, 3, 31)
    assert cover.registrant == "Example Bancorp & Co."
    assert cover.ticker == "EXB"
    assert cover.commission_file_number == "1-9999"


def test_cover_with_one_word_per_line() -> None:
    cover = parse_cover_page(ONE_WORD_PER_LINE)
    assert cover.period_end == date(2016, 12, 31)
    assert cover.registrant == "GADGET, INC."
    assert cover.ticker is None


def test_cover_without_an_exact_name_caption() -> None:
    assert parse_cover_page(NO_EXACT_NAME_LINE).registrant == "7Z COMPANY"


def test_cover_of_an_8k() -> None:
    cover = parse_cover_page(EIGHT_K)
    assert (cover.form, cover.report_date, cover.period_end) == ("8k", date(2022, 7, 1), None)
    assert (cover.registrant, cover.ticker) == ("GADGET PLC", "GDGT")


def test_first_page_of_an_earnings_release() -> None:
    cover = parse_cover_page(EARNINGS_RELEASE)
    assert cover.period_end == date(2023, 1, 28)
    assert cover.ticker == "BBRN"
    assert cover.fiscal_year_label == 2022


# --- doc names ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "key", "year", "quarter", "doc_type", "dated"),
    [
        ("ACME_2018_10K", "ACME", 2018, None, "10k", None),
        ("WIDGETMART_2024Q2_10Q", "WIDGETMART", 2024, 2, "10q", None),
        ("GADGET_2022_8K_dated-2022-07-01", "GADGET", 2022, None, "8k", date(2022, 7, 1)),
        ("GADGET_2022_8K_dated_2022-08-19", "GADGET", 2022, None, "8k", date(2022, 8, 19)),
        ("SMITH_JONES_2022Q4_EARNINGS", "SMITH_JONES", 2022, 4, "earnings", None),
        ("P_Q_2023_EARNINGS-dated-2023-06-01", "P_Q", 2023, None, "earnings", date(2023, 6, 1)),
        ("BURGERS_8K_dated-2023-01-06", "BURGERS", None, None, "8k", date(2023, 1, 6)),
        ("Acme_2023Q2_10Q", "Acme", 2023, 2, "10q", None),
        ("CHIPS_2022_annualreport", "CHIPS", 2022, None, "annual_report", None),
    ],
)
def test_parse_doc_name(
    name: str, key: str, year: int | None, quarter: int | None, doc_type: str, dated: date | None
) -> None:
    info = parse_doc_name(name)
    assert info is not None
    assert (info.company_key, info.year, info.quarter, info.doc_type, info.dated) == (
        key,
        year,
        quarter,
        doc_type,
        dated,
    )


def test_parse_doc_name_rejects_other_names() -> None:
    assert parse_doc_name("quarterly results.pdf") is None


def test_load_document_info_keeps_one_copy_of_a_duplicate(tmp_path: Path) -> None:
    path = tmp_path / "info.jsonl"
    line = '{"doc_name": "ACME_2023_10K", "company": "Acme", "doc_type": "10k", "doc_period": 2023}'
    path.write_text(f"{line}\n{line}\n\n", encoding="utf-8")
    assert load_document_info(path) == [
        DocumentInfo(doc_name="ACME_2023_10K", company="Acme", doc_type="10k", doc_period=2023)
    ]


# --- calendar inference -------------------------------------------------------------------


def test_calendar_from_52_53_week_annual_period_ends() -> None:
    cal = infer_calendar(
        "Widget Mart",
        [
            PeriodObservation(period_end=date(2017, 1, 28), annual=True, fiscal_label=2017),
            PeriodObservation(period_end=date(2019, 2, 2), annual=True),
        ],
    )
    assert (cal.fiscal_year_end_month, cal.fiscal_year_end_day, cal.naming) == (1, None, "end_year")
    assert "2 annual" in (cal.basis or "")


def test_calendar_from_fixed_month_end_years() -> None:
    cal = infer_calendar(
        "Shoes",
        [PeriodObservation(period_end=date(y, 5, 31), annual=True) for y in (2018, 2019, 2021)],
    )
    assert (cal.fiscal_year_end_month, cal.fiscal_year_end_day) == (5, 31)


def test_calendar_from_a_quarterly_filing_and_its_quarter_number() -> None:
    cal = infer_calendar(
        "Widget Mart", [PeriodObservation(period_end=date(2023, 7, 29), annual=False, quarter=2)]
    )
    assert (cal.fiscal_year_end_month, cal.fiscal_year_end_day) == (1, None)


def test_quarters_ending_on_weekdays_make_the_day_approximate() -> None:
    cal = infer_calendar(
        "Pharma",
        [
            PeriodObservation(period_end=date(2021, 12, 31), annual=True),
            PeriodObservation(period_end=date(2023, 7, 2), annual=False, quarter=2),
        ],
    )
    assert (cal.fiscal_year_end_month, cal.fiscal_year_end_day) == (12, None)


def test_start_year_naming_from_a_fiscal_label() -> None:
    obs = PeriodObservation(
        period_end=date(2023, 1, 28), annual=False, quarter=4, fiscal_label=2022
    )
    assert infer_calendar("Beauty Barn", [obs]).naming == "start_year"


def test_no_dated_filing_gives_a_default_calendar_year() -> None:
    cal = infer_calendar("Unknown", [])
    assert (cal.fiscal_year_end_month, cal.fiscal_year_end_day) == (12, 31)
    assert (cal.basis or "").startswith("default")


# --- building, matching, resolving --------------------------------------------------------

INFOS = [
    DocumentInfo(doc_name="WIDGETMART_2022_10K", company="Widget Mart", doc_type="10k"),
    DocumentInfo(doc_name="WIDGETMART_2023_10K", company="Widget Mart", doc_type="10k"),
    DocumentInfo(doc_name="WIDGETMART_2024Q2_10Q", company="Widget Mart", doc_type="10q"),
    DocumentInfo(doc_name="WIDGETMART_2023_8K_dated-2023-04-24", company="Widget Mart"),
    DocumentInfo(doc_name="BEAUTYBARN_2023_10K", company="Beauty Barn", doc_type="10k"),
    DocumentInfo(doc_name="BEAUTYBARN_2023Q4_EARNINGS", company="Beauty Barn"),
    DocumentInfo(doc_name="7Z_2022_10K", company="7Z", doc_type="10k"),
    DocumentInfo(doc_name="AMERICANWIDGETS_2022_10K", company="American Widgets"),
    DocumentInfo(doc_name="AMERICANGADGETS_2022_10K", company="American Gadgets"),
]
COVERS = {
    "WIDGETMART_2023_10K": RETAILER_10K,
    "WIDGETMART_2024Q2_10Q": RETAILER_10Q,
    "BEAUTYBARN_2023Q4_EARNINGS": EARNINGS_RELEASE,
    "7Z_2022_10K": NO_EXACT_NAME_LINE
    + "Trading Symbol(s) Common Stock ZZZ New York Stock Exchange",
}


@pytest.fixture
def store() -> MetadataStore:
    records, calendars = build_records(INFOS, COVERS, {"WIDGETMART_2023_10K": "/pdfs/w.pdf"})
    return MetadataStore(records, calendars)


def test_cover_dates_win_and_names_fill_in(store: MetadataStore) -> None:
    records = {r.document.doc_id: r for r in store.records()}
    q2 = records["WIDGETMART_2024Q2_10Q"]
    assert q2.period_source == "cover"
    assert (q2.document.period_end, q2.document.fiscal_year, q2.document.fiscal_quarter) == (
        date(2023, 7, 29),
        2024,
        2,
    )
    older = records["WIDGETMART_2022_10K"]
    assert older.period_source == "name"
    assert (older.document.period_end, older.document.fiscal_year) == (date(2022, 1, 31), 2022)
    assert older.document.fiscal_quarter is None
    eight_k = records["WIDGETMART_2023_8K_dated-2023-04-24"].document
    assert (eight_k.doc_type, eight_k.period_end, eight_k.fiscal_year) == (
        "8k",
        date(2023, 4, 24),
        2024,
    )


def test_sources_and_tickers(store: MetadataStore) -> None:
    assert store.document("WIDGETMART_2023_10K").source == "/pdfs/w.pdf"
    assert all(d.ticker == "WMC" for d in store.documents("Widget Mart"))
    assert store.document("missing") is None


def test_calendar_inferred_from_the_covers(store: MetadataStore) -> None:
    cal = store.calendar("Widget Mart")
    assert cal is not None
    assert (cal.fiscal_year_end_month, cal.fiscal_year_end_day, cal.naming) == (1, None, "end_year")
    assert store.calendar("Beauty Barn").naming == "start_year"
    assert store.calendar("American Widgets").basis.startswith("default")


@pytest.mark.parametrize(
    ("query", "company"),
    [
        ("Widget Mart", "Widget Mart"),
        ("WIDGETMART", "Widget Mart"),
        ("Widget Mart Co., Inc.", "Widget Mart"),
        ("wmc", "Widget Mart"),
        ("7Z", "7Z"),
        ("7Z Company", "7Z"),
        ("ZZZ", "7Z"),
        ("Beauty", "Beauty Barn"),
        ("American", None),
        ("Nobody Inc.", None),
    ],
)
def test_company_matching(store: MetadataStore, query: str, company: str | None) -> None:
    assert store.company(query) == company


def test_normalise_company() -> None:
    assert normalise_company("Best Buy Co., Inc.") == normalise_company("BESTBUY") == "bestbuy"
    assert normalise_company("Johnson & Johnson") == normalise_company("JOHNSON_JOHNSON")
    assert normalise_company("McDonald's Corporation") == "mcdonalds"
    assert normalise_company("The Company") == "thecompany"


def test_resolve_a_quarter(store: MetadataStore) -> None:
    (found,) = store.resolve("Widget Mart", "Q2 FY2024")
    assert (found.span.fiscal_year, found.span.quarters) == (2024, (2,))
    assert (found.span.start, found.span.end) == (date(2023, 5, 1), date(2023, 7, 31))
    assert found.doc_ids == ["WIDGETMART_2024Q2_10Q"]


def test_resolve_a_year_puts_the_annual_report_first(store: MetadataStore) -> None:
    (found,) = store.resolve("WMC", "FY2024")
    assert found.doc_ids == ["WIDGETMART_2024Q2_10Q", "WIDGETMART_2023_8K_dated-2023-04-24"]
    (older,) = store.resolve("WMC", "fiscal 2023")
    assert older.doc_ids == ["WIDGETMART_2023_10K"]


def test_resolve_several_periods_and_unknowns(store: MetadataStore) -> None:
    found = store.resolve("Widget Mart", "between FY2023 and Q2 of FY2024")
    assert [r.doc_ids[0] for r in found] == ["WIDGETMART_2023_10K", "WIDGETMART_2024Q2_10Q"]
    assert store.resolve("Nobody", "FY2023") == []
    assert store.resolve("Widget Mart", "no period") == []


def test_resolve_reads_a_start_year_company_by_end_year_when_only_that_fits(
    store: MetadataStore,
) -> None:
    (found,) = store.resolve("Beauty Barn", "FY2023")
    assert found.naming == "end_year"
    assert found.doc_ids == ["BEAUTYBARN_2023_10K", "BEAUTYBARN_2023Q4_EARNINGS"]
    assert store.document("BEAUTYBARN_2023Q4_EARNINGS").fiscal_year == 2022


def test_record_labels_keep_periods_named_apart_apart(store: MetadataStore) -> None:
    """One year read by the other naming is the filing that fits it; two years named
    together are two years, each read by the company's own naming."""
    assert record_periods(store, "Beauty Barn", ["FY2023"]) == ["FY2022"]
    assert record_periods(store, "Beauty Barn", ["FY2022", "FY2023"]) == ["FY2022", "FY2023"]


def test_store_round_trip(store: MetadataStore, tmp_path: Path) -> None:
    path = store.save(tmp_path / "meta")
    assert path.name == "metadata.json"
    loaded = MetadataStore.load(tmp_path / "meta")
    assert loaded.records() == store.records()
    assert loaded.calendar("Widget Mart") == store.calendar("Widget Mart")
    assert loaded.resolve("WMC", "Q2 FY2024") == store.resolve("WMC", "Q2 FY2024")


def test_read_cover_texts_uses_the_given_reader(tmp_path: Path) -> None:
    (tmp_path / "ACME_2023_10K.pdf").write_bytes(b"%PDF-")
    texts = read_cover_texts(tmp_path, ["ACME_2023_10K", "ACME_2022_10K"], reader=lambda p: p.stem)
    assert texts == {"ACME_2023_10K": "ACME_2023_10K"}


@pytest.mark.data
def test_best_buy_from_the_shared_data(shared_data_dir: Path) -> None:
    bench = shared_data_dir / "financebench"
    infos = [
        i
        for i in load_document_info(bench / "financebench_document_information.jsonl")
        if i.company == "Best Buy"
    ]
    covers = read_cover_texts(bench / "pdfs", [i.doc_name for i in infos])
    store = MetadataStore(*build_records(infos, covers))
    cal = store.calendar("Best Buy Co., Inc.")
    assert (cal.fiscal_year_end_month, cal.fiscal_year_end_day, cal.naming) == (1, None, "end_year")
    assert store.document("BESTBUY_2024Q2_10Q").period_end == date(2023, 7, 29)
    (found,) = store.resolve("BBY", "Q2 FY2024")
    assert found.doc_ids[0] == "BESTBUY_2024Q2_10Q"
