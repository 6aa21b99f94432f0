"""The router stage's choice: the cost rule between the trained router and the loop policy."""

from __future__ import annotations

from filingqa.optimizers.compile_stages import routes_better
from filingqa.router.training import Policy, RouterLabel, RouterParams, RouterReport, score_policy

LOOPED = "How did revenue change from 2023 to 2024?"  # the keyword rule loops this one


def label(number: int, single: float, full: float) -> RouterLabel:
    return RouterLabel(
        id=f"q{number}",
        question=f"What was revenue of segment {number} in 2024?",
        single_score=single,
        full_score=full,
        single_calls=1,
        full_calls=3,
    )


def report(labels: list[RouterLabel], routed_full: list[bool]) -> RouterReport:
    """A router report whose cross-validated decisions are ``routed_full``."""
    policy = Policy(accuracy=0.0, lm_calls=0.0)
    return RouterReport(
        questions=len(labels),
        positives=0,
        folds=2,
        cv_accuracy=0.0,
        majority_accuracy=0.0,
        always_single=policy,
        always_full=policy,
        routed=score_policy(labels, routed_full),
        routed_full_loop=routed_full,
        call_savings=0.0,
        threshold=0.5,
        params=RouterParams(),
        feature_gain={},
    )


def test_a_costlier_router_must_be_told_more_accurate() -> None:
    labels = [label(1, 0, 1), *(label(n, 1, 1) for n in range(2, 7))]
    one_win = report(labels, [True, True, True, False, False, False])
    assert not routes_better(labels, one_win, "never", max_p_value=0.1)
    labels = [*(label(n, 0, 1) for n in range(1, 5)), label(5, 1, 1), label(6, 1, 1)]
    four_wins = report(labels, [True, True, True, True, False, False])  # p = 1/16
    assert routes_better(labels, four_wins, "never", max_p_value=0.1)
    assert not routes_better(labels, four_wins, "never", max_p_value=0.05)


def test_a_cheaper_router_is_kept_unless_told_less_accurate() -> None:
    labels = [label(1, 0, 1), *(label(n, 1, 1) for n in range(2, 7))]
    one_loss = report(labels, [False] * 6)  # never loops where the own policy always does
    assert routes_better(labels, one_loss, "always", max_p_value=0.1)
    labels = [*(label(n, 0, 1) for n in range(1, 5)), label(5, 1, 1), label(6, 1, 1)]
    four_losses = report(labels, [False] * 6)
    assert not routes_better(labels, four_losses, "always", max_p_value=0.1)


def test_at_equal_calls_the_more_accurate_policy_wins_and_a_tie_keeps_the_loop() -> None:
    looped = label(2, 1, 0).model_copy(update={"question": LOOPED})
    labels = [label(1, 0, 1), looped, label(3, 1, 1)]  # the rule loops the second only
    assert not routes_better(labels, report(labels, [False, True, False]), "rule", 0.1)
    swapped = report(labels, [True, False, False])  # as many loops, where they help
    assert routes_better(labels, swapped, "rule", max_p_value=0.1)
