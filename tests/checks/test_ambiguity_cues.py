import pytest

from filingqa.checks.ambiguity_cues import ambiguity_cue


@pytest.mark.parametrize(
    ("question", "cue"),
    [
        ("Which Best Buy category did best by top line in Q2 FY2024?", "best"),
        ("Does Corning have positive working capital based on FY2022 data?", "working capital"),
        ("What is the FY2022 unadjusted EBITDA less capex for PepsiCo?", "unadjusted"),
        ("Which region had the Highest EBITDAR Contribution for MGM?", "highest"),
        ("Which segment had the larger operating income?", "larger"),
    ],
)
def test_qualifiers_and_terms_with_competing_definitions_are_cues(question, cue) -> None:
    assert ambiguity_cue(question) == cue


@pytest.mark.parametrize(
    "question",
    [
        "What was the change in Other in 2019 from 2018?",
        "What is 3M's FY2018 capital expenditure in USD millions?",
        "What is the percentage change in total revenue between 2018 and 2019?",
        "How much did the company spend on the topical cream keyword?",  # 'top' inside a word
    ],
)
def test_questions_without_a_cue_have_a_single_reading(question) -> None:
    assert ambiguity_cue(question) is None
