"""FinancialQA end to end under every LM fault class, injected into every step.

Each case runs the real program (router, evidence buffer, sandbox, verifier, anti-refusal)
with one step's LM calls faulted, and asserts the answer comes back marked: an outcome
with a reason, the fault on the trace, and no number that is neither in the evidence nor
computed by the executed program. Nothing may raise.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import dspy
import pytest

from filingqa.checks.unsupported_numbers import unsupported_numbers
from filingqa.evidence.render import render
from filingqa.program.final_answer import FinalAnswer
from filingqa.program.financial_qa import FinancialQA

from ..kit.lm import FAULTS, FaultName, Injection, Rule, marker_lm
from ..kit.passages import CASH_FLOW, FCF, MDNA, ListSearch, passage
from ..kit.replies import (
    ACCEPT,
    AGGREGATE,
    AMBIGUITY,
    CONFIRM_REFUSAL,
    COT,
    CURATE,
    DECOMPOSE,
    FCF_READINGS,
    HYDE,
    NO_AMBIGUITY,
    REFINE,
    REPAIR,
    REVIEW,
    REVISE,
    REWRITE,
    VERIFY,
    WRITE,
    fenced,
)

FCF_CHANGE = "How did free cash flow change from 2023 to 2024?"
WHY = "Why did revenue grow in 2024?"
PROGRAM = fenced("result = 812.4 - 412.6")
CHANGE_PROGRAM = fenced("result = (812.4 - 412.6) - (701.9 - 355.0)")
REJECT = {"reasons": ["check the year"], "missing": "capex for 2023", "verdict": "REJECT"}
SEARCH_RULES: list[Rule] = [
    (DECOMPOSE, {"steps": [{"question": "operating cash flow 2024", "kind": "retrieval"}]}),
    (REWRITE, {"company": "", "period": "FY2024", "variants": ["operating cash flow"]}),
    (HYDE, {"hypotheses": [{"query": "cash flow statement", "passage": "Operating cash flow"}]}),
    (CURATE, {"keep": [1], "answerable": True, "missing": "", "complementary_query": ""}),
    (REFINE, {"queries": ["purchases of property and equipment 2023"]}),
]


@dataclass(frozen=True)
class Scenario:
    """One step to fault: the question and rules that reach it, the markers of its LM
    calls, and the outcomes a fault there may degrade to."""

    markers: tuple[str, ...]
    question: str
    rules: list[Rule]
    outcomes: frozenset[str]
    search: bool = False
    options: dict = field(default_factory=dict)


SCENARIOS: dict[str, Scenario] = {
    "ambiguity": Scenario(
        (AMBIGUITY,), FCF, [(AMBIGUITY, NO_AMBIGUITY), (WRITE, PROGRAM)], frozenset({"answered"})
    ),
    "write program": Scenario(
        (WRITE, REPAIR),
        FCF,
        [(AMBIGUITY, NO_AMBIGUITY), (WRITE, PROGRAM), (REPAIR, PROGRAM), (REVIEW, CONFIRM_REFUSAL)],
        frozenset({"error", "refused"}),
    ),
    "verify": Scenario(
        (VERIFY,),
        FCF_CHANGE,
        [(AMBIGUITY, NO_AMBIGUITY), (WRITE, CHANGE_PROGRAM), (VERIFY, ACCEPT)],
        frozenset({"unverified"}),
    ),
    "chain of thought": Scenario(
        (COT,),
        WHY,
        [
            (AMBIGUITY, NO_AMBIGUITY),
            (COT, {"reasoning": "page 2", "answer": "Demand for analyzers."}),
        ],
        frozenset({"error", "refused"}),
    ),
    "anti-refusal review": Scenario(
        (REVIEW,),
        WHY,
        [
            (AMBIGUITY, NO_AMBIGUITY),
            (COT, {"reasoning": "", "answer": "not stated in the evidence"}),
            (REVIEW, {"decision": "answer", "answer": "Demand for analyzers."}),
        ],
        frozenset({"refused"}),
    ),
    "aggregate": Scenario(
        (AGGREGATE,),
        FCF,
        [
            (AMBIGUITY, FCF_READINGS),
            (
                WRITE,
                lambda p: fenced("result = 812.4 - 412.6" if "capex" in p else "result = 812.4"),
            ),
            (AGGREGATE, {"answer": "By OCF less capex: 399.8 million; By OCF: 812.4 million"}),
        ],
        frozenset({"answered"}),
    ),
    "decompose": Scenario(
        (DECOMPOSE,),
        FCF_CHANGE,
        [(AMBIGUITY, NO_AMBIGUITY), *SEARCH_RULES, (WRITE, CHANGE_PROGRAM), (VERIFY, ACCEPT)],
        frozenset({"answered"}),
        search=True,
    ),
    "rewrite + HyDE": Scenario(
        (REWRITE, HYDE),
        FCF,
        [(AMBIGUITY, NO_AMBIGUITY), *SEARCH_RULES, (WRITE, PROGRAM)],
        frozenset({"answered"}),
        search=True,
    ),
    "curate": Scenario(
        (CURATE,),
        FCF,
        [(AMBIGUITY, NO_AMBIGUITY), *SEARCH_RULES, (WRITE, PROGRAM)],
        frozenset({"answered"}),
        search=True,
    ),
    "refine": Scenario(
        (REFINE,),
        FCF_CHANGE,
        [
            (AMBIGUITY, NO_AMBIGUITY),
            *SEARCH_RULES,
            (REVISE, CHANGE_PROGRAM),
            (WRITE, CHANGE_PROGRAM),
            (VERIFY, REJECT),
        ],
        frozenset({"unverified"}),
        search=True,
        options={"max_rounds": 2},
    ),
}


def run(scenario: Scenario, fault: FaultName) -> tuple[FinalAnswer, list[str]]:
    injections = [Injection(marker=m, fault=fault) for m in scenario.markers]
    lm = marker_lm(scenario.rules, injections)
    inputs = (
        {"search": ListSearch([MDNA, CASH_FLOW])}
        if scenario.search
        else {"passages": [MDNA, CASH_FLOW]}
    )
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        prediction = FinancialQA(hypotheses=1, **scenario.options)(
            question=scenario.question, **inputs
        )
    return prediction.final, lm.engine.injected


def assert_marked(final: FinalAnswer) -> None:
    """An outcome with a reason, and no number the evidence and the program do not give."""
    assert final.outcome in {"answered", "unverified", "refused", "error"}
    assert final.answer.strip()
    if final.outcome != "answered":
        assert final.reason.strip()
    computed = [final.value] if isinstance(final.value, int | float) else []
    known = f"{final.question}\n{render(final.evidence)}"
    for reading in final.interpretations:
        computed += [n.magnitude for n in _numbers(reading.answer)]
    assert unsupported_numbers(final.answer, known, computed) == []


def _numbers(text: str):
    from filingqa.core.numbers import extract_numbers

    return extract_numbers(text)


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("step", list(SCENARIOS))
def test_a_faulted_step_degrades_to_a_marked_outcome(step: str, fault: FaultName) -> None:
    scenario = SCENARIOS[step]
    final, injected = run(scenario, fault)
    assert injected, "the fault was never injected: the scenario does not reach the step"
    assert_marked(final)
    assert final.outcome in scenario.outcomes, (final.outcome, final.reason)
    recorded = [s.fault for s in final.trace.steps if s.fault]
    reviewed = any(s.name == "anti-refusal" for s in final.trace.steps)
    assert recorded or reviewed, [s.model_dump() for s in final.trace.steps]


@pytest.mark.parametrize(
    "fault", ["timeout", "rate_limit", "connection", "server_error", "context_overflow"]
)
def test_an_lm_exception_in_the_reasoning_step_is_an_error_naming_the_fault(
    fault: FaultName,
) -> None:
    final, _ = run(SCENARIOS["write program"], fault)
    assert final.outcome == "error"
    assert final.value is None
    kind = {"server_error": "lm_error"}.get(fault, fault)
    assert kind in final.reason
    assert final.trace.faults[-1].fault == kind


def test_context_overflow_shrinks_the_evidence_until_the_prompt_fits() -> None:
    filler = passage("A:p1:tex1", "Risk factors. " * 400)
    lm = marker_lm(
        [(AMBIGUITY, NO_AMBIGUITY), (WRITE, PROGRAM)],
        [Injection(marker=WRITE, fault="context_overflow", context_chars=3000)],
    )
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        final = FinancialQA()(question=FCF, passages=[CASH_FLOW, filler]).final
    assert final.outcome == "answered"
    assert final.value == pytest.approx(399.8)
    reasons = [s for s in final.trace.steps if s.name == "reason 1"]
    assert [s.fault for s in reasons] == ["context_overflow", None]
    assert "cut to 4,000 characters" in reasons[0].note
    assert final.evidence == [CASH_FLOW]  # the filler no longer fits


def test_a_broken_search_handle_ends_the_question_with_an_error() -> None:
    lm = marker_lm([(AMBIGUITY, NO_AMBIGUITY), *SEARCH_RULES, (WRITE, PROGRAM)])
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        final = FinancialQA(hypotheses=1)(question=FCF, search=ListSearch([], broken=True)).final
    assert final.outcome == "error"
    assert "connection" in final.reason
    assert [s.name for s in final.trace.faults] == ["retrieve", "retrieve (question only)"]


def test_a_fault_once_is_retried_by_the_next_step_not_repeated() -> None:
    """A rate limit on the first program only: the repair writes the program again."""
    lm = marker_lm(
        [(AMBIGUITY, NO_AMBIGUITY), (WRITE, PROGRAM), (REPAIR, PROGRAM)],
        [Injection(marker=WRITE, fault="unparseable", times=1)],
    )
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        final = FinancialQA()(question=FCF, passages=[CASH_FLOW]).final
    assert final.outcome == "answered"
    assert final.value == pytest.approx(399.8)
