"""What a program's result is made of: a comparison, a quotient, a scale conversion."""

import pytest

from filingqa.checks.program_result import (
    comparison,
    conversion_factor,
    decision_of,
    is_quotient,
)

RATIO = (
    "assets = 812.4\nliabilities = 412.6\nratio = assets / liabilities\nresult = round(ratio, 2)"
)


@pytest.mark.parametrize(
    ("value", "decision"),
    [(True, True), (False, False), ("False", False), (" yes.", True), ("No", False)],
)
def test_a_bool_or_its_word_is_a_decision(value: object, decision: bool) -> None:
    assert decision_of(value) is decision


@pytest.mark.parametrize("value", [1, 0.0, "1.97", "maybe", None])
def test_anything_else_decides_nothing(value: object) -> None:
    assert decision_of(value) is None


def test_the_comparison_giving_the_result_is_read_through_its_names() -> None:
    assert comparison("ratio = 812.4 / 412.6\nabove = ratio > 1\nresult = above") == "ratio > 1"
    assert comparison("result = not (812.4 > 412.6)") == "not 812.4 > 412.6"
    assert comparison(RATIO) is None
    assert comparison("result = (") is None  # does not parse


@pytest.mark.parametrize(
    "program",
    [
        RATIO,
        "result = 812.4 / 412.6",  # figures written inline
        "result = (812.4 - 701.9) / 701.9 * 100",  # a growth rate
        "ar = 50\nrevenue = 400\nresult = round(ar / revenue * 365, 1)",  # days
        "ratio = 812.4 / 412.6\nresult = ratio / 2",  # half a ratio is still one
    ],
)
def test_one_figure_divided_by_another_is_a_quotient(program: str) -> None:
    assert is_quotient(program)


@pytest.mark.parametrize(
    "program",
    [
        "result = 812.4 - 412.6",
        "result = (166 + 178) / 2",  # an average
        "n = 3\nresult = (1 + 2 + 3) / n",
        "values = [1, 2]\nresult = sum(values) / len(values)",
        "result = 381603 / 1000",  # a unit change
        "result = (",
    ],
)
def test_a_sum_an_average_or_a_unit_change_is_not(program: str) -> None:
    assert not is_quotient(program)


@pytest.mark.parametrize(
    ("program", "factor"),
    [
        ("result = 812.4 - 412.6", 1.0),
        ("cfo = 381603\nresult = cfo / 1000000", 1e6),
        ("payable = 302578 / 1000  # to millions\nresult = payable", 1e3),
        ("x = 5000\nx /= 1000\nresult = round(x, 2)", 1e3),
        ("result = 4.625 * 1000", 1e-3),
        ("result = 5000 * 0.001", 1e3),
        ("a = 5000 / 1000\nb = 3000 / 1000\nresult = a + b", 1e3),
        ("result = 5000 / 1000 + 3000", 1.0),  # its parts disagree: no conversion read
        ("total = 100\ny = total / 1000", 1e3),  # no result: the last assignment
    ],
)
def test_the_factor_a_program_changed_the_scale_by(program: str, factor: float) -> None:
    assert conversion_factor(program) == pytest.approx(factor)
