"""The router stage's choice: the cost rule between the trained router and the loop policy,
on the calibration questions and then on the confirmation draw."""

from __future__ import annotations

from pathlib import Path

import dspy

from filingqa.artifacts.manifest import ROUTER_DIR, Selection
from filingqa.optimizers.compile_plan import plan_compile
from filingqa.optimizers.compile_records import KeptProgram
from filingqa.optimizers.compile_stages import (
    CONFIRM_DIR,
    CompileRun,
    confirm_router,
    routes_better,
)
from filingqa.optimizers.structure_search import Structure
from filingqa.router.rule import RoutingDecision, loop_router
from filingqa.router.training import Policy, RouterLabel, RouterParams, RouterReport, score_policy

from .compile_fakes import SPLIT, rule_lm, small_request, write_data_dir

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


def confirming_run(data_dir: Path, out: Path, lm: dspy.LM) -> CompileRun:
    """A compile run of 8 confirmation questions (half ask a percentage change)."""
    request = small_request(out)
    settings = request.settings.model_copy(update={"confirm": [f"tatqa:{SPLIT}:8"]})
    plan = plan_compile(request.model_copy(update={"settings": settings}), data_dir)
    return CompileRun(plan=plan, lm=lm, data_dir=data_dir, progress=False, say=print)


def never_looping() -> KeptProgram:
    structure = Structure(loop="never")
    selection = Selection(kept="uncompiled", wins=0, losses=0, p_value=1.0, max_p_value=0.1)
    program = structure.build(None)
    return KeptProgram(
        selection=selection, program=program, structure=structure, worked_examples=None
    )


def loops_changes(question: str) -> RoutingDecision:
    """A router that sends the percentage-change questions through the loop."""
    full = "percentage change" in question
    return RoutingDecision(path="pot", full_loop=full, source="lightgbm", reason="test")


def test_a_router_the_confirmation_shows_better_is_kept(tmp_path: Path) -> None:
    data = write_data_dir(tmp_path / "data", contexts=24)
    run = confirming_run(data, tmp_path / "out", rule_lm())  # the loop fixes the changes
    with dspy.context(lm=run.lm, adapter=dspy.JSONAdapter()):
        confirmed = confirm_router(run, never_looping(), loops_changes)
    changes = sum("percentage change" in r.question for r in run.plan.confirm)
    assert confirmed.questions == 8 and confirmed.differing == changes >= 4
    assert (confirmed.wins, confirmed.losses) == (changes, 0)
    assert confirmed.routed_calls > confirmed.loop_calls and confirmed.routes
    assert (run.out / ROUTER_DIR / CONFIRM_DIR / "full.jsonl").is_file()


def test_a_costlier_router_the_confirmation_does_not_show_better_is_not_kept(
    tmp_path: Path,
) -> None:
    data = write_data_dir(tmp_path / "data", contexts=24)
    run = confirming_run(data, tmp_path / "out", rule_lm(loop_helps=False))
    with dspy.context(lm=run.lm, adapter=dspy.JSONAdapter()):
        confirmed = confirm_router(run, never_looping(), loops_changes)
    assert confirmed.wins == 0 and confirmed.routed_calls > confirmed.loop_calls
    assert not confirmed.routes
    assert "keeps the loop policy" in confirmed.describe()


def test_a_router_that_routes_no_confirmation_question_otherwise_is_not_kept(
    tmp_path: Path,
) -> None:
    data = write_data_dir(tmp_path / "data", contexts=24)
    run = confirming_run(data, tmp_path / "out", rule_lm())
    never = loop_router("never")
    confirmed = confirm_router(run, never_looping(), never)
    assert (confirmed.differing, confirmed.routes) == (0, False)
