"""The LM steps of the retrieved-context path, each switched by an option to a cheap
alternative, change what is sent: decomposition, query writing (Multi-HyDE and its number of
hypotheses), curation, PoT's votes over searched evidence, and explanations quoted instead of
written; none of them changes what a figure asked over gold context sends; and a yes/no
whose deciding figure fails the quote check is still given, marked unverified."""

from __future__ import annotations

import re

import dspy
import pytest

from filingqa.program.financial_qa import FinancialQA
from filingqa.records import Passage
from filingqa.router.rule import loop_router

from ..kit.lm import FakeEngine, Rule, marker_lm
from ..kit.passages import CASH_FLOW, MDNA, OTHER, ListSearch, passage
from ..kit.replies import (
    ACCEPT,
    AMBIGUITY,
    COT,
    CURATE,
    DECIDE,
    DECOMPOSE,
    EXPLAIN,
    HYDE,
    NO_AMBIGUITY,
    REWRITE,
    VERIFY,
    WRITE,
    fenced,
)

QUESTION = "What was Acme's free cash flow in 2024?"
GATHERING: list[Rule] = [
    (AMBIGUITY, NO_AMBIGUITY),
    (DECOMPOSE, {"steps": [{"question": "cash flow", "kind": "retrieval"}]}),
    (REWRITE, {"company": "Acme", "period": "FY2024", "variants": ["operating cash flow"]}),
    (HYDE, {"hypotheses": [{"query": "cash flow", "passage": "Operating cash flow was"}]}),
    (CURATE, {"keep": [2], "answerable": True, "missing": "", "complementary_query": ""}),
    (WRITE, fenced("result = 812.4 - 412.6")),
    (VERIFY, ACCEPT),
]


def run(rules: list[Rule], question: str, search: ListSearch, **options: object):
    lm = marker_lm(rules)
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        final = FinancialQA(**options)(question=question, search=search).final  # type: ignore[arg-type]
    engine: FakeEngine = lm.engine
    assert not final.trace.faults, "every request had a scripted reply"
    return final, engine


def test_without_curation_the_retrieved_passages_stay_in_the_search_order() -> None:
    curated, with_curator = run(GATHERING, QUESTION, ListSearch([MDNA, CASH_FLOW, OTHER]))
    uncurated, without = run(
        GATHERING, QUESTION, ListSearch([MDNA, CASH_FLOW, OTHER]), curation=False
    )
    assert (with_curator.count(CURATE), without.count(CURATE)) == (1, 0)
    searched = [p.id for p in uncurated.evidence]  # the fused search order, all of it
    assert sorted(searched) == sorted(p.id for p in curated.evidence)
    assert curated.evidence[0].id == searched[1]  # the curator kept candidate 2 first
    assert curated.value == uncurated.value == pytest.approx(399.8)


@pytest.mark.parametrize("query_writing", [True, False])
def test_without_query_writing_the_question_is_searched_as_written(query_writing) -> None:
    search = ListSearch([MDNA, CASH_FLOW])
    _, engine = run(GATHERING, QUESTION, search, query_writing=query_writing)
    asked = (engine.count(REWRITE), engine.count(HYDE))
    assert asked == ((1, 1) if query_writing else (0, 0))
    queries = [call["query"] for call in search.calls]
    if query_writing:
        assert len(queries) > 1 and "operating cash flow" in queries
    else:
        assert queries == [QUESTION]


@pytest.mark.parametrize("hypotheses", [3, 1])
def test_the_number_of_hypothetical_passages_is_asked_for(hypotheses) -> None:
    _, engine = run(GATHERING, QUESTION, ListSearch([MDNA, CASH_FLOW]), hypotheses=hypotheses)
    (request,) = [prompt for prompt in engine.prompts if HYDE in prompt]
    assert re.search(rf"count ## \]\]\s+{hypotheses}\b", request)


@pytest.mark.parametrize("decompose", [True, False])
def test_without_decomposition_the_full_loop_sends_no_decomposition(decompose) -> None:
    search = ListSearch([MDNA, CASH_FLOW])
    _, engine = run(GATHERING, QUESTION, search, decompose=decompose, router=loop_router("always"))
    assert engine.count(DECOMPOSE) == (1 if decompose else 0)
    queries = [call["query"] for call in search.calls]
    assert ("cash flow" in queries) == decompose  # the sub-question is searched


@pytest.mark.parametrize(("searched_samples", "written"), [(None, 3), (1, 1)])
def test_votes_over_searched_evidence_are_their_own_option(searched_samples, written) -> None:
    options = {"samples": 3, "searched_samples": searched_samples}
    _, searched = run(GATHERING, QUESTION, ListSearch([MDNA, CASH_FLOW]), **options)
    assert searched.count(WRITE) == written
    lm = marker_lm(GATHERING)
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        FinancialQA(**options)(question=QUESTION, passages=[CASH_FLOW])  # type: ignore[arg-type]
    assert lm.engine.count(WRITE) == 3  # gold context: the gold-context choice's votes


OVER_AN_INDEX = {
    "k": 5,
    "hypotheses": 1,
    "searched_samples": 1,
    "decompose": False,
    "query_writing": False,
    "curation": False,
    "explanations": "quoted",
}


@pytest.mark.parametrize("changed", sorted(OVER_AN_INDEX))
def test_over_gold_context_a_numeric_question_is_sent_the_same_whatever_the_search(
    changed,
) -> None:
    """The options the compile's open-corpus stage chooses cannot change gold-context
    answering: a figure asked over given passages sends the same requests."""

    def prompts(**options: object) -> list[str]:
        lm = marker_lm(GATHERING)
        with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
            qa = FinancialQA(samples=3, router=loop_router("always"), **options)  # type: ignore[arg-type]
            final = qa(question=QUESTION, passages=[MDNA, CASH_FLOW]).final
        assert final.value == pytest.approx(399.8)
        return sorted(lm.engine.prompts)

    assert prompts(**{changed: OVER_AN_INDEX[changed]}) == prompts()


def test_votes_over_searched_evidence_must_be_at_least_one() -> None:
    with pytest.raises(ValueError, match="searched_samples must be at least 1"):
        FinancialQA(searched_samples=0)


REASON = passage(
    "ACME_2024_10K:p2:tex2",
    "Revenue grew because demand for analyzers rose in every region. Services were flat.",
)
WHY = "Why did Acme's revenue grow in 2024?"


@pytest.mark.parametrize("explanations", ["free", "quoted"])
def test_quoted_explanations_answer_with_the_filings_sentences(explanations) -> None:
    rules: list[Rule] = [
        *GATHERING,
        (COT, {"reasoning": "the MD&A says so", "answer": "Demand was strong."}),
        (EXPLAIN, {"quote": "demand for analyzers rose in every region"}),
    ]
    final, engine = run(rules, WHY, ListSearch([REASON]), explanations=explanations)
    assert (engine.count(COT), engine.count(EXPLAIN)) == (
        (1, 0) if explanations == "free" else (0, 1)
    )
    if explanations == "quoted":
        assert final.answer == "demand for analyzers rose in every region"
        assert [c.passage_id for c in final.citations] == [REASON.id]
    else:
        assert final.answer == "Demand was strong."


def test_a_question_not_asking_why_is_answered_in_words_even_with_quoted_explanations() -> None:
    rules: list[Rule] = [
        *GATHERING,
        (COT, {"reasoning": "the MD&A", "answer": "Analyzers and services."}),
    ]
    final, engine = run(
        rules, "Which demand rose in every region", ListSearch([REASON]), explanations="quoted"
    )
    assert (engine.count(COT), engine.count(EXPLAIN)) == (1, 0)
    assert final.answer == "Analyzers and services."


def decided(deciding: str) -> list[Rule]:
    reply = {"deciding": deciding, "decision": "yes", "reason": "Operating cash flow rose."}
    return [*GATHERING, (DECIDE, reply)]


@pytest.mark.parametrize(
    ("deciding", "outcome"),
    [("Operating cash flow | 812.4 | 701.9", "answered"), ("cash flow rose to 812", "unverified")],
)
def test_a_yes_no_whose_deciding_figure_fails_the_quote_check_is_given_marked(
    deciding: str, outcome: str
) -> None:
    cash: list[Passage] = [
        passage("ACME_2024_10K:p4:tab3", "| | 2024 | 2023 |\n|---|---|---|\n"
                "| Operating cash flow | 812.4 | 701.9 |")
    ]  # fmt: skip
    final, _ = run(
        decided(deciding),
        "Did Acme's operating cash flow exceed 800 in 2024?",
        ListSearch(cash),
        answer_forms="guess",
    )
    assert final.answer.startswith("Yes. Operating cash flow rose.")
    assert final.outcome == outcome
    if outcome == "unverified":
        assert "the deciding figure could not be checked" in final.reason
