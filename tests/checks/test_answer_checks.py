"""The automatic checks: figures copied at the wrong scale are named as such."""

from filingqa.checks.answer_checks import automatic_checks

from ..kit.passages import passage

INCOME = passage(
    "ACME_2024_10K:p5:tab1", "(In millions)\n| | 2024 | 2023 |\n| Net income | 11,588 | 9,877 |"
)


def test_a_figure_copied_at_the_wrong_scale_is_named_with_the_figure_printed() -> None:
    report = automatic_checks("result = 11.588 - 0.5", 11.088, [INCOME])
    assert report.untraced == [0.5, 11.588]
    assert report.problems == [
        "numbers not found in the evidence: 0.5",
        "figures copied at the wrong scale: 11.588 where the evidence prints 11,588. Copy each "
        "figure as printed (a comma separates thousands) and keep the evidence's scale; do not "
        "convert it",
    ]


def test_a_figure_copied_as_printed_passes() -> None:
    assert automatic_checks("result = 11588 - 9877", 1711, [INCOME]).problems == []


def test_an_answer_in_words_at_the_wrong_scale_is_a_problem() -> None:
    report = automatic_checks("", None, [INCOME], answer="Net income was $11.59 million.")
    assert report.problems == [
        "the answer states figures at the wrong scale: $11.59 million (the evidence: 11,588 "
        "million)"
    ]
    assert automatic_checks("", None, [INCOME], answer="It was $11.59 billion.").problems == []
