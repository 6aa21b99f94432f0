"""Programs written from statement records: the catalogue's formula over the rows' figures,
run in the sandbox; a direction or sign decided by code; None wherever code cannot settle
the question."""

from __future__ import annotations

import pytest

from filingqa.program.statement_program import statement_program
from filingqa.records.concepts import CONCEPTS
from filingqa.records.statements import Scale, StatementRecord
from filingqa.sandbox import run_python


def record(
    concept: str,
    period: str,
    value: float,
    *,
    scale: Scale = "millions",
    doc_id: str = "ACME_2024_10K",
) -> StatementRecord:
    """A figure of Acme as its statement prints it (a negative value printed in
    parentheses), on page 50."""
    quarter, _, year = period.rpartition(" ")
    printed = f"({abs(value):,g})" if value < 0 else f"{value:,g}"
    return StatementRecord(
        company="Acme",
        statement=CONCEPTS[concept].statement,
        line_item=CONCEPTS[concept].label,
        concept=concept,
        period=period,
        span="quarter" if quarter else "year",
        fiscal_year=int(year.removeprefix("FY")),
        fiscal_quarter=int(quarter[1]) if quarter else None,
        value=value,
        printed=printed,
        scale=scale,
        doc_id=doc_id,
        page=50,
        table_id=f"{doc_id}:p50:table1",
        comparative=False,
    )


def result_of(program: str | None) -> object:
    assert program is not None
    execution = run_python(program)
    assert execution.ok, execution.error
    return execution.value


GROSS_MARGIN_ROWS = [  # costs printed in parentheses: taken as positive amounts
    record("revenue", "FY2024", 1000),
    record("cost_of_revenue", "FY2024", -600),
    record("revenue", "FY2023", 900),
    record("cost_of_revenue", "FY2023", -558),
]


def test_a_named_metric_is_the_catalogues_formula_over_the_rows() -> None:
    program = statement_program(
        "What was Acme's FY2024 gross margin?", GROSS_MARGIN_ROWS, decides=False
    )
    assert program is not None
    assert "revenue = 1000  # Total revenue | FY2024 | ACME_2024_10K p.50 millions" in program
    assert "cost_of_revenue = 600  #" in program
    assert "gross_margin = 100 * (revenue - cost_of_revenue) / revenue" in program
    assert result_of(program) == pytest.approx(40.0)


@pytest.mark.parametrize(
    ("question", "holds"),
    [
        ("Does Acme have an improving gross margin profile as of FY2024?", True),
        ("Did Acme's gross margin decline in FY2024?", False),
    ],
)
def test_a_direction_compares_the_figure_with_the_period_before(question: str, holds: bool) -> None:
    program = statement_program(question, GROSS_MARGIN_ROWS, decides=True)
    assert program is not None
    assert "earlier_revenue = 900" in program and "earlier_cost_of_revenue = 558" in program
    assert result_of(program) is holds  # 40.0% in FY2024 against 38.0% in FY2023


def test_a_direction_between_two_named_periods_compares_the_later_with_the_earlier() -> None:
    rows = [
        record("cash_and_equivalents", "FY2023", 1874),
        record("cash_and_equivalents", "Q2 FY2024", 1093, doc_id="ACME_2024Q2_10Q"),
    ]
    question = (
        "Was there any drop in Acme's cash and cash equivalents between FY2023 and Q2 of FY2024?"
    )
    program = statement_program(question, rows, decides=True)
    assert program is not None
    assert "result = cash_and_equivalents < earlier_cash_and_equivalents" in program
    assert result_of(program) is True


@pytest.mark.parametrize(("current_liabilities", "holds"), [(2811, False), (1000, True)])
def test_a_sign_compares_the_figure_with_zero(current_liabilities: int, holds: bool) -> None:
    rows = [
        record("total_current_assets", "FY2024", 1250),
        record("total_current_liabilities", "FY2024", current_liabilities),
    ]
    question = "Does Acme have positive working capital based on FY2024 data?"
    assert result_of(statement_program(question, rows, decides=True)) is holds


def test_an_average_balance_is_the_mean_of_the_period_and_the_prior() -> None:
    rows = [
        record("net_income", "FY2024", 120),
        record("total_assets", "FY2024", 2000),
        record("total_assets", "FY2023", 1800, doc_id="ACME_2023_10K"),
    ]
    program = statement_program("What was Acme's FY2024 return on assets?", rows, decides=False)
    assert program is not None
    assert "average_total_assets = (total_assets + prior_total_assets) / 2" in program
    assert result_of(program) == pytest.approx(120 / 1900)


@pytest.mark.parametrize(
    ("question", "scale", "expected"),
    [
        ("How much (in USD billions) did Acme pay in dividends in FY2024?", "millions", 0.389),
        ("What were Acme's FY2024 dividends paid (in USD millions)?", "thousands", 389.0),
        ("What were Acme's FY2024 dividends paid?", "thousands", 389000.0),
    ],
)
def test_an_amount_is_given_at_the_scale_the_question_asks(
    question: str, scale: Scale, expected: float
) -> None:
    value = -389 if scale == "millions" else -389000
    rows = [record("dividends_paid", "FY2024", value, scale=scale)]
    assert result_of(statement_program(question, rows, decides=False)) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("question", "decides"),
    [
        # the question's own formula: the LM writes it
        (
            "What is Acme's FY2024 gross margin? Gross margin is defined as gross profit / sales.",
            False,
        ),
        ("What is Acme's FY2022 - FY2024 3 year average gross margin?", False),  # an aggregate
        ("How much did Acme's gross margin change between FY2023 and FY2024?", False),  # a change
        ("What was Acme's FY2024 revenue % margin?", False),  # computed from a line item
        ("What were Acme's FY2024 inventories and gross margin?", False),  # two figures
        ("Is Acme's FY2024 gross margin healthy?", True),  # neither a direction nor a sign
        ("Did Acme's gross margin improve by more than 5% in FY2024?", True),  # a threshold
        ("What was Acme's FY2024 operating margin?", False),  # its rows are missing
    ],
)
def test_code_does_not_settle_what_it_cannot(question: str, decides: bool) -> None:
    assert statement_program(question, GROSS_MARGIN_ROWS, decides=decides) is None


def test_rows_printed_at_different_scales_are_not_combined() -> None:
    rows = [
        record("revenue", "FY2024", 1000),
        record("cost_of_revenue", "FY2024", -600000, scale="thousands"),
    ]
    assert statement_program("What was Acme's FY2024 gross margin?", rows, decides=False) is None


def test_a_direction_of_a_metric_taking_a_prior_balance_is_left_to_the_lm() -> None:
    rows = [
        record("net_income", "FY2024", 120),
        record("net_income", "FY2023", 100),
        record("total_assets", "FY2024", 2000),
        record("total_assets", "FY2023", 1800),
    ]
    question = "Did Acme's return on assets improve in FY2024?"
    assert statement_program(question, rows, decides=True) is None


def test_a_formula_the_question_states_as_the_catalogue_does_is_the_catalogues() -> None:
    rows = [
        record("cost_of_revenue", "FY2024", -600),
        record("inventories", "FY2024", 160),
        record("inventories", "FY2023", 140),
    ]
    same = (
        "What is Acme's FY2024 inventory turnover ratio? Inventory turnover ratio is defined as: "
        "(FY2024 COGS) / (average inventory between FY2023 and FY2024)."
    )
    assert result_of(statement_program(same, rows, decides=False)) == pytest.approx(4.0)
    other = (
        "What is Acme's FY2024 inventory turnover ratio? Inventory turnover ratio is defined as: "
        "(FY2024 COGS) / (FY2024 inventory)."
    )
    assert statement_program(other, rows, decides=False) is None  # the question's own wins


def test_a_percent_margin_is_the_amount_as_a_share_of_revenue() -> None:
    rows = [
        record("operating_income", "FY2024", 300),
        record("depreciation_amortization", "FY2024", 60),
        record("revenue", "FY2024", 1200),
    ]
    ebitda = "What is Acme's FY2024 EBITDA % margin? Use operating income and D&A."
    program = statement_program(ebitda, rows, decides=False)
    assert program is not None
    assert (
        "ebitda_margin = 100 * (operating_income + depreciation_amortization) / revenue" in program
    )
    assert result_of(program) == pytest.approx(30.0)
    line_item = "What is Acme's FY2024 D&A as a % of revenue?"
    assert result_of(statement_program(line_item, rows, decides=False)) == pytest.approx(5.0)
    assert result_of(
        statement_program("What is Acme's FY2024 EBITDA in USD millions?", rows, decides=False)
    ) == pytest.approx(360.0)
    ratio = "What is Acme's FY2024 EBITDA to interest ratio?"
    assert statement_program(ratio, rows, decides=False) is None  # another ratio of it


@pytest.mark.parametrize(
    "question",
    [
        "What is Acme's FY2022 - FY2024 3 year average gross margin?",
        "What is Acme's three year average of COGS as a % of revenue from FY2022 to FY2024?",
    ],
)
def test_a_years_average_is_the_mean_of_each_years_figure(question: str) -> None:
    rows = [
        record(concept, f"FY{year}", value)
        for year, revenue, cost in ((2022, 800, -520), (2023, 900, -558), (2024, 1000, -600))
        for concept, value in (("revenue", revenue), ("cost_of_revenue", cost))
    ]
    program = statement_program(question, rows, decides=False)
    assert program is not None and "revenue_fy2022 = 800" in program
    gross = (35.0 + 38.0 + 40.0) / 3
    expected = gross if "gross margin" in question else 100 - gross
    assert result_of(program) == pytest.approx(expected)
    assert statement_program(question, rows[2:], decides=False) is None  # a year is missing


def test_an_average_needs_the_prior_year_not_any_earlier_period() -> None:
    rows = [
        record("net_income", "FY2024", 120),
        record("total_assets", "FY2024", 2000),
        record("total_assets", "FY2022", 1800),
    ]
    question = "What was Acme's return on assets in FY2024 (average assets of FY2022 and FY2024)?"
    assert statement_program(question, rows, decides=False) is None


def test_a_question_asking_which_is_left_to_the_lm() -> None:
    question = "Which year had the higher gross margin, FY2023 or FY2024?"
    assert statement_program(question, GROSS_MARGIN_ROWS, decides=False) is None


@pytest.mark.parametrize(("receivables", "holds"), [(900, True), (300, False)])
def test_health_is_the_level_the_catalogue_reads_as_healthy(receivables: int, holds: bool) -> None:
    rows = [  # no short-term investments on this balance sheet: taken as zero
        record("cash_and_equivalents", "FY2024", 200),
        record("accounts_receivable", "FY2024", receivables),
        record("total_current_liabilities", "FY2024", 1000),
    ]
    question = (
        "Does Acme have a reasonably healthy liquidity profile based on its quick ratio for FY2024?"
    )
    program = statement_program(question, rows, decides=True)
    assert program is not None
    assert "short_term_investments = 0  # not printed on the statement" in program
    assert "result = quick_ratio >= 1" in program
    assert result_of(program) is holds
    no_level = "Does Acme have a healthy gross margin in FY2024?"  # the catalogue sets none
    assert statement_program(no_level, GROSS_MARGIN_ROWS, decides=True) is None
    assert statement_program(question, rows[:1], decides=True) is None  # its rows are missing
