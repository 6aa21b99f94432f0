import pytest

from filingqa.checks.formulas import formula_note, unstated_metrics
from filingqa.checks.metric_catalogue import metrics_named


def test_a_one_year_average_is_the_mean_of_that_year_and_the_year_before() -> None:
    note = formula_note("What is the 2019 average defined contribution schemes?")
    assert note is not None
    assert "(value in 2019 + value in 2018) / 2" in note


def test_a_change_between_two_years_averages_uses_each_years_average() -> None:
    note = formula_note("What is the change between 2018 and 2019 average free cash flow?")
    assert note is not None
    assert note.startswith("The 2019 average of a figure is the mean of its 2019 and 2018")


@pytest.mark.parametrize(
    "question",
    [
        "What is the average total current tax expense for 2017 and 2018?",  # named years
        "What is the average Selling, general and administrative?",  # no year
        "What was the average termination cost per employee in 2018?",  # a ratio
        "What was the percentage change in revenue from 2018 to 2019?",
        "What was the total revenue in 2019?",
    ],
)
def test_other_questions_get_no_note(question: str) -> None:
    assert formula_note(question) is None


CASH_FLOWS = """\
--- page 4, table ---
| Fiscal year ended June 30, | 2024 | 2023 |
|---|---|---|
| Net cash provided by operating activities | 812.4 | 701.9 |
| Purchases of property and equipment | (412.6) | (355.0) |
"""


def test_a_metric_no_table_row_reports_gets_its_definition() -> None:
    note = formula_note("What was Northwind's free cash flow in fiscal 2024?", CASH_FLOWS)
    assert note == (
        "Free cash flow = net cash provided by operating activities - capital expenditures "
        "(purchases of property, plant and equipment)."
    )


def test_a_metric_a_table_row_reports_gets_no_definition() -> None:
    evidence = CASH_FLOWS + "| Free cash flow | 399.8 | 346.9 |\n"
    assert formula_note("What was the free cash flow in fiscal 2024?", evidence) is None


def test_a_question_that_defines_its_metric_gets_no_definition() -> None:
    question = (
        "What is the FY2020 working capital ratio? Define working capital ratio as total "
        "current assets divided by total current liabilities."
    )
    assert formula_note(question, CASH_FLOWS) is None


def test_the_longer_metric_name_is_the_one_defined() -> None:
    note = formula_note("What is Block's FY2016 working capital ratio?", CASH_FLOWS)
    assert note == "Working capital ratio = total current assets / total current liabilities."


def test_the_year_average_convention_and_a_definition_are_given_together() -> None:
    note = formula_note("What is the 2024 average FCF?", CASH_FLOWS)
    assert note is not None
    assert note.startswith("The 2024 average of a figure is the mean of its 2024 and 2023")
    assert note.endswith("(purchases of property, plant and equipment).")


def test_a_catalogue_metric_is_defined_under_the_name_the_question_writes() -> None:
    note = formula_note("What is the FY2017 acid test ratio?", CASH_FLOWS)
    assert note is not None
    assert note.startswith("Acid test ratio = (cash and cash equivalents + short-term")


def test_an_acronym_is_spelled_out_in_the_note() -> None:
    note = formula_note("What is the FY2017 DPO?", CASH_FLOWS)
    assert note == (
        "Days payable outstanding = 365 × average accounts payable / (cost of revenue + "
        "change in inventories over the year)."
    )


def test_the_question_s_own_formula_wins_and_only_for_its_metric() -> None:
    question = (
        "What is the FY2022 dividend payout ratio (using total cash dividends paid and net "
        "income attributable to shareholders), and the FY2022 free cash flow?"
    )
    note = formula_note(question, CASH_FLOWS)
    assert note is not None
    assert note.startswith("Free cash flow = ")
    assert "payout" not in note.lower()


def test_a_row_labelled_with_a_longer_metric_does_not_state_the_shorter() -> None:
    evidence = CASH_FLOWS + "| Working capital ratio | 1.2 | 1.1 |\n"
    note = formula_note("What was working capital in fiscal 2024?", evidence)
    assert note == "Working capital = total current assets - total current liabilities."


def test_a_metric_another_note_states_in_full_gets_no_note_of_its_own() -> None:
    note = formula_note("What was FCF, operating cash flow less capex, in 2024?", CASH_FLOWS)
    assert note == (
        "Free cash flow = net cash provided by operating activities - capital expenditures "
        "(purchases of property, plant and equipment)."
    )
    alone = formula_note("What was capex in 2024?", CASH_FLOWS)
    assert alone == "Capex = capital expenditures (purchases of property, plant and equipment)."


def test_a_growth_rate_is_computed_by_the_catalogue_but_gets_no_note() -> None:
    question = "What is Block's FY2019 - FY2020 total revenue growth rate?"
    assert [m.name for m in metrics_named(question)] == ["revenue growth"]
    assert unstated_metrics(question, "") == []
