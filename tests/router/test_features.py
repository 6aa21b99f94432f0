import pytest

from filingqa.router.features import FEATURE_NAMES, computation_type, extract


def test_lookup_question() -> None:
    features = extract("What was the revenue of Acme in 2019?")
    assert features.computation == "lookup"
    assert features.operation_depth == 0
    assert (features.distinct_periods, features.span_years) == (1, 0)
    assert not features.year_over_year and not features.comparative
    assert features.financial_entities == 1  # revenue
    assert features.question_words == 8


def test_multi_period_comparison() -> None:
    features = extract(
        "What was the percentage change in net income from 2017 to 2019, and which "
        "segment had the highest operating margin?"
    )
    assert features.computation == "multi-step"
    assert features.year_over_year and features.comparative
    assert features.span_years == 2 and features.distinct_periods == 2
    assert features.sub_questions == 2
    assert features.financial_entities >= 2  # net income, operating margin
    assert features.operation_depth >= 2


def test_numbers_other_than_years_are_counted() -> None:
    features = extract("If revenue grows 5% from $1,200 in 2023, what is it in 2024?")
    assert features.distinct_numbers == 2
    assert features.distinct_periods == 2


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What was total debt in 2020?", "single-step"),
        ("What is the ratio of current assets to current liabilities?", "single-step"),
        ("What is the CAGR of revenue over 2018-2020?", "multi-step"),
        ("What was the average change in cash per year?", "multi-step"),
        ("Who is the auditor?", "lookup"),
    ],
)
def test_computation_type(question: str, kind: str) -> None:
    assert computation_type(question) == kind


def test_vector_follows_the_feature_names() -> None:
    features = extract("What was the change in revenue from 2018 to 2019?")
    vector = features.vector()
    assert len(vector) == len(FEATURE_NAMES)
    assert vector[FEATURE_NAMES.index("computation")] == 1.0  # single-step
    assert vector[FEATURE_NAMES.index("year_over_year")] == 1.0
