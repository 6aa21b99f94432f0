"""Two settings compared question by question: wins, losses and the sign test."""

from __future__ import annotations

from collections.abc import Sequence
from math import comb
from typing import TYPE_CHECKING

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
