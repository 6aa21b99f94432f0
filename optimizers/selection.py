"""Keep the compiled program only when it beats the uncompiled one on dev, paired.

An optimizer always returns its best candidate, and on a small dev draw the best of a few
candidates wins by noise alone: the local model's first compile kept a bootstrapped demo
on a dev gain within noise, and the same kind of demo then lost to zero-shot on other
questions (``benchmarks/pot_demos.py``; figures: docs/experiments.md). So the two
programs' dev rows are compared question by question, and the compiled one replaces the
uncompiled one only if it wins more questions than it loses with a one-sided sign test
p-value at most ``max_p_value``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from filingqa.artifacts.manifest import Selection
from filingqa.evaluation.paired import paired_outcomes, sign_test

if TYPE_CHECKING:
    from filingqa.evaluation.runner import Row


def select_program(before: Sequence[Row], after: Sequence[Row], max_p_value: float) -> Selection:
    """Compare the uncompiled (``before``) and compiled (``after``) dev rows by question id.

    Raises:
        ValueError: the two runs did not answer the same questions.
    """
    wins, losses = paired_outcomes(before, after)
    p_value = sign_test(wins, losses)
    better = wins > losses and p_value <= max_p_value
    return Selection(
        kept="compiled" if better else "uncompiled",
        wins=wins,
        losses=losses,
        p_value=round(p_value, 4),
        max_p_value=max_p_value,
    )
