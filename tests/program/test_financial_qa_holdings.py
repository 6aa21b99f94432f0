"""FinancialQA over a handle that tells what it holds: questions about filings the index
lacks end ``not_indexed``, company-specific questions keep to their company's filings."""

import dspy
import pytest

from filingqa.program.final_answer import FinalAnswer
from filingqa.program.financial_qa import FinancialQA

from ..kit.lm import FakeEngine, Rule, marker_lm
from ..kit.passages import CASH_FLOW, FCF, MDNA, OTHER, ListSearch, held
from ..kit.replies import AMBIGUITY, NO_AMBIGUITY, WRITE, fenced

HELD = held("ACME_2024_10K", "BETA_2024_10K")
PLAIN = {"decompose": False, "query_writing": False, "curation": False}  # no LM in the search
FREE_CASH_FLOW = [(AMBIGUITY, NO_AMBIGUITY), (WRITE, fenced("result = 812.4 - 412.6"))]


def run(rules: list[Rule], **inputs) -> tuple[FinalAnswer, FakeEngine]:
    lm = marker_lm(rules)
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        return FinancialQA(**PLAIN)(**inputs).final, lm.engine


def step_names(final: FinalAnswer) -> list[str]:
    return [s.name for s in final.trace.steps]


def test_a_company_the_index_does_not_hold_is_not_indexed_before_any_lm_call() -> None:
    search = ListSearch(holdings=HELD)
    final, engine = run([], question="What was Globex's free cash flow in 2024?", search=search)
    assert final.outcome == "not_indexed"
    assert final.answer == (
        "Not in the index: no filing of Globex is indexed (the index holds filings of Acme, Beta)."
    )
    assert final.reason == "the index holds no filings of Globex"
    assert final.value is None and final.citations == [] and final.evidence == []
    assert search.calls == [] and engine.prompts == []
    assert step_names(final) == ["holdings"]


def test_a_period_no_filing_of_an_indexed_company_reports_names_what_is_indexed() -> None:
    search = ListSearch(holdings=HELD)
    final, engine = run([], question="What was Acme's free cash flow in 2020?", search=search)
    assert final.outcome == "not_indexed"
    assert final.answer == (
        "Not in the index: no indexed filing of Acme reports 2020. "
        "Indexed for Acme: ACME_2024_10K (10-K for FY2024; reports FY2022–FY2024)."
    )
    assert "BETA" not in final.answer
    assert search.calls == [] and engine.prompts == []


def test_a_company_given_as_an_argument_is_ruled_on_too() -> None:
    final, _ = run([], question=FCF, search=ListSearch(holdings=HELD), company="Initech")
    assert final.outcome == "not_indexed"
    assert "no filing of Initech is indexed" in final.answer


def test_an_indexed_company_and_period_is_answered_from_its_filings_only() -> None:
    search = ListSearch([MDNA, CASH_FLOW, OTHER], holdings=HELD)
    final, _ = run(
        FREE_CASH_FLOW, question="What was Acme's free cash flow in 2024?", search=search
    )
    assert final.outcome == "answered"
    assert final.value == pytest.approx(399.8)
    assert {call["company"] for call in search.calls} == {"Acme"}
    assert OTHER.id not in {p.id for p in final.evidence}  # Beta's passage was found, dropped
    assert {c.doc for c in final.citations} == {"ACME_2024_10K"}
    assert step_names(final)[0] == "holdings"
    assert final.trace.steps[0].note == "Acme: 1 indexed filing(s) searched"
    scope = [s for s in final.trace.steps if s.name == "company scope"]
    assert scope and OTHER.id in scope[0].note


def test_a_year_in_the_comparative_column_of_an_indexed_filing_is_answered() -> None:
    final, _ = run(
        [(AMBIGUITY, NO_AMBIGUITY), (WRITE, fenced("result = 701.9"))],
        question="What was Acme's operating cash flow in 2023?",
        search=ListSearch([CASH_FLOW], holdings=held("ACME_2024_10K")),
    )
    assert final.outcome == "answered"
    assert final.value == pytest.approx(701.9)


def test_over_gold_passages_the_rule_never_fires() -> None:
    question = "What was Globex's free cash flow in 2024?"
    for search in (None, ListSearch(holdings=HELD)):
        final, _ = run(FREE_CASH_FLOW, question=question, passages=[CASH_FLOW], search=search)
        assert final.outcome == "answered"
        assert final.value == pytest.approx(399.8)
        assert "holdings" not in step_names(final)


def test_a_handle_that_cannot_tell_what_it_holds_skips_the_rule() -> None:
    search = ListSearch([CASH_FLOW])
    final, _ = run(
        FREE_CASH_FLOW, question="What was Globex's free cash flow in 2024?", search=search
    )
    assert final.outcome == "answered"
    assert "holdings" not in step_names(final)
    assert {call["company"] for call in search.calls} == {None}


def test_a_question_naming_no_company_is_left_to_the_program() -> None:
    search = ListSearch([CASH_FLOW, OTHER], holdings=HELD)
    final, _ = run(FREE_CASH_FLOW, question=FCF, search=search)
    assert final.outcome == "answered"
    assert final.trace.steps[0].note == "no company named that the rule can check"


def test_another_companys_filing_is_never_cited_for_a_company_specific_question() -> None:
    final, _ = run(
        [(AMBIGUITY, NO_AMBIGUITY), (WRITE, fenced("result = 95.0"))],
        question="What was Acme's operating cash flow in 2024?",
        search=ListSearch([CASH_FLOW], holdings=HELD),
        carried=[OTHER],  # an earlier turn's passage of Beta's filing
    )
    assert final.citations == []
    assert final.outcome == "unverified"  # answered from another company's passage: flagged
    assert final.confidence <= 0.4
    assert "cited another company's filing (BETA_2024_10K): dropped" in final.reason
    assert "company check" in step_names(final)


def test_the_first_search_of_a_not_indexed_question_finds_nothing_without_searching() -> None:
    search = ListSearch(holdings=HELD)
    with dspy.context(lm=marker_lm([]), adapter=dspy.JSONAdapter()):
        found = FinancialQA(**PLAIN).first_search("What was Globex's revenue in 2024?", search)
    assert found == [] and search.calls == []
