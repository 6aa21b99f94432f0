"""Keep the compiled program only when it beats the uncompiled one on dev, paired.

An optimizer always returns its best candidate, and on a small dev draw the best of a few
candidates wins by noise alone: the local model's first compile kept a bootstrapped demo
on a dev gain within noise, and the same kind of demo then lost to zero-shot on other
questions (``benchmarks/pot_demos.py``; figures: README, "Compiling"). So the two
programs' dev rows are compared question by question, and the compiled one replaces the
uncompiled one only if it wins more questions than it loses with a one-sided sign test
p-value at most ``max_p_value``.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb
from typing import TYPE_CHECKING

from filingqa.artifacts.manifest import Selection

if TYPE_CHECKING:
    from filingqa.evaluation.runner import Row


def sign_test(wins: int, losses: int) -> float:
    """P(at least ``wins`` successes in ``wins + losses`` fair coin flips); 1.0 for none."""
    if wins < 0 or losses < 0:
        raise ValueError("wins and losses are counts")
    n = wins + losses
    return sum(comb(n, k) for k in range(wins, n + 1)) / 2**n


def paired_outcomes(baseline: Sequence[Row], candidate: Sequence[Row]) -> tuple[int, int]:
    """How many questions ``candidate`` scores higher on than ``baseline`` (wins), and lower
    (losses), rows matched by question id.

    Raises:
        ValueError: the two runs did not answer the same questions.
    """
    old = {row.id: row.score for row in baseline}
    new = {row.id: row.score for row in candidate}
    if old.keys() != new.keys():
        raise ValueError("the two runs cover different questions")
    return sum(new[q] > old[q] for q in old), sum(new[q] < old[q] for q in old)


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
