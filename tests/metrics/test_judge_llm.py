"""The LLM stage, scripted with DummyLM, and how the judge routes golds to it."""

from __future__ import annotations

import dspy
import pytest
from dspy.utils import DummyLM
from pydantic import ValidationError

from filingqa.metrics.category import infer_category, resolve_category
from filingqa.metrics.judge import StrictJudge, Verdict


def _last_prompt(lm: DummyLM) -> str:
    return lm.history[-1]["messages"][-1]["content"]


@pytest.mark.parametrize(
    ("gold", "prediction", "reply_score", "expected", "category"),
    [
        (
            "Yes, one customer accounted for 16%",
            "One customer made up 16% of its revenue that year",
            "1",
            1.0,
            "yes_no",
        ),
        (
            "No. The quick ratio was 0.54",
            "The quick ratio is 1.2, below what it was",
            "0.5",
            0.5,
            "yes_no",
        ),
        ("increased", "It went up by 3%", "1", 1.0, "span"),
        ("decreased by 1.7%", "It decreased by 2%", "0.5", 0.5, "span"),
        ("Trillium, Array, and Therachon", "Array and Therachon", "0.5", 0.5, "span"),
    ],
)
def test_gated_golds_are_graded_by_the_llm(
    gold: str, prediction: str, reply_score: str, expected: float, category: str
) -> None:
    lm = DummyLM([{"reason": "scripted reason", "score": reply_score}])
    verdict = StrictJudge(lm=lm).judge("Question?", gold, prediction)
    assert verdict == Verdict(score=expected, reason="scripted reason", stage="llm")
    assert len(lm.history) == 1
    prompt = _last_prompt(lm)
    assert f"[[ ## answer_category ## ]]\n{category}" in prompt
    assert gold in prompt and prediction in prompt


def test_number_like_golds_never_call_the_lm() -> None:
    lm = DummyLM([{"reason": "unused", "score": "0"}])
    verdict = StrictJudge(lm=lm).judge("Q?", "$303.00", "302.6M")
    assert (verdict.score, verdict.stage) == (1, "numeric")
    assert lm.history == []


def test_numeric_gold_with_explanation_type_goes_to_the_lm_with_its_scale() -> None:
    lm = DummyLM([{"reason": "same figure", "score": "1"}])
    verdict = StrictJudge(lm=lm).judge(
        "Q?", "24", "twenty-four billion", answer_type="explanation", scale="billion"
    )
    assert verdict.stage == "llm"
    assert "24 (scale: billion)" in _last_prompt(lm)


def test_long_explanations_are_categorized_as_explanation() -> None:
    gold = (
        "Operating margin decreased by 1.7% primarily due to lower gross margin and "
        "one-off charges including Combat Arms earplug litigation costs"
    )
    lm = DummyLM([{"reason": "partly", "score": "0.5"}])
    verdict = StrictJudge(lm=lm).judge("Why?", gold, "Margins fell on litigation.")
    assert verdict.score == 0.5
    assert "[[ ## answer_category ## ]]\nexplanation" in _last_prompt(lm)


def test_judge_calls_do_not_enter_the_program_trace() -> None:
    lm = DummyLM([{"reason": "ok", "score": "1"}])
    with dspy.context(trace=[]):
        StrictJudge(lm=lm).judge("Q?", "Yes", "Yes, it did")
        assert dspy.settings.trace == []


def test_without_an_lm_the_exact_fallback_says_so() -> None:
    verdict = StrictJudge(lm=None).judge(
        "Q?", "the modified retrospective method", "modified retrospective"
    )
    assert verdict.stage == "exact"
    assert verdict.score == 0.5
    assert "no LLM" in verdict.reason


def test_a_yes_no_said_as_the_gold_says_it_never_calls_the_lm() -> None:
    lm = DummyLM([{"reason": "unused", "score": "0"}])
    verdict = StrictJudge(lm=lm).judge("Q?", "No. The quick ratio was 0.54", "No, it is 1.2")
    assert (verdict.score, verdict.stage) == (1, "polarity")
    assert lm.history == []


@pytest.mark.parametrize(
    ("gold", "category"),
    [
        ("$1,577.00", "number"),
        ("65.4%", "number"),
        ("Yes", "yes_no"),
        ("No. It decreased.", "yes_no"),
        ("Developed Rest of the World", "span"),
        ("increased", "span"),
        (" ".join(["word"] * 13), "explanation"),
    ],
)
def test_infer_category(gold: str, category: str) -> None:
    assert infer_category(gold) == category


def test_resolve_category_maps_dataset_types_and_keeps_numeric_spans_numeric() -> None:
    assert resolve_category("arithmetic", "-12.6") == "number"
    assert resolve_category("multi-span", "fixed-price type") == "span"
    assert resolve_category("span", "$1,496.5") == "number"
    assert resolve_category("explanation", "$1,496.5") == "explanation"
    assert resolve_category("unheard-of", "Yes") == "yes_no"


def test_verdict_rejects_scores_outside_the_three_levels() -> None:
    with pytest.raises(ValidationError):
        Verdict(score=0.7, reason="x", stage="llm")


@pytest.mark.parametrize(
    ("reason", "expected"),
    [
        ("The predicted answer '112' does not match the gold answer '$411 million'.", 0.0),
        ("The predicted answer is incorrect: the gold names Corporate & Investment Bank.", 0.0),
        ("It gives no segment, which is different from the gold answer.", 0.0),
        ("Same polarity, and the 16% figure agrees with the gold.", 0.5),
    ],
)
def test_a_score_its_own_reason_contradicts_is_zero(reason: str, expected: float) -> None:
    lm = DummyLM([{"reason": reason, "score": "0.5"}])
    verdict = StrictJudge(lm=lm).judge("Question?", "Corporate & Investment Bank", "Retail")
    assert (verdict.score, verdict.stage) == (expected, "llm")
    assert verdict.reason.startswith(reason)
