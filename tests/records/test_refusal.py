"""The refusal classification."""

import pytest

from filingqa.records.refusal import is_refusal


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Cannot determine from the provided evidence.",
        "The capex figure is not provided.",
        "Insufficient information to answer.",
        "I am unable to find it.",
    ],
)
def test_refusals_are_recognised(text: str) -> None:
    assert is_refusal(text)


@pytest.mark.parametrize("text", ["4,186.3 million", "Yes, revenue grew 7.3%."])
def test_answers_are_not_refusals(text: str) -> None:
    assert not is_refusal(text)
