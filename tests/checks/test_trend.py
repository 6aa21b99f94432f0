"""What a yes/no question asks of one figure: a direction, a sign, or health."""

from __future__ import annotations

import pytest

from filingqa.checks.trend import asked_direction, asked_sign, asks_health


@pytest.mark.parametrize(
    ("question", "direction"),
    [
        ("Does Boeing have an improving gross margin profile as of FY2022?", "up"),
        ("Did JnJ's net earnings as a percent of sales increase in Q2 of FY2023?", "up"),
        ("Was there any drop in cash between FY 2023 and Q2 of FY2024?", "down"),
        ("Did the operating margin decline in FY2022?", "down"),
        ("Did revenue grow by more than 10% in FY2022?", None),  # a threshold of its own
        ("Did margins rise or fall in FY2022?", None),  # both directions
        ("Does Corning have positive working capital based on FY2022 data?", None),
    ],
)
def test_the_direction_asked(question: str, direction: str | None) -> None:
    assert asked_direction(question) == direction


@pytest.mark.parametrize(
    ("question", "sign"),
    [
        ("Does Corning have positive working capital based on FY2022 data?", "positive"),
        ("Was free cash flow negative in FY2021?", "negative"),
        ("Did net income turn positive after a decline in FY2021?", None),  # a direction too
        ("Is working capital positive or negative in FY2021?", None),  # both signs
        ("Is the quick ratio positive and above 1.5 in FY2021?", None),  # a threshold
    ],
)
def test_the_sign_asked(question: str, sign: str | None) -> None:
    assert asked_sign(question) == sign


@pytest.mark.parametrize(
    ("question", "health"),
    [
        (
            "Does AMD have a healthy liquidity profile based on its quick ratio for FY22?",
            True,
        ),
        ("Is Acme's liquidity strong based on its current ratio in FY2023?", True),
        ("Is Acme's quick ratio above 1.5 and healthy in FY2023?", False),  # a threshold
        ("Did Acme's liquidity improve to a healthy level in FY2023?", False),  # a direction
        ("What is Acme's quick ratio in FY2023?", False),
    ],
)
def test_health_asked(question: str, health: bool) -> None:
    assert asks_health(question) is health
