"""Reading the shape of the figure a question asks for."""

from __future__ import annotations

import pytest

from filingqa.checks.asked_figure import asks_share_of_revenue, averaged_years


@pytest.mark.parametrize(
    ("question", "share"),
    [
        ("What is the FY2015 D&A % margin for AMD?", True),
        ("What is Nike's cost of goods sold as a % of revenue in FY2018?", True),
        ("Did JnJ's net earnings as a percent of sales increase?", True),
        ("What is the FY2015 gross margin for AMD?", False),
        ("What share of revenue came from Europe?", False),
    ],
)
def test_a_share_of_revenue(question: str, share: bool) -> None:
    assert asks_share_of_revenue(question) is share


@pytest.mark.parametrize(
    ("question", "years"),
    [
        ("What is the FY2015 - FY2017 3 year average net profit margin?", [2015, 2016, 2017]),
        (
            "Nike's three year average of COGS as a % of revenue from FY2016 to FY2018?",
            [2016, 2017, 2018],
        ),
        ("What is the 3 year average margin between FY2015 and FY2018?", None),  # 4 years named
        ("What was the average total assets in FY2019?", None),  # one year
        ("What was revenue in FY2015 and FY2017?", None),  # no average
    ],
)
def test_the_years_an_average_spans(question: str, years: list[int] | None) -> None:
    assert averaged_years(question) == years
