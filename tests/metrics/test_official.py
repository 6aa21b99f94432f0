"""The official FinQA execution accuracy and TAT-QA EM / F1 on hand-made cases."""

from __future__ import annotations

import pytest

from filingqa.metrics.finqa_official import (
    finqa_execution_accuracy,
    finqa_execution_match,
    finqa_normalize,
)
from filingqa.metrics.tatqa_official import TatqaScore, tatqa_mean, tatqa_score


@pytest.mark.parametrize(
    ("gold", "predicted", "expected"),
    [
        (0.56197, 0.56197, True),
        (0.56197, "0.56197", True),
        (0.56197, 0.561971, True),
        (0.56197, 0.5620, False),
        (127.4, 127.40000001, True),
        (14.1, 0.141, False),
        (-3.2, 3.2, False),
        ("yes", "Yes", True),
        ("no", " no ", True),
        ("yes", "no", False),
        (1.0, "yes", False),
        (127.4, "abc", False),
        (127.4, None, False),
        (None, None, False),
    ],
)
def test_finqa_execution_match(gold: object, predicted: object, expected: bool) -> None:
    assert finqa_execution_match(gold, predicted) is expected  # type: ignore[arg-type]


def test_finqa_execution_accuracy_is_the_mean_match() -> None:
    assert finqa_execution_accuracy([0.5, "yes", 3.0], [0.5, "no", 3.000001]) == pytest.approx(
        2 / 3
    )
    assert finqa_execution_accuracy([], []) == 0.0
    with pytest.raises(ValueError):
        finqa_execution_accuracy([1.0], [])


def test_finqa_normalize_rounds_to_five_places() -> None:
    assert finqa_normalize(0.1446449) == 0.14464
    assert finqa_normalize(float("nan")) is None


@pytest.mark.parametrize(
    ("gold", "gold_scale", "predicted", "predicted_scale", "answer_type", "em", "f1"),
    [
        (-12.6, "million", -12.6, "million", "arithmetic", 1, 1),
        (-12.6, "million", "-12.60", "million", "arithmetic", 1, 1),
        (-12.6, "million", "(12.6)", "million", "arithmetic", 1, 1),
        (-12.6, "million", -12.6, "thousand", "arithmetic", 0, 0),
        (-12.6, "million", -12.6, "", "arithmetic", 0, 0),
        (-12.6, "million", -12.5, "million", "arithmetic", 0, 0),
        (-22.22, "percent", "-22.22%", "percent", "arithmetic", 1, 1),
        ("2", "", "2", "", "count", 1, 1),
        (["$1,496.5"], "million", "1496.5", "million", "span", 1, 1),
        (["$1,496.5"], "million", "1496.5", "thousand", "span", 0, 0),
        (["Annual basis"], "", "annual basis.", "", "span", 1, 1),
        (["Annual basis"], "", "Annual basis", "million", "span", 1, 1),
        (["the Annual basis"], "", "on an annual basis", "", "span", 0, 0.8),
        (["revenue of 2019"], "", "revenue of 2018", "", "span", 0, 0),
        (["", "x"], "", "", "", "span", 0, 0),
    ],
)
def test_tatqa_scores_answer_and_scale_together(
    gold: object,
    gold_scale: str,
    predicted: object,
    predicted_scale: str,
    answer_type: str,
    em: float,
    f1: float,
) -> None:
    score = tatqa_score(gold, gold_scale, predicted, predicted_scale, answer_type)  # type: ignore[arg-type]
    assert score.exact_match == em
    assert score.f1 == pytest.approx(f1)


def test_tatqa_multi_span_is_order_free_and_aligned() -> None:
    gold = ["fixed-price type", "cost-plus type", "time-and-material type"]
    reordered = tatqa_score(gold, "", list(reversed(gold)), "", "multi-span")
    assert reordered == TatqaScore(exact_match=1.0, f1=1.0)
    partial = tatqa_score(gold, "", ["cost-plus type", "fixed-price type"], "", "multi-span")
    assert partial.exact_match == 0.0
    assert partial.f1 == pytest.approx(2 / 3)


def test_tatqa_multi_span_partial_tokens_and_numbers() -> None:
    gold = ["73,260", "57,768"]
    assert tatqa_score(gold, "thousand", ["57768", "73260"], "thousand", "multi-span").f1 == 1.0
    half = tatqa_score(gold, "thousand", ["73260", "57,000"], "thousand", "multi-span")
    assert half.f1 == pytest.approx(0.5)
    words = tatqa_score(["Transportation Solutions"], "", ["Transportation"], "", "span")
    assert words.f1 == pytest.approx(2 / 3)


def test_tatqa_empty_prediction_scores_zero_and_mean() -> None:
    assert tatqa_score(["x"], "", None, "") == TatqaScore(0.0, 0.0)
    assert tatqa_score(["x"], "", [], "") == TatqaScore(0.0, 0.0)
    mean = tatqa_mean([TatqaScore(1.0, 1.0), TatqaScore(0.0, 0.5)])
    assert mean == TatqaScore(exact_match=0.5, f1=0.75)
    assert tatqa_mean([]) == TatqaScore(0.0, 0.0)
