"""The judge's short-answer stage and the question-aware numeric rules, without an LLM."""

from __future__ import annotations

import pytest

from filingqa.metrics.judge import StrictJudge
from filingqa.metrics.short_answer import directions, short_answer_verdict

# (question, gold, prediction, expected score, expected stage)
SHORT_CASES: list[tuple[str, str, str, float, str]] = [
    # polarity, with or without a figure; a program's bool read as yes/no
    ("Has MGM paid dividends in FY2022?", "Yes. It paid $0.01 a share.", "Yes", 1, "polarity"),
    (
        "Does Paypal have positive working capital?",
        "Yes. Paypal has a positive working capital of $1.6Bn.",
        "Yes. The working capital is $5,165 million, which is positive.",
        1,
        "polarity",
    ),
    (
        "Does AMCOR have an improving gross margin?",
        "No. It declined by 0.8%.",
        "False",
        1,
        "polarity",
    ),
    ("Is 3M capital-intensive?", "No, the company manages its CAPEX.", "Yes", 0, "precheck"),
    # a polar question about a direction, answered by the direction alone
    (
        "Looking at VaR, did the risk JPM faced decrease compared to the prior year?",
        "Yes. It decreased.",
        "The risk decreased.",
        1,
        "polarity",
    ),
    (
        "Has Microsoft increased its debt between FY2023 and FY2022?",
        "No. Microsoft decreased its debt by $2.5bn.",
        "Microsoft's debt decreased in FY2023.",
        1,
        "polarity",
    ),
    (
        "Has Microsoft increased its debt between FY2023 and FY2022?",
        "No. Microsoft decreased its debt by $2.5bn.",
        "Its debt increased.",
        0,
        "polarity",
    ),
    # a question offering both ways
    (
        "Has AMCOR's quick ratio improved or declined between FY2023 and FY2022?",
        "The quick ratio has slightly improved from 0.67 times to 0.69 times.",
        "The quick ratio improved by 0.033 between FY2023 and FY2022.",
        1,
        "direction",
    ),
    (
        "Has AMCOR's quick ratio improved or declined between FY2023 and FY2022?",
        "The quick ratio has slightly improved from 0.67 times to 0.69 times.",
        "declined",
        0,
        "direction",
    ),
    (
        "Did Ulta Beauty's wages expense as a percent of net sales increase or decrease?",
        "Wages expense as a percent of net sales increased in FY2023.",
        "improved",
        0,
        "direction",
    ),
    (
        "Did Ulta Beauty's wages expense as a percent of net sales increase or decrease?",
        "Wages expense as a percent of net sales increased in FY2023.",
        "decreased",
        0,
        "direction",
    ),
    (
        "Did Ulta Beauty's wages expense as a percent of net sales increase or decrease?",
        "Wages expense as a percent of net sales increased in FY2023.",
        "It rose.",
        1,
        "direction",
    ),
    # names and short spans: the question's own terms removed
    (
        "What industry does AMCOR primarily operate in?",
        "Amcor is a global leader in packaging production for various use cases.",
        "packaging",
        1,
        "span",
    ),
    (
        "Which region had the Highest EBITDAR Contribution for MGM during FY2022?",
        "Las Vegas resorts contributed ~90% of company level EBITDAR during FY2022.",
        "Las Vegas Strip Resorts",
        1,
        "span",
    ),
    (
        "In 2022 Q2, which of JPM's business segments had the highest net income?",
        "Corporate & Investment Bank. Its net income was $3725 million.",
        "Corporate & Investment Bank",
        1,
        "span",
    ),
    (
        "What are the geographies that American Express primarily operates in?",
        "United States, EMEA, APAC, and LACC",
        "The United States, EMEA, APAC and LACC regions.",
        1,
        "span",
    ),
    # an answer of the question's own words names nothing the gold names
    (
        "In 2022 Q2, which of JPM's business segments had the highest net income?",
        "Corporate & Investment Bank. Its net income was $3725 million.",
        "Net income",
        0,
        "span",
    ),
]

# Golds the exact fallback decided before this stage, decided here now (same words)
SHORT_CASES += [
    ("q?", "Yes", "Yes", 1, "polarity"),
    ("q?", "Yes, one customer accounted for 16% of net revenue", "Yes", 1, "polarity"),
    ("q?", "No, gross margin declined by 0.8%", "False", 1, "polarity"),  # a program's bool
    ("q?", "increased", "It increased", 1, "span"),
    ("q?", "Trillium, Array, and Therachon", "Trillium, Array, and Therachon", 1, "span"),
]

# Answers the stage must leave to the LLM (or the exact fallback): None from the stage.
UNDECIDED_CASES: list[tuple[str, str, str]] = [
    # no term in common: a synonym may still be right
    (
        "What industry does AMCOR primarily operate in?",
        "Amcor is a global leader in packaging production for various use cases.",
        "consumer goods",
    ),
    # one item of a list gold is not the list
    (
        "What are the geographies that Pepsico primarily operates in?",
        "North America, Latin America, Europe, Africa, Middle East, South Asia and China.",
        "Europe",
    ),
    # a long explanatory gold's stray terms make no answer
    (
        "What drove the reduction in SG&A expense as a percent of net sales in FY2023?",
        "Lower marketing expenses and leverage of incentive compensation due to higher "
        "sales. The answer assumes FY2023 refers to the 12 months ended on January 28, 2023.",
        "higher sales",
    ),
    # a choice offered by the question, answered by one of its words
    (
        "Which segment grew faster in FY2022, Consumer or Industrial?",
        "Consumer, driven by strong demand for home products.",
        "Consumer",
    ),
    # a question asking what drove a change is no direction question
    (
        "What drove operating margin change as of FY2022 for 3M?",
        "Operating margin decreased by 1.7% primarily due to a lower gross margin.",
        "Operating margin decreased from 20.8% to 19.1%.",
    ),
]


@pytest.mark.parametrize(("question", "gold", "prediction", "score", "stage"), SHORT_CASES)
def test_short_answers_are_decided_without_an_llm(
    question: str, gold: str, prediction: str, score: float, stage: str
) -> None:
    verdict = StrictJudge(lm=None).judge(question, gold, prediction)
    assert (verdict.score, verdict.stage) == (score, stage), verdict.reason
    assert verdict.reason.startswith(f"{stage}:") or stage == "precheck"


@pytest.mark.parametrize(("question", "gold", "prediction"), UNDECIDED_CASES)
def test_the_stage_leaves_what_words_cannot_decide(
    question: str, gold: str, prediction: str
) -> None:
    assert short_answer_verdict(question, gold, prediction, "explanation") is None


def test_declined_moves_both_the_amount_and_the_quality_down() -> None:
    assert directions("Revenue declined") == {("amount", -1), ("quality", -1)}
    assert directions("improved or worsened") == {("quality", 1), ("quality", -1)}


# (question, gold, prediction, record scale, expected score): the numeric stage reads the
# question for a ratio and for the scale an answer is asked in
QUESTION_AWARE_CASES: list[tuple[str, str, str, str | None, float]] = [
    (
        "What is Block's FY2016 working capital ratio? Round to two decimals.",
        "1.73",
        "1.73 thousand",
        None,
        0,
    ),
    ("What is Adobe's FY2015 operating cash flow ratio?", "0.66", "0.66 million", None, 0),
    ("What is Lockheed Martin's FY2020 asset turnover ratio?", "1.33", "1.33", None, 1),
    ("What is Amazon's FY2017 days payable outstanding (DPO)?", "93.86", "93.86 days", None, 1),
    # a figure with its own scale word still matches the asked scale
    ("How much was the capex? Answer in USD millions.", "$1577.00", "$1.577 billion", "million", 1),
    ("How much was the capex? Answer in USD millions.", "$1577.00", "1,577", "million", 1),
    # no scale given: the gold is in the scale the question asks
    ("How much was the capex? Answer in USD millions.", "$1577.00", "$1.577 billion", None, 1),
    # a bare figure is read in the asked scale: no ×1000 shift
    ("How much total assets? Answer in USD millions.", "$59268.00", "59.268", "million", 0),
    (
        "How much total assets? Answer in USD millions.",
        "$59268.00",
        "$59.268 billion",
        "million",
        1,
    ),
    # no asked scale: the implied-unit shift still applies (TAT-QA tables in thousands)
    ("What was the revenue in 2019?", "59268", "59.268", "thousand", 1),
]


@pytest.mark.parametrize(("question", "gold", "prediction", "scale", "score"), QUESTION_AWARE_CASES)
def test_the_numeric_stage_reads_the_question(
    question: str, gold: str, prediction: str, scale: str | None, score: float
) -> None:
    verdict = StrictJudge(lm=None).judge(question, gold, prediction, scale=scale)
    assert (verdict.score, verdict.stage) == (score, "numeric"), verdict.reason


# (question, gold, prediction, expected score): a bare figure against a gold sentence
SENTENCE_FIGURE_CASES: list[tuple[str, str, str, float]] = [
    (
        "What is the quantity of restructuring costs in Pepsico's income statements for FY2022?",
        "Pepsico's restructuring costs in FY2022 amounted to $411 million .",
        "$411",
        1,
    ),
    (
        "What is the quantity of restructuring costs in Pepsico's income statements for FY2022?",
        "Pepsico's restructuring costs in FY2022 amounted to $411 million .",
        "$947",
        0,
    ),
    (
        "How much may Pepsico borrow under its unsecured revolving credit agreements?",
        "Total amount Pepsico may borrow = $8,400,000,000.",
        "8.4 billion",
        1,
    ),
]


@pytest.mark.parametrize(("question", "gold", "prediction", "score"), SENTENCE_FIGURE_CASES)
def test_a_bare_figure_asked_for_is_judged_against_the_gold_sentences_one_figure(
    question: str, gold: str, prediction: str, score: float
) -> None:
    verdict = StrictJudge(lm=None).judge(question, gold, prediction, answer_type="explanation")
    assert (verdict.score, verdict.stage) == (score, "numeric"), verdict.reason
    assert verdict.reason.startswith("the gold's one figure")


def test_a_figure_is_no_answer_to_which_one() -> None:
    verdict = StrictJudge(lm=None).judge(
        "Which segment has dragged down 3M's overall growth in 2022?",
        "The consumer segment shrunk by 0.9% organically.",
        "0.9%",
    )
    assert verdict.score == 0 and verdict.stage != "numeric"
