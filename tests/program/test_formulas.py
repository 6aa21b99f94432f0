import pytest

from filingqa.program.formulas import formula_note


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
