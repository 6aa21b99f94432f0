"""The compile-time DSPy metric: the strict judge on an example and a program prediction.

Examples carry ``question`` and ``answer`` (the gold), optionally ``scale``, ``unit`` and
``answer_type``; predictions carry ``answer``.

Which LM grades the non-numeric answers: the ``judge_lm`` given to :class:`JudgeMetric`
when there is one, else ``dspy.settings.lm`` at call time, i.e. the LM the program is being
compiled with. That default keeps compiling self-contained (one embedded model, no second
one to load) at the cost of the model grading its own kind of output; pass a stronger
``judge_lm`` when one is available. With ``use_llm=False``, or when no LM is set at all,
those answers fall back to the judge's normalized exact match.
"""

from __future__ import annotations

from typing import Any

import dspy

from filingqa.metrics.judge import StrictJudge
from filingqa.metrics.verdict import Verdict


class JudgeMetric:
    """The strict judge as a DSPy metric, with an optional dedicated judge LM."""

    def __init__(self, judge_lm: dspy.BaseLM | None = None, *, use_llm: bool = True) -> None:
        self.judge_lm = judge_lm
        self.use_llm = use_llm

    def verdict(self, example: dspy.Example, prediction: dspy.Prediction) -> Verdict:
        """Judge ``prediction.answer`` against ``example.answer``."""
        lm = (self.judge_lm or dspy.settings.lm) if self.use_llm else None
        return StrictJudge(lm=lm).judge(
            example.question,
            example.answer,
            getattr(prediction, "answer", None),
            answer_type=example.get("answer_type"),
            scale=example.get("scale"),
            unit=example.get("unit"),
        )

    def __call__(
        self, example: dspy.Example, prediction: dspy.Prediction, trace: Any = None
    ) -> float | bool:
        """The score; while bootstrapping (``trace`` given) only a full score passes."""
        score = self.verdict(example, prediction).score
        return score == 1 if trace is not None else score

    def feedback(
        self,
        gold: dspy.Example,
        pred: dspy.Prediction,
        trace: Any = None,
        pred_name: str | None = None,
        pred_trace: Any = None,
    ) -> dspy.Prediction:
        """GEPA's form: the score with the judge's reason and the gold answer as feedback."""
        verdict = self.verdict(gold, pred)
        feedback = f"Score {verdict.score:g} ({verdict.stage}): {verdict.reason}"
        return dspy.Prediction(score=verdict.score, feedback=f"{feedback} Gold: {gold.answer}")


def judge_metric(
    example: dspy.Example, prediction: dspy.Prediction, trace: Any = None
) -> float | bool:
    """The strict judge's score (a bool ``score == 1`` when ``trace`` is given)."""
    return JudgeMetric()(example, prediction, trace)


def judge_feedback_metric(
    gold: dspy.Example,
    pred: dspy.Prediction,
    trace: Any = None,
    pred_name: str | None = None,
    pred_trace: Any = None,
) -> dspy.Prediction:
    """The strict judge for GEPA: ``dspy.Prediction(score=..., feedback=reason)``."""
    return JudgeMetric().feedback(gold, pred, trace, pred_name, pred_trace)
