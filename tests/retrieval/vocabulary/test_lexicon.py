"""The finance lexicon: metric synonyms, overlap, periods, granularity, company mentions."""

from __future__ import annotations

import pytest

from filingqa.retrieval.vocabulary import lexicon


@pytest.mark.parametrize(
    ("text", "metric"),
    [
        ("Net sales increased 4% to $1.2 billion", "revenue"),
        ("Total revenues were flat", "revenue"),
        ("Purchases of property, plant and equipment (1,577)", "capex"),
        ("What was 3M's FY2018 capital expenditure?", "capex"),
        ("Diluted earnings per share of $2.10", "eps"),
        ("Income from operations rose", "operating_income"),
        ("free cash flow conversion", "free_cash_flow"),
        ("Working capital at year end", "working_capital"),
    ],
)
def test_metric_terms_map_filing_synonyms_to_one_metric(text: str, metric: str) -> None:
    assert metric in lexicon.metric_terms(text)


def test_metric_terms_need_whole_words() -> None:
    assert lexicon.metric_terms("The salesforce grew and epsilon decreased") == frozenset()


def test_metric_overlap_is_the_share_of_query_metrics_the_passage_names() -> None:
    query = "What were capex and net sales in FY2022?"
    assert lexicon.metric_overlap(query, "Purchases of property and equipment: 120") == 0.5
    passage = "Total revenues 900; capital expenditures 120"
    assert lexicon.metric_overlap(query, passage) == 1.0
    assert lexicon.metric_overlap(query, "Goodwill impairment") == 0.0
    assert lexicon.metric_overlap("How many employees?", "Net sales 900") == 0.0


def test_years_reads_bare_and_fiscal_years_but_not_amounts() -> None:
    assert lexicon.years("fiscal 2023 and FY22 compared with 2021") == {2021, 2022, 2023}
    assert lexicon.years("revenue of $2,019.5 million and 2019.7 units") == frozenset()
    assert lexicon.years("the year ended June 30, 2023") == {2023}


def test_quarters_and_periods() -> None:
    assert lexicon.quarters("Q2 FY2024 versus the first quarter of 2023") == {(2024, 2), (2023, 1)}
    assert [p.kind for p in lexicon.periods("nine months ended September 30, 2022")] == [
        "nine_months"
    ]


def test_granularity_tells_segment_from_consolidated() -> None:
    assert lexicon.granularity("Operating income by reportable segment") == "segment"
    assert lexicon.granularity("North America net sales") == "segment"
    assert lexicon.granularity("Consolidated statements of operations") == "consolidated"
    assert lexicon.granularity("Net income was $5 million") is None


def test_mentions_company_by_name_alias_or_capital_ticker() -> None:
    assert lexicon.mentions_company("Best Buy Co., Inc. reported", ["BESTBUY"])
    assert lexicon.mentions_company("The Coca-Cola Company", ["Coca Cola"])
    assert lexicon.mentions_company("Visa (V) processed", ["V"])
    assert lexicon.mentions_company("3M's revenue", ["3M"])
    assert not lexicon.mentions_company("very large volume", ["V"])
    assert not lexicon.mentions_company("Best of the year; buy-side", ["Best Buy"])


def test_statements_named_by_their_many_names() -> None:
    assert lexicon.statements("Using the P&L and the statement of financial position") == {
        "income_statement",
        "balance_sheet",
    }
    assert lexicon.statements("the consolidated statements of cash flows") == {
        "cash_flow_statement"
    }
    assert lexicon.statements("How many employees?") == frozenset()


def test_question_core_drops_format_and_persona_instructions() -> None:
    text = (
        "You are an analyst with only the balance sheet. Here's the question: what is Acme's "
        "FY2022 current ratio? Current ratio is defined as: current assets / current "
        "liabilities. Round your answer to two decimal places."
    )
    assert lexicon.question_core(text) == (
        "what is Acme's FY2022 current ratio? Current ratio is defined as: current assets "
        "/ current liabilities."
    )
    assert lexicon.question_core("Summarise the outlook.") == "Summarise the outlook."


def test_search_text_adds_line_items_and_statement_headings() -> None:
    text = "Is Acme capital intensive? Use the cash flow statement. Answer in USD millions."
    searched = lexicon.search_text(text)
    assert searched.startswith("Is Acme capital intensive? ")
    assert "statements of cash flows" in searched
    assert "purchases of property plant and equipment" in searched
    assert "millions" not in searched
    assert lexicon.search_text("How many employees?") == "How many employees?"
