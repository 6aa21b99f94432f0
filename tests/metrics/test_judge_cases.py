"""Hand-written judge cases: the numeric stage's tolerance rules and the gate, without an LLM."""

from __future__ import annotations

from typing import Any

import pytest
from dspy.utils import DummyLM

from filingqa.metrics.judge import StrictJudge
from filingqa.metrics.numeric import numeric_verdict
from filingqa.metrics.precheck import precheck

# (prediction, gold, judge keyword arguments, expected score)
NUMERIC_CASES: list[tuple[str, str, dict[str, Any], float]] = [
    # the required cases
    ("302.6M", "$303.00", {}, 1),
    ("0.01425", "0.01", {}, 1),
    ("$4.625B", "$4.60B", {}, 1),
    ("3,030", "303", {}, 0),
    ("-12.6", "12.6", {}, 0),
    ("14.86%", "0.1486", {"unit": "percent"}, 1),
    ("24 billion", "24", {"scale": "billion"}, 1),
    # parentheses negatives and signs
    ("(1,234)", "-1234", {}, 1),
    ("-1,234", "(1,234)", {}, 1),
    ("$(12.5)", "-12.5", {}, 1),
    ("(1,234)", "1234", {}, 0),
    ("−12.6", "-12.6", {}, 1),
    ("-$1,561M", "-1561", {}, 1),
    ("$1,561M", "-1561", {}, 0),
    ("22.22%", "-22.22", {"scale": "percent"}, 0),
    # scale words and ×1000 / ÷1000 unit shifts
    ("1,577 million", "$1.577 billion", {}, 1),
    ("$1.577 billion", "$1577.00", {}, 1),
    ("1577", "$1.577 billion", {}, 1),
    ("24,000", "24", {"scale": "billion"}, 1),
    ("1.2bn", "$1,200 million", {}, 1),
    ("8.4 billion", "$8,400,000,000", {}, 1),
    ("1496.5 million", "1,496.5", {"scale": "million"}, 1),
    ("1.4965 billion", "1,496.5", {"scale": "million"}, 1),
    ("$1,496.5", "$1,496.5", {"answer_type": "span", "scale": "million"}, 1),
    ("24 million", "24", {"scale": "billion"}, 0),
    ("24 thousand", "24 million", {}, 0),
    ("12.6 million", "12.6", {"scale": "thousand"}, 0),
    ("$8.4 million", "$8,400,000,000", {}, 0),
    ("14.9 billion", "1,496.5", {"scale": "million"}, 0),
    ("30.3", "303", {}, 0),
    # percent ↔ fraction only when explicit
    ("14.86%", "0.1486", {}, 1),
    ("0.1486", "14.86%", {}, 1),
    ("14.86", "0.1486", {"unit": "percent"}, 1),
    # scale percent: the gold is in percent points, so only fraction → points is a reading
    ("0.05", "5", {"scale": "percent"}, 1),
    ("500", "5", {"scale": "percent"}, 0),
    ("8.33", "0.08", {"scale": "percent"}, 0),
    ("-22.22%", "-22.22", {"scale": "percent"}, 1),
    ("5%", "5", {}, 1),
    ("14.86", "0.1486", {}, 0),
    ("0.1486", "14.86", {}, 0),
    ("0.05", "5", {}, 0),
    ("1486%", "14.86%", {}, 0),
    # the ±2% band and the gold's precision
    ("41.0", "40.0", {}, 0),
    ("102.5", "100", {}, 0),
    ("97.6", "100.0", {}, 0),
    ("101.9", "100", {}, 1),
    ("1.98%", "2%", {}, 1),
    ("56.2%", "56%", {}, 1),
    ("0.016", "0.01", {}, 0),
    ("$0.40", "$0.40", {}, 1),
    ("0.4", "$0.40", {}, 1),
    ("$0.41", "$0.40", {}, 0),
    ("0", "0", {}, 1),
    ("0.6", "0", {}, 0),
    ("0.5", "0", {}, 0),  # FinanceBench: "restructuring costs … if none, state 0"
    ("0.4", "0", {}, 0),  # a gold of 0 is met exactly
    ("2.35", "2.4", {}, 1),  # half a unit rounds away from zero: onto the gold
    ("2.45", "2.4", {}, 0),  # … or off it
    ("1.5", "1", {}, 0),
    ("1,600", "2", {}, 0),
    ("12,5 %", "12.5%", {}, 1),
    ("9.5x", "9.5", {}, 1),
    ("1,577", "$1,577.00", {}, 1),
    # which number in a longer prediction counts
    ("The answer is 1.73", "1.73", {}, 1),
    ("Revenue was $5.2 billion in 2022", "$5.2 billion", {}, 1),
    ("(120 - 100) / 100 = 20%", "20%", {}, 1),
    ("20% (from 120 vs 100)", "20%", {}, 1),
    ("It is 300, not 400, maybe 500", "400", {}, 0),
    ("N/A", "$303.00", {}, 0),
    ("—", "12.6", {}, 0),
    ("", "12.6", {}, 0),
    # years and counts
    ("2019", "2019", {}, 1),
    ("In fiscal 2019", "2019", {}, 1),
    ("2018", "2019", {}, 0),
    ("2", "2", {"answer_type": "count"}, 1),
    ("3", "2", {"answer_type": "count"}, 0),
]


@pytest.mark.parametrize(("prediction", "gold", "options", "expected"), NUMERIC_CASES)
def test_numeric_stage_decides_number_like_golds(
    prediction: str, gold: str, options: dict[str, Any], expected: float
) -> None:
    verdict = StrictJudge(lm=None).judge("q?", gold, prediction, **options)
    assert verdict.stage == "numeric"
    assert verdict.score == expected, verdict.reason


# (prediction, gold, answer_type, expected score): golds the numeric stage must not decide
GATED_CASES: list[tuple[str, str, str | None, float]] = [
    ("decreased", "increased", None, 0),
    ("1.7%", "decreased by 1.7%", None, 0),
    ("0.9%", "The consumer segment shrunk by 0.9% organically.", None, 0),
    ("It was 24", "24", "explanation", 1),
    # a contiguous part of the gold with two thirds of its content words: half, never 1
    ("modified retrospective", "the modified retrospective method", None, 0.5),
    ("The Modified Retrospective", "the modified retrospective method", None, 0.5),
    ("retrospective", "the modified retrospective method", None, 0),  # one of three words
    ("modified method", "the modified retrospective method", None, 0),  # not contiguous
    ("of the", "the modified retrospective method", None, 0),
    ("cost of revenue", "cost of revenue and operating expenses", "span", 0),  # 2 of 4
    ("cost of revenue and operating", "cost of revenue and operating expenses", "span", 0.5),
]


@pytest.mark.parametrize(("prediction", "gold", "answer_type", "expected"), GATED_CASES)
def test_non_numeric_golds_use_the_exact_fallback_without_an_lm(
    prediction: str, gold: str, answer_type: str | None, expected: float
) -> None:
    assert numeric_verdict(gold, prediction) is None or answer_type is not None
    verdict = StrictJudge(lm=None).judge("q?", gold, prediction, answer_type=answer_type)
    assert verdict.stage == "exact"
    assert verdict.score == expected
    assert "no LLM" in verdict.reason or "empty" in verdict.reason


@pytest.mark.parametrize(
    ("prediction", "expected"),
    [
        ("73,260; 57,768", 1),
        ("73,260 thousand; 57,768 thousand", 1),  # the gold's scale, stated
        ("73,260 million; 57,768 million", 0),  # another scale
        ("73,260; 57,768 thousand employees", 1),
    ],
)
def test_a_listed_figure_may_state_the_gold_scale(prediction: str, expected: float) -> None:
    verdict = StrictJudge(lm=None).judge(
        "q?", "73,260; 57,768", prediction, answer_type="multi_span", scale="thousand"
    )
    assert (verdict.stage, verdict.score) == ("exact", expected)


# (prediction, gold, answer_type): plainly wrong, 0 before any LLM is asked
PRECHECK_CASES: list[tuple[str, str, str | None]] = [
    ("", "Yes", None),
    ("not stated in the evidence", "The consumer segment shrunk by 0.9% organically.", None),
    ("The figure cannot be determined from the filing.", "Amcor makes packaging", None),
    ("The evidence does not provide any information about Amcor's dividends.", "Yes", None),
    ("There is no information on Amcor's segments.", "Flexibles and Rigid Packaging", None),
    ("The evidence does not provide any information about 3M's dividends.", "Yes, 65 years", None),
    (  # the question's date is no figure of an answer
        "The evidence does not provide any information about the key agenda of the AMCOR's 8k "
        "filing dated 1st July 2022.",
        "Amcor Finance (USA), Inc. entered into supplemental indentures",
        None,
    ),
    ("Yes", "No. The quick ratio was 0.54 for Verizon.", None),
    ("False", "Yes, one customer accounted for 16% of net revenue", None),  # a bool says no
    ("No, it does not.", "Yes, one customer accounted for 16% of net revenue", None),
    ("3M", "No, the company is managing its CAPEX efficiently", None),
    ("1.48", "Yes. The quick ratio is 1.57", "yes_no"),
    ("It was 25", "24", "explanation"),
    ("112", "Pepsico's restructuring costs in FY2022 amounted to $411 million.", None),
    ("1.16", "The quick ratio has slightly improved from 0.67 times to 0.69 times in 2023", None),
    # the program's failure notices (the 1.5B judge gave the first 0.5)
    ("no answer (reason 1: truncated_output)", "Yes, it fell by 1.1%", None),
    (
        "no answer: its figures are not in the evidence",
        "Operating activities brought in the most",
        None,
    ),
]


@pytest.mark.parametrize(("prediction", "gold", "answer_type"), PRECHECK_CASES)
def test_plainly_wrong_answers_are_zero_without_asking_the_lm(
    prediction: str, gold: str, answer_type: str | None
) -> None:
    lm = DummyLM([])  # any LM call would fail: it has no replies
    verdict = StrictJudge(lm=lm).judge("q?", gold, prediction, answer_type=answer_type)
    assert (verdict.score, verdict.stage) == (0, "precheck")
    assert not lm.history


@pytest.mark.parametrize(
    ("prediction", "gold"),
    [
        ("not stated in the evidence", "The information is not disclosed."),  # gold refuses
        ("Revenue grew 4%; the segment split is not disclosed in the filing.", "Yes"),
        ("It improved from 0.67 to 0.82", "Yes, it improved"),  # a direction, no yes
        ("False", "No. For AMCOR there has been a slight decline in gross margins by 0.8%."),
        ("411", "Restructuring costs in FY2022 amounted to $411 million."),  # the gold's figure
        ("$4.2 billion", "Pepsico may borrow up to $4,200 million under the agreement"),
        ("Costs were 112 million, up on the plan", "Costs amounted to $411 million."),  # prose
        ("3.0%", "The rate dropped from 24.6% in FY 2021 to 21.6% in FY 2022."),  # a difference
        ("12.2%", "The rate dropped from 24.6% in FY 2021 to 21.6% in FY 2022."),  # a change
    ],
)
def test_answers_the_precheck_cannot_decide_go_on_to_the_judge(prediction: str, gold: str) -> None:
    category = "yes_no" if gold.startswith(("Yes", "No")) else "span"
    assert precheck(gold, prediction, category) is None


def test_there_are_at_least_sixty_hand_written_cases() -> None:
    assert len(NUMERIC_CASES) + len(GATED_CASES) + len(PRECHECK_CASES) >= 60


def test_numeric_reason_names_the_matching_rule() -> None:
    verdict = numeric_verdict("$1.577 billion", "1,577 million")
    assert verdict is not None
    assert "1,577 million" in verdict.reason
    assert "base units" in verdict.reason


def test_float_gold_and_prediction_are_judged_as_text() -> None:
    verdict = StrictJudge().judge("q?", 0.1486, 0.1489)
    assert (verdict.score, verdict.stage) == (1, "numeric")
    tiny = StrictJudge().judge("q?", 1e-05, "0.00001")
    assert (tiny.score, tiny.stage) == (1, "numeric")


def test_a_not_indexed_answer_scores_zero_without_reading_its_figures() -> None:
    answer = "Not in the index: no filing of AES is indexed (the index holds filings of 3M)."
    verdict = StrictJudge().judge("AES's FY2022 ROA?", "-0.02", answer, answer_type="number")
    assert (verdict.score, verdict.stage) == (0, "precheck")
    assert verdict.reason == "pre-check: answered not in the index"
