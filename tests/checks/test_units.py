import pytest

from filingqa.checks.units import (
    display_value,
    is_ratio,
    misread_scale,
    quoted_figure,
    scale_slips,
    shown_amount,
    states_positively,
    value_scale,
)

from ..kit.passages import CASH_FLOW, MDNA, PENSIONS, passage


@pytest.mark.parametrize(
    ("answer", "cited", "shown"),
    [
        ("812.4", [CASH_FLOW], "812.4 million"),  # the table says "(In millions)"
        ("$ 812.4", [CASH_FLOW], "$ 812.4 million"),
        ("(412.6)", [CASH_FLOW], "(412.6) million"),
        ("166", [PENSIONS], "166"),  # no scale stated
        ("812.4 million", [CASH_FLOW], "812.4 million"),
        ("13.0%", [CASH_FLOW], "13.0%"),
        ("2019", [CASH_FLOW], "2019"),
        ("the straight-line method", [CASH_FLOW], "the straight-line method"),
        ("812.4 and 701.9", [CASH_FLOW], "812.4 and 701.9"),
        ("812.4", [CASH_FLOW, MDNA], "812.4"),  # not every cited passage states it
    ],
)
def test_a_quoted_bare_figure_takes_the_scale_its_passage_states(
    answer: str, cited: list, shown: str
) -> None:
    assert quoted_figure(answer, cited) == shown


@pytest.mark.parametrize(
    ("answer", "question", "shown"),
    [
        ("(412.6)", "What was capital expenditure in 2024 (in USD billions)?", "0.413 billion"),
        ("812.4", "What was operating cash flow in 2024 (in USD thousands)?", "812,400 thousand"),
        ("(412.6)", "What was the change in cash in 2024 (in USD millions)?", "-412.6 million"),
        ("(412.6)", "What was capital expenditure in 2024?", "(412.6) million"),  # no unit asked
    ],
)
def test_a_quoted_figure_is_restated_in_the_unit_the_question_asks(
    answer: str, question: str, shown: str
) -> None:
    assert quoted_figure(answer, [CASH_FLOW], question) == shown


def test_a_computed_value_is_rounded_with_its_scale_or_percent() -> None:
    assert display_value("399.8", "What was free cash flow?", 399.8, [CASH_FLOW]) == "399.8 million"
    assert display_value("16.2", "What was the growth rate?", 16.2254, [CASH_FLOW]) == "16.23%"
    assert display_value("yes", "Q?", "yes", [CASH_FLOW]) == "yes"


INCOME = passage(
    "ACME_2024_10K:p5:tab1", "(In millions)\n| | 2024 | 2023 |\n| Net income | 11,588 | 9,877 |"
)
THOUSANDS = passage("ACME_2020_10K:p7:tab1", "(In thousands)\n| Cash from operations | 381,603 |")
CAPEX = (
    "What is the FY2024 capital expenditure amount (in USD billions) for Acme? Respond by "
    "relying on the details shown in the cash flow statement."
)
RATIO = "assets = 812.4\nliabilities = 412.6\nresult = round(assets / liabilities, 2)"


@pytest.mark.parametrize(
    ("question", "program"),
    [
        ("What is Acme's FY2024 working capital ratio?", "result = 1.73"),
        ("What is the FY2024 fixed asset turnover?", "result = 1.33"),
        ("What are Acme's days payable outstanding?", "result = 45.2"),
        ("What is diluted EPS in 2024?", "result = 1.97"),
        ("How much cash does Acme hold against its current liabilities?", RATIO),  # a quotient
    ],
)
def test_a_ratio_takes_no_scale_word(question: str, program: str) -> None:
    assert display_value("1.97", question, 1.97, [CASH_FLOW], program) == "1.97"


def test_an_amount_in_a_unit_asked_is_restated_in_it_positively() -> None:
    assert display_value("-412.6", CAPEX, -412.6, [CASH_FLOW], "result = -412.6") == "0.413 billion"
    millions = CAPEX.replace("billions", "millions")
    assert display_value("-412.6", millions, -412.6, [CASH_FLOW]) == "412.6 million"
    # the unit asked makes it an amount, whatever else the question names
    debt = "What debt (in USD millions) enters Acme's leverage ratio?"
    assert display_value("250", debt, 250, [CASH_FLOW]) == "250 million"


@pytest.mark.parametrize(
    "question",
    [
        "What was the change in capital expenditure (in USD millions) from 2023 to 2024?",
        "What is Acme's FY2024 net income (in USD millions)?",
        "What was net cash from investing activities (in USD millions)?",
        "What is the FY2024 operating loss in USD millions?",
    ],
)
def test_a_change_or_a_figure_that_may_be_negative_keeps_its_sign(question: str) -> None:
    assert not states_positively(question)
    assert display_value("-57.4", question, -57.4, [CASH_FLOW]) == "-57.4 million"


def test_without_a_unit_asked_an_amount_keeps_its_sign_and_the_sources_scale() -> None:
    question = "What was the capital expenditure in 2024?"
    assert not states_positively(question)
    assert display_value("-412.6", question, -412.6, [CASH_FLOW]) == "-412.6 million"
    # a table in thousands stays in thousands: no unit is asked
    assert display_value("381603", "What was cash from operations?", 381603, [THOUSANDS]) == (
        "381,603 thousand"
    )


def test_a_value_the_program_converted_is_shown_at_its_new_scale() -> None:
    program = "cfo = 381603\nresult = cfo / 1000000"
    plain = "What was cash from operations in 2020?"
    assert display_value("0.38", plain, 0.381603, [THOUSANDS], program) == "0.38 billion"
    asked = "What was cash from operations in 2020 (in USD millions)?"
    assert display_value("0.38", asked, 0.381603, [THOUSANDS], program) == "381.6 million"


def test_an_amount_with_no_scale_stated_is_not_rescaled() -> None:
    assert shown_amount(-166, CAPEX, None) == "166"
    assert value_scale(None, 1000) is None
    assert value_scale("thousand", 1000) == 1e6


def test_a_figure_at_another_scale_than_the_evidence_is_a_slip() -> None:
    assert scale_slips("11.59 million", [INCOME]) == [
        "11.59 million (the evidence: 11,588 million)"
    ]
    assert scale_slips("$11.59 billion", [INCOME]) == []  # the same figure, restated
    assert scale_slips("11,588 million", [INCOME]) == []
    assert scale_slips("1.71 billion", [INCOME]) == []  # computed: no evidence figure's digits
    assert scale_slips("11.59", [INCOME]) == []  # no scale word: nothing to compare
    assert scale_slips("166 thousand", [PENSIONS]) == []  # the table states no scale


def test_a_figure_a_program_wrote_at_another_scale_is_a_misread() -> None:
    assert misread_scale([11.588, 9.877, 3.3], [INCOME]) == {11.588: "11,588", 9.877: "9,877"}
    assert misread_scale([0.5], [INCOME]) == {}


def test_a_ratio_is_named_by_the_question_or_computed_as_a_quotient() -> None:
    assert is_ratio("What is the FY2024 asset turnover?")
    assert is_ratio("How much cash per dollar of debt?", "result = 812.4 / 412.6")
    assert not is_ratio("What was free cash flow?", "result = 812.4 - 412.6")
    assert not is_ratio("What debt (in USD millions) enters the leverage ratio?")  # an amount
    assert not is_ratio("What was the exchange rate impact on revenue?")


def test_an_amount_restated_in_the_unit_asked_keeps_three_significant_digits() -> None:
    assert shown_amount(41.2, CAPEX, "million") == "0.0412 billion"
    assert shown_amount(4625, CAPEX, "million") == "4.62 billion"
    assert shown_amount(302578, CAPEX.replace("billions", "millions"), "thousand") == (
        "302.58 million"
    )
