"""The strict judge as a DSPy metric (bootstrapping and GEPA forms)."""

from __future__ import annotations

import dspy
from dspy.utils import DummyLM

from filingqa.metrics.dspy_metric import JudgeMetric, judge_feedback_metric, judge_metric


def _example(answer: str, **extra: str) -> dspy.Example:
    return dspy.Example(question="What was it?", answer=answer, **extra).with_inputs("question")


def test_scores_and_bootstrap_booleans() -> None:
    example = _example("$303.00")
    assert judge_metric(example, dspy.Prediction(answer="302.6M")) == 1.0
    assert judge_metric(example, dspy.Prediction(answer="3,030")) == 0.0
    assert judge_metric(example, dspy.Prediction(answer="302.6M"), trace=[]) is True
    assert judge_metric(example, dspy.Prediction(answer="3,030"), trace=[]) is False


def test_example_scale_and_answer_type_are_used() -> None:
    assert judge_metric(_example("24", scale="billion"), dspy.Prediction(answer="24 billion")) == 1
    assert judge_metric(_example("24", scale="billion"), dspy.Prediction(answer="24 million")) == 0
    explained = _example("24", answer_type="explanation")
    assert judge_metric(explained, dspy.Prediction(answer="about 24")) == 1  # exact: no LM set


def test_missing_prediction_answer_scores_zero() -> None:
    assert judge_metric(_example("$303.00"), dspy.Prediction(reasoning="none")) == 0


def test_half_credit_is_not_a_bootstrap_pass() -> None:
    example = _example("the modified retrospective method")
    part = dspy.Prediction(answer="modified retrospective")
    assert judge_metric(example, part) == 0.5
    assert judge_metric(example, part, trace=[]) is False


def test_llm_stage_uses_the_configured_lm_and_stays_out_of_the_trace() -> None:
    lm = DummyLM([{"reason": "the same direction", "score": "1"}])
    example = _example("increased")
    with dspy.context(lm=lm, trace=[]):
        assert judge_metric(example, dspy.Prediction(answer="went up a bit"), dspy.settings.trace)
        assert dspy.settings.trace == []
    assert len(lm.history) == 1


def test_dedicated_judge_lm_overrides_the_program_lm() -> None:
    program_lm = DummyLM([{"reason": "wrong judge", "score": "0"}])
    judge_lm = DummyLM([{"reason": "right judge", "score": "0.5"}])
    metric = JudgeMetric(judge_lm=judge_lm)
    with dspy.context(lm=program_lm):
        score = metric(_example("increased"), dspy.Prediction(answer="went up a bit"))
    assert score == 0.5
    assert program_lm.history == [] and len(judge_lm.history) == 1


def test_use_llm_false_keeps_the_exact_fallback() -> None:
    lm = DummyLM([{"reason": "unused", "score": "1"}])
    with dspy.context(lm=lm):
        example, answer = _example("Trillium and Array"), dspy.Prediction(answer="Therachon")
        verdict = JudgeMetric(use_llm=False).verdict(example, answer)
    assert (verdict.score, verdict.stage) == (0, "exact")
    assert lm.history == []


def test_feedback_metric_for_gepa() -> None:
    result = judge_feedback_metric(_example("$303.00"), dspy.Prediction(answer="3,030"))
    assert isinstance(result, dspy.Prediction)
    assert result.score == 0
    assert "3,030" in result.feedback and "$303.00" in result.feedback
    passed = judge_feedback_metric(
        _example("$303.00"), dspy.Prediction(answer="302.6M"), None, "p", None
    )
    assert passed.score == 1 and passed.feedback.startswith("Score 1 (numeric)")
