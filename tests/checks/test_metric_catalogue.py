import pytest
from pydantic import ValidationError

from filingqa.checks.metric_catalogue import (
    CATALOGUE,
    Metric,
    MetricInput,
    MissingInputError,
    Values,
    compute,
    metric_called,
    metrics_named,
    question_defines,
)
from filingqa.records.concepts import CONCEPTS

CURRENT = {
    "revenue": 1000.0,
    "cost_of_revenue": 600.0,
    "operating_income": 150.0,
    "depreciation_amortization": 50.0,
    "interest_expense": 25.0,
    "pretax_income": 125.0,
    "income_tax_expense": 25.0,
    "net_income": 100.0,
    "cash_and_equivalents": 80.0,
    "short_term_investments": 20.0,
    "accounts_receivable": 130.0,
    "inventories": 110.0,
    "total_current_assets": 400.0,
    "total_current_liabilities": 200.0,
    "property_plant_equipment": 450.0,
    "total_assets": 1100.0,
    "accounts_payable": 70.0,
    "short_term_debt": 50.0,
    "long_term_debt": 250.0,
    "total_equity": 550.0,
    "operating_cash_flow": 180.0,
    "capital_expenditure": 60.0,
    "dividends_paid": 40.0,
}
PRIOR = {
    "revenue": 800.0,
    "operating_income": 120.0,
    "net_income": 80.0,
    "accounts_receivable": 70.0,  # average 100
    "inventories": 90.0,  # average 100, change 20
    "property_plant_equipment": 350.0,  # average 400
    "total_assets": 900.0,  # average 1000
    "accounts_payable": 50.0,  # average 60
    "total_equity": 450.0,  # average 500
}
VALUES: Values = {
    **{(name, "current"): value for name, value in CURRENT.items()},
    **{(name, "prior"): value for name, value in PRIOR.items()},
}
PURCHASES = 600 + (110 - 90)  # cost of revenue + change in inventories

EXPECTED = {
    "gross margin": 40.0,
    "operating margin": 15.0,
    "pretax margin": 12.5,
    "net profit margin": 10.0,
    "EBITDA": 200.0,
    "EBITDA margin": 20.0,
    "return on assets": 0.1,
    "return on equity": 0.2,
    "effective tax rate": 20.0,
    "free cash flow": 120.0,
    "capital expenditure": 60.0,
    "capex intensity": 6.0,
    "free cash flow conversion": 1.2,
    "operating cash flow ratio": 0.9,
    "dividend payout ratio": 0.4,
    "retention ratio": 0.6,
    "current ratio": 2.0,
    "quick ratio": 1.15,
    "cash ratio": 0.5,
    "working capital": 200.0,
    "asset turnover": 1.0,
    "fixed asset turnover": 2.5,
    "inventory turnover": 6.0,
    "receivables turnover": 10.0,
    "payables turnover": PURCHASES / 60,
    "days sales outstanding": 36.5,
    "days inventory outstanding": 365 * 100 / 600,
    "days payable outstanding": 365 * 60 / PURCHASES,
    "cash conversion cycle": 365 * 100 / 600 + 36.5 - 365 * 60 / PURCHASES,
    "total debt": 300.0,
    "net debt": 220.0,
    "debt-to-equity ratio": 300 / 550,
    "debt-to-assets ratio": 300 / 1100,
    "net debt to EBITDA": 1.1,
    "interest coverage ratio": 6.0,
    "fixed asset ratio": 450 / 1100,
    "revenue growth": 25.0,
    "operating income growth": 25.0,
    "net income growth": 25.0,
}


def test_the_catalogue_holds_at_least_30_metrics_each_with_a_fixture_result() -> None:
    assert len(CATALOGUE) >= 30
    assert set(EXPECTED) == set(CATALOGUE)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_formula_gives_its_hand_computed_result(name: str) -> None:
    assert compute(CATALOGUE[name], VALUES) == pytest.approx(EXPECTED[name])


@pytest.mark.parametrize("metric", CATALOGUE.values(), ids=list(CATALOGUE))
def test_every_input_is_a_known_concept_and_every_metric_is_described(metric: Metric) -> None:
    assert metric.inputs
    assert all(needed.concept in CONCEPTS for needed in metric.inputs)
    assert metric.definition and metric.unit in {"ratio", "percent", "days", "amount"}


def test_inputs_carry_their_period_role() -> None:
    assert CATALOGUE["return on assets"].inputs == (
        MetricInput(concept="net_income"),
        MetricInput(concept="total_assets", period="average"),
    )
    assert MetricInput(concept="revenue", period="prior") in CATALOGUE["revenue growth"].inputs


def test_a_given_average_is_used_as_it_is() -> None:
    values: Values = {("net_income", "current"): 100.0, ("total_assets", "average"): 800.0}
    assert compute(CATALOGUE["return on assets"], values) == pytest.approx(0.125)


def test_a_missing_input_is_named() -> None:
    values: Values = {("net_income", "current"): 100.0, ("total_assets", "current"): 1100.0}
    with pytest.raises(MissingInputError, match=r"return on assets needs total_assets \(average"):
        compute(CATALOGUE["return on assets"], values)


def test_a_formula_naming_no_concept_is_refused() -> None:
    with pytest.raises(ValidationError, match="names no concept: 'ebit'"):
        Metric(name="x", unit="ratio", definition="x", formula=lambda ebit, revenue: ebit / revenue)


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        ("acid-test ratio", "quick ratio"),
        ("Acid test ratio", "quick ratio"),
        ("DPO", "days payable outstanding"),
        ("capex", "capital expenditure"),
        ("FCF", "free cash flow"),
        ("working capital ratio", "current ratio"),
        ("ROE", "return on equity"),
    ],
)
def test_aliases_resolve_to_their_metric(alias: str, name: str) -> None:
    assert metric_called(alias) is CATALOGUE[name]
    assert metrics_named(f"What was the FY2022 {alias}?") == [CATALOGUE[name]]


def test_an_unknown_metric_name_is_a_key_error_listing_the_known() -> None:
    with pytest.raises(KeyError, match="unknown metric 'vibe ratio'; known: gross margin"):
        metric_called("vibe ratio")


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("What is Block's FY2016 working capital ratio?", ["current ratio"]),
        ("Does Paypal have positive working capital?", ["working capital"]),
        ("What was the EBITDA margin and EBITDA?", ["EBITDA margin", "EBITDA"]),
        ("Did FCF conversion improve? FCF rose.", ["free cash flow conversion", "free cash flow"]),
        ("What is the fixed asset turnover ratio?", ["fixed asset turnover"]),
        ("Are Best Buy's gross margins consistent?", ["gross margin"]),
        ("What was capex-to-sales, and capex?", ["capex intensity", "capital expenditure"]),
        ("Which region had the highest EBITDAR?", []),
        ("Is the roe of the firm high?", []),  # an acronym only in capitals
        ("What was net income in 2022?", []),
    ],
)
def test_the_longer_name_wins_and_each_metric_is_named_once(
    question: str, names: list[str]
) -> None:
    assert [metric.name for metric in metrics_named(question)] == names


@pytest.mark.parametrize(
    ("question", "name"),
    [
        (
            "What is AES's FY2022 return on assets (ROA)? ROA is defined as: FY2022 net income"
            " / (average total assets between FY2021 and FY2022).",
            "return on assets",
        ),
        (
            "What is the FY2020 working capital ratio? Define working capital ratio as total "
            "current assets divided by total current liabilities.",
            "current ratio",
        ),
        (
            "What is Coca Cola's FY2022 dividend payout ratio (using total cash dividends paid "
            "and net income attributable to shareholders)?",
            "dividend payout ratio",
        ),
        (
            "What is the FY2015 unadjusted EBITDA % margin for Netflix? Calculate unadjusted "
            "EBITDA using unadjusted operating income and D&A (from cash flow statement).",
            "EBITDA",
        ),
        (
            "What is the FY2021 unadjusted operating income + depreciation and amortization "
            "from the cash flow statement (unadjusted EBITDA)?",
            "EBITDA",
        ),
        ("What is the FY2020 FCF? FCF here is defined as (cash from operations - capex).", "FCF"),
        ("What is the quick ratio = (cash + receivables) / current liabilities?", "quick ratio"),
    ],
)
def test_a_formula_stated_in_the_question_is_detected(question: str, name: str) -> None:
    assert question_defines(question, metric_called(name))


@pytest.mark.parametrize(
    ("question", "name"),
    [
        (
            "What is the FY2022 quick ratio? Compute the quick ratio using the balance sheet.",
            "quick ratio",
        ),
        (
            "Roughly how many times? Calculate inventory turnover ratio for the FY2022.",
            "inventory turnover",
        ),
        ("What is the FY2021 - FY2022 change in return on assets (ROA)?", "return on assets"),
        ("Fixed asset turnover ratio is defined as: revenue / average PP&E.", "asset turnover"),
        ("What is the FY2018 dividend payout ratio (as a %)?", "dividend payout ratio"),
    ],
)
def test_a_question_without_its_own_formula_is_not_taken_to_define_one(
    question: str, name: str
) -> None:
    assert not question_defines(question, metric_called(name))
