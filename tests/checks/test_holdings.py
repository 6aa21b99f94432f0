"""The holdings rule: which companies and periods a question asks about, and whether an
indexed filing reports them."""

from __future__ import annotations

import pytest

from filingqa.checks.holdings import (
    CompanyScope,
    NotIndexed,
    ScopedSearch,
    check_holdings,
    describe_filing,
    reports,
)
from filingqa.records import Document
from filingqa.records.search_handle import HeldCompany, Holdings, holdings_of

from ..kit.passages import CASH_FLOW, MDNA, OTHER, ListSearch, held


def doc(doc_id: str, form: str, year: int | None, quarter: int | None = None) -> Document:
    return Document.model_validate(
        {"doc_id": doc_id, "doc_type": form, "fiscal_year": year, "fiscal_quarter": quarter}
    )


MMM = HeldCompany(
    name="3M",
    aliases=["MMM", "3M Company"],
    documents=[doc("3M_2018_10K", "10k", 2018), doc("3M_2022_10K", "10k", 2022)],
)
BESTBUY = HeldCompany(
    name="Best Buy",
    aliases=["BBY", "BESTBUY"],
    year_end_month=1,
    year_end_day=None,
    documents=[doc("BESTBUY_2024Q2_10Q", "10q", 2024, 2)],
)
ULTA = HeldCompany(
    name="Ulta Beauty",
    aliases=["ULTA"],
    year_end_month=1,
    year_end_day=None,
    naming="start_year",
    documents=[doc("ULTABEAUTY_2023_10K", "10k", 2022)],  # "fiscal 2022": ended Jan 2023
)
HOLDINGS = Holdings(companies=[MMM, BESTBUY, ULTA])


def scoped(question: str, company: str | None = None) -> list[str]:
    ruling = check_holdings(question, HOLDINGS, company)
    assert isinstance(ruling, CompanyScope), ruling
    return [c.name for c in ruling.companies]


def refused(question: str, company: str | None = None) -> NotIndexed:
    ruling = check_holdings(question, HOLDINGS, company)
    assert isinstance(ruling, NotIndexed), ruling
    return ruling


@pytest.mark.parametrize(
    ("question", "company"),
    [
        ("Based on the statement of income, what is AES's FY2022 return on assets (ROA)?", "AES"),
        ("What is the FY2022 unadjusted EBITDA less capex for PayPal? Answer in USD.", "PayPal"),
        ("Does AMD have a reasonably healthy liquidity profile for FY22?", "AMD"),
        ("Is Coca-Cola a capital-intensive business based on FY2022 data?", "Coca-Cola"),
        ("Roughly how many times has AES Corporation sold its inventory in FY2022?", "AES"),
        ("In which AMD reporting segment did operating income change the most?", "AMD"),
        ("What are major acquisitions that AMD has done in FY2022?", "AMD"),
        ("What is the FY2022 return on assets for The AES Corporation?", "AES"),
    ],
)
def test_a_company_the_index_does_not_hold_is_named_and_refused(
    question: str, company: str
) -> None:
    ruling = refused(question)
    assert ruling.reason == f"the index holds no filings of {company}"
    assert ruling.answer == (
        f"Not in the index: no filing of {company} is indexed "
        "(the index holds filings of 3M, Best Buy, Ulta Beauty)."
    )


@pytest.mark.parametrize(
    "question",
    [
        "What was the change in revenue from 2018 to 2019?",
        "What was the percentage change in Cloud Services revenue?",
        "Is Net Income higher than operating income in FY2020?",
        "What percentage of total revenue came from North America in 2017?",
        "What is the target leverage ratio of the Company?",
        "Using the Statement of Cash Flows, what was capex in FY2022?",
        "what was the total of net sales in 2008 for jpm?",  # uncapitalised: not checked
    ],
)
def test_a_question_naming_no_company_is_left_to_the_program(question: str) -> None:
    assert check_holdings(question, HOLDINGS) is None


def test_companies_are_found_by_name_ticker_and_alias_in_order_of_mention() -> None:
    assert scoped("Is 3M a capital-intensive business based on FY2022 data?") == ["3M"]
    assert scoped("What was MMM's revenue in FY2021?") == ["3M"]
    assert scoped("Compare BBY and 3M Company on revenue") == ["Best Buy", "3M"]
    assert scoped("What is Bestbuy's inventory?") == ["Best Buy"]
    assert scoped("total revenue", company="Best Buy Co., Inc.") == ["Best Buy"]
    assert scoped("total revenue", company="Ulta") == ["Ulta Beauty"]  # a name's start


def test_a_period_no_filing_reports_is_refused_naming_what_is_indexed() -> None:
    ruling = refused("Does 3M have a healthy quick ratio for Q2 of FY2023?")
    assert ruling.reason == "no indexed filing of 3M reports Q2 of FY2023"
    assert ruling.answer == (
        "Not in the index: no indexed filing of 3M reports Q2 of FY2023. Indexed for 3M: "
        "3M_2018_10K (10-K for FY2018; reports FY2016–FY2018); "
        "3M_2022_10K (10-K for FY2022; reports FY2020–FY2022)."
    )
    assert "FY2019" in refused("What was 3M's revenue in FY2019?").answer
    assert isinstance(check_holdings("total revenue in FY2030", HOLDINGS, "3M"), NotIndexed)


def test_comparative_columns_count_as_reported() -> None:
    assert scoped("What was 3M's revenue in FY2020?") == ["3M"]  # the FY2022 10-K's 3rd year
    assert scoped("What were 3M's total assets at the end of Q4 2021?") == ["3M"]
    assert scoped("What is Best Buy's Q2 FY2023 revenue?") == ["Best Buy"]  # prior-year quarter
    assert scoped("What was Best Buy's revenue in the first half of FY2023?") == ["Best Buy"]
    assert scoped("What were Best Buy's FY2023 total assets?") == ["Best Buy"]  # year end
    assert isinstance(check_holdings("Best Buy's Q1 FY2024 revenue?", HOLDINGS), NotIndexed)
    assert isinstance(check_holdings("Best Buy's Q3 FY2024 revenue?", HOLDINGS), NotIndexed)


def test_a_year_named_the_other_way_still_finds_its_filing() -> None:
    assert scoped("What was Ulta Beauty's FY2023 revenue?") == ["Ulta Beauty"]  # dataset naming
    assert scoped("What was Ulta Beauty's fiscal 2022 revenue?") == ["Ulta Beauty"]


def test_one_reported_period_is_enough_and_later_periods_may_be_forecast() -> None:
    assert scoped("How did the 2017 Tax Act change 3M's FY2022 tax rate?") == ["3M"]
    assert scoped("What FY2024 revenue outlook did 3M give?") == ["3M"]
    assert scoped("When are 3M's notes due 2031?") == ["3M"]


def test_of_several_companies_only_those_reporting_the_period_are_kept() -> None:
    assert scoped("Compare 3M and Best Buy on FY2021 revenue") == ["3M"]


def test_what_a_filing_reports() -> None:
    annual, quarterly = doc("A_2024_10K", "10k", 2024), doc("A_2024Q2_10Q", "10q", 2024, 2)
    assert [reports(annual, (year, (1, 2, 3, 4))) for year in (2021, 2022, 2024, 2025)] == [
        False,
        True,
        True,
        False,
    ]
    assert reports(annual, (2023, (4,))) and not reports(annual, (2024, (2,)))
    assert reports(quarterly, (2023, (2,))) and reports(quarterly, (2024, (1, 2)))
    assert not reports(quarterly, (2024, (1,))) and not reports(quarterly, (2022, (1, 2, 3, 4)))
    assert reports(doc("A_2023_8K", "8k", 2023), (2022, (3,)))
    assert reports(doc("A_10K", "10k", None), (1999, (1, 2, 3, 4)))  # period not known


def test_filings_are_described_by_form_and_the_periods_they_report() -> None:
    assert describe_filing(doc("B_2024Q2_10Q", "10q", 2024, 2)) == (
        "B_2024Q2_10Q (10-Q for Q2 FY2024; reports Q2 and the year to date of FY2024 and FY2023)"
    )
    assert describe_filing(doc("B_2023_8K", "8k", 2023)) == "B_2023_8K (8-K of FY2023)"
    assert describe_filing(doc("B_10K", "10k", None)) == "B_10K (10-K, period not known)"


def test_an_index_naming_no_company_skips_the_rule() -> None:
    assert check_holdings("What is AES's FY2022 ROA?", Holdings(companies=[])) is None


def test_the_scoped_search_names_its_company_and_drops_other_filings() -> None:
    inner = ListSearch([MDNA, CASH_FLOW, OTHER], holdings=held("ACME_2024_10K", "BETA_2024_10K"))
    ruling = check_holdings("What was Acme's operating cash flow in 2024?", inner.held)
    assert isinstance(ruling, CompanyScope)
    dropped: list[list[str]] = []
    search = ScopedSearch(inner, ruling, dropped.append)
    found = search.search("operating cash flow", k=5)
    assert [p.id for p in found] == [CASH_FLOW.id]
    assert dropped == [[OTHER.id]]
    assert inner.calls[-1]["company"] == "Acme"
    assert holdings_of(search) == inner.held  # the rest is the wrapped handle's


def test_a_handle_without_holdings_cannot_tell() -> None:
    class ThirdParty:
        def search(self, query: str, *, k: int, company=None, period=None) -> list:
            return []

    assert holdings_of(ThirdParty()) is None
    assert holdings_of(ListSearch()) is None
