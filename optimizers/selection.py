"""Keep the compiled program only when it beats the uncompiled one on dev, paired, or costs
less there and is not told worse, and holds on questions it was not chosen on.

An optimizer always returns its best candidate, and on a small dev draw the best of a few
candidates wins by noise alone: the local model's first compile kept a bootstrapped demo
on a dev gain within noise, and the same kind of demo then lost to zero-shot on other
questions (``benchmarks/pot_demos.py``; figures: docs/experiments.md). So the two
programs' dev rows are compared question by question, and the compiled one goes on if it
wins more questions than it loses with a one-sided sign-test p-value at most
``max_p_value``, or if it is cheaper (cold seconds per question, beyond the clock's noise)
and the sign test does not call it worse (:func:`select_program`): the cost rule of
:mod:`~filingqa.optimizers.cost_selection`, applied to the compiled program as a whole. It
is then answered on a confirmation draw that shares no context with the questions it was
chosen on, and kept only if the cost rule keeps it there (:func:`confirm`): the cheaper of
the two programs (the more accurate when they cost the same), unless the sign test tells
the costlier one better.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from filingqa.artifacts.manifest import Confirmation, Selection
from filingqa.evaluation.paired import paired_outcomes, sign_test
from filingqa.optimizers.cost_selection import (
    cheaper_unless_told_worse,
    cheapest_tied,
    mean_seconds,
    same_cost,
)

if TYPE_CHECKING:
    from filingqa.evaluation.runner import Row


def select_program(before: Sequence[Row], after: Sequence[Row], max_p_value: float) -> Selection:
    """Compare the uncompiled (``before``) and compiled (``after``) dev rows by question id:
    the compiled program goes on if it wins at ``max_p_value``, or is cheaper and not told
    worse at it.

    Raises:
        ValueError: the two runs did not answer the same questions.
    """
    wins, losses = paired_outcomes(before, after)
    p_value = sign_test(wins, losses)
    seconds = {
        "uncompiled": mean_seconds(before, before),
        "compiled": mean_seconds(after, before),
    }
    selection = Selection(
        kept="uncompiled",
        wins=wins,
        losses=losses,
        p_value=round(p_value, 4),
        max_p_value=max_p_value,
        seconds={key: round(value, 2) for key, value in seconds.items()},
    )
    compiled, uncompiled = seconds["compiled"], seconds["uncompiled"]
    cheaper = compiled < uncompiled and not same_cost(uncompiled, compiled)
    if selection.won_dev or (
        cheaper and cheaper_unless_told_worse(compiled, uncompiled, wins, losses, max_p_value)
    ):
        return selection.model_copy(update={"kept": "compiled"})
    return selection


def confirm(
    before: Sequence[Row],
    after: Sequence[Row],
    max_p_value: float,
    *,
    start: str = "uncompiled",
    candidate: str = "compiled",
) -> Confirmation:
    """The ``start``'s rows (``before``) and the ``candidate``'s (``after``) on the
    confirmation draw, and the one kept there: the cheaper, cold seconds per question
    (the more accurate at the same cost), unless the sign test at ``max_p_value`` tells
    the other better (:func:`~filingqa.optimizers.cost_selection.cheapest_tied`).

    Raises:
        ValueError: the two runs did not answer the same questions, or none, or the two
            share a name.
    """
    if not before:
        raise ValueError("no confirmation questions")
    if start == candidate:
        raise ValueError(f"the start and the candidate are both {start!r}")
    rows = {start: before, candidate: after}
    costed = {c.key: c for c in cheapest_tied(rows, start, max_p_value=max_p_value)}
    wins, losses = paired_outcomes(before, after)
    return Confirmation(
        start=start,
        candidate=candidate,
        kept=candidate if costed[candidate].verdict == "kept" else start,
        questions=len(before),
        wins=wins,
        losses=losses,
        accuracy={key: costed[key].accuracy for key in rows},
        seconds={key: costed[key].seconds for key in rows},
    )
