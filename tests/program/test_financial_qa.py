"""FinancialQA's control flow, driven deterministically by an LM that answers by rule."""

import dspy
import pytest

from filingqa.program.financial_qa import FinancialQA

from ..kit.lm import FakeEngine, Rule, marker_lm
from ..kit.passages import CASH_FLOW, MDNA, PENSIONS, ListSearch
from ..kit.replies import (
    AGGREGATE,
    AMBIGUITY,
    COT,
    CURATE,
    DECOMPOSE,
    FCF_READINGS,
    HYDE,
    NO_AMBIGUITY,
    REVIEW,
    REVISE,
    REWRITE,
    VERIFY,
    WRITE,
    ambiguity_report,
    fenced,
)


def run(rules: list[Rule], **inputs) -> tuple[dspy.Prediction, FakeEngine]:
    lm = marker_lm(rules)
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        return FinancialQA(**inputs.pop("options", {}))(**inputs), lm.engine


def test_single_pass_pot_over_gold_context() -> None:
    prediction, engine = run(
        [(AMBIGUITY, NO_AMBIGUITY), (WRITE, fenced("result = 812.4 - 412.6"))],
        question="What was free cash flow in 2024?",
        passages=[MDNA, CASH_FLOW],
    )
    final = prediction.final
    assert prediction.answer == "399.8 million"
    assert final.value == pytest.approx(399.8)
    assert final.outcome == "answered"
    assert [c.page for c in final.citations] == [4]
    assert [s.name for s in final.trace.steps] == ["ambiguity", "route", "reason 1"]
    assert final.trace.lm_calls == 2
    assert engine.count(VERIFY) == 0  # the router chose a single pass


def test_a_question_without_an_ambiguity_cue_is_not_checked_for_ambiguity() -> None:
    prediction, engine = run(
        [(WRITE, fenced("result = 812.4 - 701.9"))],
        question="What was the change in operating cash flow from 2023 to 2024?",
        passages=[CASH_FLOW],
    )
    final = prediction.final
    assert final.value == pytest.approx(110.5)
    assert engine.count(AMBIGUITY) == 0 and final.trace.lm_calls == 1
    assert final.trace.steps[0].name == "ambiguity"
    assert final.trace.steps[0].note.startswith("not asked")


def test_the_program_writer_is_told_the_formula_convention_bare_pot_is_not() -> None:
    _, engine = run(
        [(AMBIGUITY, NO_AMBIGUITY), (WRITE, fenced("result = 812.4 - 701.9"))],
        question="What is the 2024 average net cash provided by operating activities?",
        passages=[CASH_FLOW],
    )
    (request,) = [p for p in engine.prompts if WRITE in p]
    assert "Formula: The 2024 average of a figure is the mean of its 2024 and 2023 values" in (
        request
    )


def test_a_program_that_took_a_neighbouring_row_is_revised_to_the_row_asked_about() -> None:
    prediction, engine = run(
        [
            (AMBIGUITY, NO_AMBIGUITY),
            (REVISE, fenced("result = (57 + 44) / 2")),
            (WRITE, fenced("result = (166 + 178) / 2")),
        ],
        question="What is the 2019 average defined benefit schemes?",
        passages=[PENSIONS],
    )
    assert prediction.final.value == 50.5
    assert engine.count(REVISE) == 1


def test_full_loop_stops_after_k_rounds_and_marks_the_answer_unverified() -> None:
    reject = {"reasons": ["used the wrong year"], "missing": "", "verdict": "REJECT"}
    revisions = iter([fenced("result = 701.9 - 355.0"), fenced("result = 701.9 - 350.0")])
    prediction, engine = run(
        [
            (AMBIGUITY, NO_AMBIGUITY),
            (REVISE, lambda prompt: next(revisions)),
            (WRITE, fenced("result = 812.4 - 412.6")),
            (VERIFY, reject),
        ],
        question="How did free cash flow change from 2023 to 2024?",
        passages=[CASH_FLOW],
        options={"max_rounds": 3},
    )
    final = prediction.final
    assert engine.count(VERIFY) == 3
    assert engine.count(REVISE) == 2  # rounds 2 and 3 revise with the verifier's reason
    assert "used the wrong year" in engine.prompts[-2]
    assert final.outcome == "unverified"
    assert final.reason.startswith("no ACCEPT within the rounds")
    assert final.confidence < 0.5
    assert final.value == pytest.approx(399.8)  # no round better supported than the first


def test_a_revision_that_repeats_the_rejected_program_ends_the_loop() -> None:
    reject = {"reasons": ["used the wrong year"], "missing": "", "verdict": "REJECT"}
    prediction, engine = run(
        [
            (AMBIGUITY, NO_AMBIGUITY),
            (REVISE, fenced("result = 812.4 - 412.6")),
            (WRITE, fenced("result = 812.4 - 412.6")),
            (VERIFY, reject),
        ],
        question="How did free cash flow change from 2023 to 2024?",
        passages=[CASH_FLOW],
        options={"max_rounds": 3},
    )
    final = prediction.final
    # the revision gave back the program already rejected over the same evidence: verifying
    # it, or revising it again, would resend requests already answered
    assert engine.count(VERIFY) == 1 and engine.count(REVISE) == 1
    assert final.trace.steps[-1].name == "verify 2"
    assert final.trace.steps[-1].note.startswith("not asked: the revision repeats")
    assert final.outcome == "unverified"
    assert final.value == pytest.approx(399.8)


def test_a_revision_that_is_accepted_replaces_the_rejected_first_program() -> None:
    verdicts = iter(
        [
            {"reasons": ["used one year only"], "missing": "", "verdict": "REJECT"},
            {"reasons": ["both years used"], "missing": "", "verdict": "ACCEPT"},
        ]
    )
    prediction, engine = run(
        [
            (AMBIGUITY, NO_AMBIGUITY),
            (REVISE, fenced("result = (812.4 - 412.6) - (701.9 - 355.0)")),
            (WRITE, fenced("result = 812.4 - 412.6")),
            (VERIFY, lambda prompt: next(verdicts)),
        ],
        question="How did free cash flow change from 2023 to 2024?",
        passages=[CASH_FLOW],
    )
    assert engine.count(VERIFY) == 2
    assert prediction.final.outcome == "answered"
    assert prediction.final.value == pytest.approx(52.9)


def test_accept_ends_the_loop() -> None:
    accept = {"reasons": ["inputs match the table"], "missing": "", "verdict": "ACCEPT"}
    prediction, engine = run(
        [
            (AMBIGUITY, NO_AMBIGUITY),
            (WRITE, fenced("result = (812.4 - 412.6) - (701.9 - 355.0)")),
            (VERIFY, accept),
        ],
        question="How did free cash flow change from 2023 to 2024?",
        passages=[CASH_FLOW],
    )
    assert engine.count(VERIFY) == 1
    assert prediction.final.outcome == "answered"
    assert prediction.final.value == pytest.approx(52.9)


def test_invented_numbers_make_the_verifier_reject_whatever_the_lm_says() -> None:
    accept = {"reasons": [], "missing": "", "verdict": "ACCEPT"}
    prediction, _ = run(
        [(AMBIGUITY, NO_AMBIGUITY), (WRITE, fenced("result = 812.4 - 999.9")), (VERIFY, accept)],
        question="How did free cash flow change from 2023 to 2024?",
        passages=[CASH_FLOW],
        options={"max_rounds": 1},
    )
    final = prediction.final
    assert final.outcome == "unverified"
    assert "numbers not found in the evidence: 999.9" in final.reason


def test_ambiguous_question_fans_out_and_names_each_reading() -> None:
    def program(prompt: str) -> str:
        return fenced("result = 812.4 - 412.6" if "less capex" in prompt else "result = 812.4")

    prediction, engine = run(
        [
            (AMBIGUITY, FCF_READINGS),
            (WRITE, program),
            (AGGREGATE, {"answer": "By OCF less capex: 399.8 million; By OCF: 812.4 million"}),
        ],
        question="What was free cash flow in 2024?",
        passages=[CASH_FLOW],
    )
    final = prediction.final
    assert [r.axis for r in final.interpretations] == [
        "operating cash flow less capex",
        "operating cash flow",
    ]
    assert [r.answer for r in final.interpretations] == ["399.8 million", "812.4 million"]
    assert final.answer == "By OCF less capex: 399.8 million; By OCF: 812.4 million"
    assert engine.count(WRITE) == 2


def test_an_aggregate_that_drops_an_answer_is_replaced_by_the_plain_join() -> None:
    readings = ambiguity_report(
        "qualifier",
        "",
        {"by 2024": "Operating cash flow in 2024?", "by 2023": "Operating cash flow in 2023?"},
    )

    def program(prompt: str) -> str:
        return fenced("result = 812.4" if "in 2024?" in prompt else "result = 701.9")

    prediction, _ = run(
        [(AMBIGUITY, readings), (WRITE, program), (AGGREGATE, {"answer": "About 800 million."})],
        question="What was the larger operating cash flow?",
        passages=[CASH_FLOW],
    )
    assert prediction.answer == "By 2024: 812.4 million; By 2023: 701.9 million"


def test_anti_refusal_cannot_introduce_an_unsupported_number() -> None:
    prediction, engine = run(
        [
            (AMBIGUITY, NO_AMBIGUITY),
            (COT, {"reasoning": "Nothing on it.", "answer": "Cannot determine from the filing."}),
            (REVIEW, {"decision": "answer", "answer": "Services revenue was $77.3 million."}),
        ],
        question="Why was services revenue flat?",
        passages=[MDNA],
    )
    final = prediction.final
    assert engine.count(REVIEW) == 1
    assert final.outcome == "refused"
    assert "77.3" not in final.answer
    assert final.value is None


def test_anti_refusal_rewrites_from_the_evidence() -> None:
    prediction, _ = run(
        [
            (AMBIGUITY, NO_AMBIGUITY),
            (COT, {"reasoning": "-", "answer": "Not stated in the evidence."}),
            (REVIEW, {"decision": "answer", "answer": "Demand for analyzers (per the MD&A)."}),
        ],
        question="Why did revenue grow?",
        passages=[MDNA],
    )
    assert prediction.answer == "Demand for analyzers (per the MD&A)."
    assert prediction.final.outcome == "unverified"


def test_unparseable_ambiguity_report_is_treated_as_none() -> None:
    prediction, _ = run(
        [(AMBIGUITY, "not json at all"), (WRITE, fenced("result = 812.4 - 412.6"))],
        question="What was free cash flow in 2024?",
        passages=[CASH_FLOW],
    )
    assert prediction.final.value == pytest.approx(399.8)
    assert prediction.final.trace.steps[0].fault == "unparseable"
    assert prediction.final.outcome == "answered"


def test_open_corpus_retrieves_with_multi_hyde_and_curates() -> None:
    search = ListSearch([MDNA, CASH_FLOW])
    prediction, _ = run(
        [
            (AMBIGUITY, NO_AMBIGUITY),
            (
                REWRITE,
                {
                    "company": "Acme",
                    "period": "FY2024",
                    "variants": ["operating cash flow less purchases of property and equipment"],
                },
            ),
            (
                HYDE,
                {
                    "hypotheses": [
                        {"query": "cash flow statement", "passage": "Purchases of property (412.6)"}
                    ]
                },
            ),
            (
                CURATE,
                {"keep": [1], "answerable": True, "missing": "", "complementary_query": ""},
            ),
            (WRITE, fenced("result = 812.4 - 412.6")),
        ],
        question="What was Acme's free cash flow in 2024?",
        search=search,
        options={"hypotheses": 1},
    )
    assert prediction.final.value == pytest.approx(399.8)
    assert [c.page for c in prediction.final.citations] == [4]
    assert len(search.calls) == 3  # question, one rewrite, one hypothesis
    assert {call["company"] for call in search.calls} == {"Acme"}
    names = [s.name for s in prediction.final.trace.steps]
    assert names[:4] == ["ambiguity", "route", "retrieve", "curate"]


def test_missing_evidence_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"passages .* or a search handle"):
        FinancialQA()(question="What was revenue?")


async def test_acall_answers_like_call() -> None:
    lm = marker_lm([(AMBIGUITY, NO_AMBIGUITY), (WRITE, fenced("result = 812.4 - 412.6"))])
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        prediction = await FinancialQA().acall(
            question="What was free cash flow in 2024?", passages=[CASH_FLOW]
        )
    assert prediction.final.value == pytest.approx(399.8)


def test_full_loop_decomposes_and_searches_each_retrieval_step() -> None:
    search = ListSearch([MDNA, CASH_FLOW])
    accept = {"reasons": [], "missing": "", "verdict": "ACCEPT"}
    steps = {
        "steps": [
            {"question": "operating cash flow 2023 2024", "kind": "retrieval"},
            {"question": "purchases of property 2023 2024", "kind": "retrieval"},
            {"question": "FCF change", "kind": "computation", "formula": "change"},
        ]
    }
    prediction, _ = run(
        [
            (AMBIGUITY, NO_AMBIGUITY),
            (DECOMPOSE, steps),
            (REWRITE, {"company": "", "period": "", "variants": []}),
            (
                CURATE,
                {"keep": [1], "answerable": True, "missing": "", "complementary_query": ""},
            ),
            (WRITE, fenced("result = (812.4 - 412.6) - (701.9 - 355.0)")),
            (VERIFY, accept),
        ],
        question="How did free cash flow change from 2023 to 2024?",
        search=search,
        options={"hypotheses": 0},
    )
    searched = [call["query"] for call in search.calls]
    assert searched == [
        "How did free cash flow change from 2023 to 2024?",
        "operating cash flow 2023 2024",
        "purchases of property 2023 2024",
    ]
    assert prediction.final.outcome == "answered"
    assert "computation/change: FCF change" in prediction.final.trace.steps[2].note
