"""Evidence gathering on its own: what it leaves in one question's state."""

from __future__ import annotations

import dspy

from filingqa.checks.answer_checks import CheckReport
from filingqa.lm.trace import Trace
from filingqa.program.evidence_gatherer import EvidenceGatherer
from filingqa.program.question_state import QuestionState, Sources
from filingqa.program.verification import Verdict
from filingqa.router.rule import fixed_router

from ..kit.lm import marker_lm
from ..kit.passages import CASH_FLOW, MDNA, OTHER, QUESTION, ListSearch
from ..kit.replies import CURATE, HYDE, REFINE, REWRITE

REWRITTEN = {"company": "Acme", "period": "FY2024", "variants": ["operating cash flow"]}


def state(search: ListSearch, tried: list[str] | None = None) -> QuestionState:
    sources = Sources(passages=None, search=search, company=None, carried=[OTHER])
    route = fixed_router(False, "test")(QUESTION)
    started = QuestionState.start(QUESTION, route, sources, 8000, Trace())
    started.tried += tried or []
    return started


def test_gathering_fills_the_buffer_curated_first_and_names_the_company() -> None:
    search = ListSearch([MDNA, CASH_FLOW])
    question = state(search)
    rules = [
        (REWRITE, REWRITTEN),
        (HYDE, {"hypotheses": []}),
        (CURATE, {"keep": [2], "answerable": True, "missing": "", "complementary_query": ""}),
    ]
    with dspy.context(lm=marker_lm(rules), adapter=dspy.JSONAdapter()):
        stopped = EvidenceGatherer(hypotheses=1)(question)
    assert stopped is None
    assert question.company == "Acme"
    assert {call["company"] for call in search.calls} == {"Acme"}
    assert question.tried == [QUESTION, "operating cash flow"]
    kept = [p.id for p in question.evidence.passages()]
    assert kept[0] == "ACME_2024_10K:p4:tab1" and kept[-1] == OTHER.id  # carried ones last


def test_a_company_the_index_does_not_hold_stops_the_question() -> None:
    class AcmeOnly(ListSearch):
        def covers(self, company: str) -> bool:
            return company == "Acme"

    question = state(AcmeOnly())
    rules = [(REWRITE, REWRITTEN | {"company": "Globex"}), (HYDE, {"hypotheses": []})]
    with dspy.context(lm=marker_lm(rules), adapter=dspy.JSONAdapter()):
        stopped = EvidenceGatherer(hypotheses=1)(question)
    assert stopped is not None and stopped.outcome == "refused"
    assert "holds no filings of Globex" in stopped.reason
    assert len(question.evidence) == 1  # only the carried passage


def test_refinement_searches_only_new_queries_three_at_most() -> None:
    search = ListSearch()
    question = state(search, tried=["operating cash flow"])
    queries = ["operating cash flow", "purchases of property", "capex", "revenue", "Beta"]
    checks = CheckReport(problems=[], untraced=[])
    verdict = Verdict(verdict="REJECT", reasons=[], missing="capex", checks=checks)
    with dspy.context(lm=marker_lm([(REFINE, {"queries": queries})]), adapter=dspy.JSONAdapter()):
        EvidenceGatherer().refine(question, verdict)
    assert [call["query"] for call in search.calls] == queries[1:4]
    assert question.tried == queries[:4]
    assert CASH_FLOW.id in question.evidence and MDNA.id in question.evidence
