"""FinQA execution accuracy, as the official FinQA evaluation scores it.

The executed gold (``exe_ans``) and the predicted value are compared after rounding both
to 5 decimal places; ``"yes"``/``"no"`` (from the ``greater`` op) compare as strings.
There is no unit, percent or tolerance handling: ``14.1`` does not match ``0.141``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

FinqaValue = float | int | str | None

DECIMALS = 5
POLAR_ANSWERS = frozenset({"yes", "no"})


def finqa_normalize(value: FinqaValue) -> float | str | None:
    """A value as FinQA compares it: yes/no lower-cased, numbers rounded; None if neither."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return round(float(value), DECIMALS) if math.isfinite(value) else None
    text = value.strip().lower()
    if text in POLAR_ANSWERS:
        return text
    try:
        number = float(text)
    except ValueError:
        return None
    return round(number, DECIMALS) if math.isfinite(number) else None


def finqa_execution_match(gold: FinqaValue, predicted: FinqaValue) -> bool:
    """Whether the predicted value equals the gold ``exe_ans`` under FinQA's rounding."""
    expected = finqa_normalize(gold)
    return expected is not None and expected == finqa_normalize(predicted)


def finqa_execution_accuracy(
    golds: Sequence[FinqaValue], predictions: Sequence[FinqaValue]
) -> float:
    """Mean execution match over paired golds and predictions (0.0 for no items)."""
    if len(golds) != len(predictions):
        raise ValueError(f"{len(golds)} golds but {len(predictions)} predictions")
    if not golds:
        return 0.0
    return sum(map(finqa_execution_match, golds, predictions)) / len(golds)
