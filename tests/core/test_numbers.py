"""Number parsing as financial answers write numbers."""

from __future__ import annotations

import pytest

from filingqa.core.numbers import (
    asked_scale,
    extract_numbers,
    names_percent,
    parse_number,
    scale_multiplier,
)
from filingqa.metrics.numeric import answer_number


@pytest.mark.parametrize(
    ("text", "magnitude", "multiplier", "is_percent", "decimals"),
    [
        ("$303.00", 303.0, 1.0, False, 2),
        ("302.6M", 302.6, 1e6, False, 1),
        ("$4.60B", 4.6, 1e9, False, 2),
        ("1.2bn", 1.2, 1e9, False, 1),
        ("24 billion", 24.0, 1e9, False, 0),
        ("1,577 million", 1577.0, 1e6, False, 0),
        ("$5 mm", 5.0, 1e6, False, 0),
        ("12k", 12.0, 1e3, False, 0),
        ("3 trillion", 3.0, 1e12, False, 0),
        ("3,030", 3030.0, 1.0, False, 0),
        ("(1,234)", -1234.0, 1.0, False, 0),
        ("$(1,234.5)", -1234.5, 1.0, False, 1),
        ("-$1,561M", -1561.0, 1e6, False, 0),
        ("−12.6", -12.6, 1.0, False, 1),
        ("14.86%", 14.86, 1.0, True, 2),
        ("(12.5%)", -12.5, 1.0, True, 1),
        ("3.8 percentage points", 3.8, 1.0, True, 1),
        ("12,5 %", 12.5, 1.0, True, 1),
        (".5", 0.5, 1.0, False, 1),
        ("US$ 5 mn", 5.0, 1e6, False, 0),
    ],
)
def test_parse_number_reads_value_scale_and_precision(
    text: str, magnitude: float, multiplier: float, is_percent: bool, decimals: int
) -> None:
    number = parse_number(text)
    assert number is not None
    assert number.magnitude == pytest.approx(magnitude)
    assert number.multiplier == multiplier
    assert number.is_percent is is_percent
    assert number.decimals == decimals
    assert number.value == pytest.approx(magnitude * multiplier)


@pytest.mark.parametrize("text", ["—", "", "n/a", "increased", "5 months later", "FY2022 and Q2"])
def test_parse_number_rejects_text_that_is_not_just_a_number(text: str) -> None:
    assert parse_number(text) is None


def test_extract_numbers_in_reading_order_with_ranges_and_glued_labels() -> None:
    numbers = extract_numbers(
        "In FY2022 Q2 revenue rose 2019-2020 from $1.2bn to (3.4 m), 5 months."
    )
    assert [n.text for n in numbers] == ["2019", "2020", "$1.2bn", "(3.4 m)", "5"]
    assert numbers[3].value == pytest.approx(-3.4e6)


def test_year_like_numbers_are_flagged() -> None:
    year, amount, money = extract_numbers("2022 2,022 $2022")
    assert year.is_year_like
    assert not amount.is_year_like
    assert not money.is_year_like


def test_non_finite_numbers_are_skipped_and_non_strings_tolerated() -> None:
    assert extract_numbers("9" * 400) == []
    assert extract_numbers(None) == []  # type: ignore[arg-type]
    assert parse_number(12) is None  # type: ignore[arg-type]


def test_record_scale_and_percent_labels() -> None:
    assert scale_multiplier("million") == 1e6
    assert scale_multiplier(" Thousand ") == 1e3
    assert scale_multiplier("percent") == 1.0
    assert scale_multiplier(None) == 1.0
    assert names_percent(None, "percent")
    assert names_percent("%")
    assert not names_percent("million", None)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("In 2019 revenue rose to $4.6 billion, 12% above 2018", 4.6),
        ("2019", 2019.0),  # only a year: the year is the answer
        ("not stated", None),
    ],
)
def test_answer_number_is_the_first_number_years_aside(answer: str, expected: float | None) -> None:
    number = answer_number(answer)
    assert (number.magnitude if number else None) == expected


@pytest.mark.parametrize(
    ("question", "scale"),
    [
        ("What is the FY2018 capex amount (in USD millions) for 3M?", "million"),
        ("Answer in USD billions.", "billion"),
        ("What was revenue in $ thousands?", "thousand"),
        ("What was revenue in millions?", None),
        ("What is the quick ratio?", None),
    ],
)
def test_the_scale_a_question_asks_for(question: str, scale: str | None) -> None:
    assert asked_scale(question) == scale
