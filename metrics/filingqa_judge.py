"""The filingqa strict judge as an ``evaluate`` metric (deterministic stages + exact fallback,
no LLM).

Load it offline by path: ``evaluate.load("/path/to/metrics/filingqa_judge.py")``.
"""

from __future__ import annotations

from collections.abc import Sequence

import datasets
import evaluate

from filingqa.metrics.judge import StrictJudge

_DESCRIPTION = """\
Scores predicted answers to questions about financial filings against gold answers with
filingqa's strict judge, without an LLM: number-like golds are decided numerically (±2%
or equal at the gold's precision, with scale, unit-shift and explicit percent handling);
yes/no, directions, names and spans by word-level reading where it decides; other golds by
a normalized exact/contains match.
"""

_KWARGS_DESCRIPTION = """\
Args:
    predictions: predicted answers (strings).
    references: gold answers (strings).
    questions: optional questions, one per item (they tell a ratio, an asked scale, a
        direction question and the terms a span shares with the question).
    scales: optional record scales ("", "thousand", "million", "billion", "percent"); an
        item without one takes the scale its question asks.
    units: optional record units (e.g. "percent", "USD").
    answer_types: optional categories or dataset answer types ("number", "span", ...).
Returns:
    score: the mean score.
    scores: the score of each item, each 0, 0.5 or 1.
Examples:
    >>> judge = evaluate.load("metrics/filingqa_judge.py")
    >>> judge.compute(predictions=["302.6M"], references=["$303.00"])
    {'score': 1.0, 'scores': [1.0]}
"""

_CITATION = ""


def _column(values: Sequence[str | None] | None, size: int) -> list[str | None]:
    """An optional per-item column, or Nones; its length must match the predictions."""
    if values is None:
        return [None] * size
    if len(values) != size:
        raise ValueError(f"expected {size} values per optional column, got {len(values)}")
    return list(values)


class FilingqaJudge(evaluate.Metric):
    """filingqa's strict judge, deterministic stages only."""

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {"predictions": datasets.Value("string"), "references": datasets.Value("string")}
            ),
        )

    def _compute(
        self,
        predictions: list[str],
        references: list[str],
        questions: Sequence[str] | None = None,
        scales: Sequence[str | None] | None = None,
        units: Sequence[str | None] | None = None,
        answer_types: Sequence[str | None] | None = None,
    ) -> dict[str, float | list[float]]:
        size = len(predictions)
        judge = StrictJudge(lm=None)
        rows = zip(
            predictions,
            references,
            _column(questions, size),
            _column(scales, size),
            _column(units, size),
            _column(answer_types, size),
            strict=True,
        )
        scores = [
            judge.judge(
                question or "", gold, prediction, answer_type=kind, scale=scale, unit=unit
            ).score
            for prediction, gold, question, scale, unit, kind in rows
        ]
        return {"score": sum(scores) / size if size else 0.0, "scores": scores}
