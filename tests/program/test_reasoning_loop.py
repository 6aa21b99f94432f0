"""The reason-verify-revise loop on its own, over one question's state."""

from __future__ import annotations

import dspy
import pytest

from filingqa.lm.trace import Trace
from filingqa.program.question_state import QuestionState, Sources
from filingqa.program.reasoning_loop import ReasoningLoop
from filingqa.program.verification import Verdict
from filingqa.router.rule import fixed_router

from ..kit.lm import Rule, marker_lm
from ..kit.passages import CASH_FLOW, ListSearch
from ..kit.replies import ACCEPT, REVISE, VERIFY, WRITE, fenced

CHANGE = "How did free cash flow change from 2023 to 2024?"
REJECT = {"reasons": ["used one year only"], "missing": "2023 capex", "verdict": "REJECT"}


def state(full_loop: bool, search: ListSearch | None = None) -> QuestionState:
    sources = Sources(passages=[CASH_FLOW], search=search, company=None, carried=None)
    route = fixed_router(full_loop, "test")(CHANGE)
    return QuestionState.start(CHANGE, route, sources, 8000, Trace())


def never_refine(state: QuestionState, verdict: Verdict) -> None:
    pytest.fail("refine ran")  # not an Exception: no step swallows it


def reject_then_accept() -> list[Rule]:
    verdicts = iter([REJECT, ACCEPT])
    return [
        (REVISE, fenced("result = (812.4 - 412.6) - (701.9 - 355.0)")),
        (WRITE, fenced("result = 812.4 - 412.6")),
        (VERIFY, lambda prompt: next(verdicts)),
    ]


def test_a_single_pass_drafts_once_and_does_not_verify() -> None:
    lm = marker_lm([(WRITE, fenced("result = 812.4 - 412.6"))])
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        draft = ReasoningLoop()(state(full_loop=False), refine=never_refine)
    assert draft.value == pytest.approx(399.8) and draft.verdict is None
    assert lm.engine.calls == 1


def test_a_rejected_draft_is_refined_then_revised_with_the_verifiers_reasons() -> None:
    asked: list[Verdict] = []
    question = state(full_loop=True, search=ListSearch())
    lm = marker_lm(reject_then_accept())
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        draft = ReasoningLoop()(question, refine=lambda s, verdict: asked.append(verdict))
    assert [v.missing for v in asked] == ["2023 capex"]
    assert [s.name for s in question.trace.steps] == [
        "reason 1",
        "verify 1",
        "refine 1",
        "reason 2",
        "verify 2",
    ]
    (revision,) = [p for p in lm.engine.prompts if REVISE in p]
    assert "used one year only" in revision
    assert draft.accepted and draft.value == pytest.approx(52.9)


def test_without_a_search_handle_the_loop_revises_without_refining() -> None:
    question = state(full_loop=True)
    with dspy.context(lm=marker_lm(reject_then_accept()), adapter=dspy.JSONAdapter()):
        draft = ReasoningLoop()(question, refine=never_refine)
    assert "refine 1" not in [s.name for s in question.trace.steps]
    assert draft.accepted


def test_max_rounds_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_rounds must be at least 1"):
        ReasoningLoop(max_rounds=0)
