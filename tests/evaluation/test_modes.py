"""Eval settings over gold context and over a tiny open corpus, with a scripted LM."""

from pathlib import Path

import dspy
import pytest

from filingqa.evaluation.modes import MODES, build_mode, compiled
from filingqa.evaluation.open_corpus import OpenCorpus
from filingqa.records.qa_record import Context, Evidence, Page, QARecord
from filingqa.retrieval.search.rerank import Reranker
from filingqa.router.lightgbm_router import LightGBMRouter
from filingqa.router.rule import loop_router

from ..kit.lm import marker_lm
from ..kit.passages import CASH_FLOW, QUESTION, ListSearch
from ..kit.replies import (
    ACCEPT,
    AMBIGUITY,
    CURATE,
    DECOMPOSE,
    HYDE,
    NO_AMBIGUITY,
    QUOTE,
    REWRITE,
    VERIFY,
    WRITE,
    chat,
    fenced,
    program_replies,
)

PROGRAM_REPLIES = program_replies()
RECORD = QARecord(
    id="fb_1",
    dataset="financebench",
    split="dev",
    question=QUESTION,
    answer="$399.8 million",
    answer_value=399.8,
    answer_type="number",
    scale="million",
    evidence=[Evidence(doc_name="ACME_2024_10K", page=3, text="812.4")],
    context=Context(pages=[Page(doc_name="ACME_2024_10K", page=3, text=CASH_FLOW.text)]),
)


def corpus(full: ListSearch | None = None, plain: ListSearch | None = None) -> OpenCorpus:
    return OpenCorpus(search=full or ListSearch(), plain=plain or ListSearch(), k=2)


def test_naive_rag_answers_once_from_the_plain_top_k(scripted_lm) -> None:
    full, plain = ListSearch(), ListSearch()
    lm = scripted_lm([chat(reasoning="the cash flow table", answer="399.8 million")])
    with dspy.context(lm=lm):
        answer = build_mode("naive-rag", corpus(full, plain))(RECORD)
    assert answer.answer == "399.8 million"
    assert answer.working == "the cash flow table"
    assert plain.calls == [{"query": QUESTION, "k": 2, "company": None, "period": None}]
    assert full.calls == []
    assert answer.retrieved == [("ACME_2024_10K", 4), ("BETA_2024_10K", 9)]
    assert answer.gold_retrieved is True  # evidence page 3 (0-based) is page 4
    assert answer.given == answer.retrieved and answer.gold_given is True  # read all it found
    assert len(lm.history) == 1
    assert "812.4" in lm.engine.prompts[0]


def test_a_miss_is_recorded_when_no_gold_page_is_retrieved(scripted_lm) -> None:
    plain = ListSearch([p for p in ListSearch().passages if p.id != CASH_FLOW.id])
    lm = scripted_lm([chat(reasoning="-", answer="not stated in the evidence")])
    with dspy.context(lm=lm):
        answer = build_mode("naive-rag", corpus(plain=plain))(RECORD)
    assert answer.gold_retrieved is False and answer.gold_given is False
    assert ("ACME_2024_10K", 4) not in answer.retrieved


def test_pot_over_retrieved_passages_cites_the_pages_its_numbers_come_from(scripted_lm) -> None:
    lm = scripted_lm([fenced("result = 812.4 - 412.6")])
    with dspy.context(lm=lm):
        answer = build_mode("pot", corpus())(RECORD)
    assert answer.answer.startswith("399.8")
    assert answer.cited == [("ACME_2024_10K", 4)]
    assert answer.gold_retrieved is True


def test_program_searches_with_the_full_pipeline_and_records_what_it_found(scripted_lm) -> None:
    full, plain = ListSearch(), ListSearch()
    lm = scripted_lm(PROGRAM_REPLIES)
    with dspy.context(lm=lm):
        answer = build_mode("program", corpus(full, plain))(RECORD)
    assert answer.answer == "399.8 million"
    assert answer.outcome == "answered"
    assert answer.cited == [("ACME_2024_10K", 4)]
    assert plain.calls == []
    assert {call["company"] for call in full.calls} == {"Acme"}
    assert ("ACME_2024_10K", 4) in answer.retrieved
    assert answer.gold_retrieved is True
    assert answer.given is not None and set(answer.given) <= set(answer.retrieved)
    assert ("ACME_2024_10K", 4) in answer.given and answer.gold_given is True
    assert len(lm.history) == len(PROGRAM_REPLIES)


def test_gold_context_settings_do_not_search(scripted_lm) -> None:
    lm = scripted_lm([fenced("result = 812.4 - 412.6")])
    with dspy.context(lm=lm):
        answer = build_mode("pot")(RECORD)
    assert answer.answer.startswith("399.8")
    assert answer.retrieved is None and answer.gold_retrieved is None
    assert answer.given is None and answer.gold_given is None
    assert answer.cited == [("ACME_2024_10K", 4)]


def test_naive_rag_needs_an_index_and_unknown_modes_are_named() -> None:
    with pytest.raises(ValueError, match="naive-rag retrieves its evidence"):
        build_mode("naive-rag")
    with pytest.raises(ValueError, match="unknown eval mode 'magic'"):
        build_mode("magic")
    with pytest.raises(ValueError, match="give its folder"):
        build_mode("compiled")
    assert set(MODES) == {
        "direct",
        "cot",
        "pot",
        "naive-rag",
        "program",
        "program+forms",
        "program+guess",
        "program-forms",
        "compiled",
        "compiled+router",
    }


def test_the_program_with_answer_forms_quotes_a_stated_figure() -> None:
    record = RECORD.model_copy(update={"question": "What was operating cash flow in 2024?"})
    rules = [
        (AMBIGUITY, NO_AMBIGUITY),
        (QUOTE, {"quote": "812.4"}),
        (WRITE, fenced("result = 812.4")),
    ]
    with dspy.context(lm=marker_lm(rules)):
        guessed = build_mode("program+guess")(record)
    assert (guessed.answer, guessed.cited) == ("812.4 million", [("ACME_2024_10K", 4)])
    assert [s.name for s in guessed.steps][:3] == ["ambiguity", "answer form", "route"]
    with dspy.context(lm=marker_lm(rules)):
        without = build_mode("program-forms")(record)
    assert without.answer.startswith("812.4") and "answer form" not in [
        s.name for s in without.steps
    ]


ARTIFACT = Path(__file__).resolve().parents[2] / "artifacts" / "qwen-local"


class RerankableSearch(ListSearch):
    """A ListSearch that, like FilingSearch, can be given another reranker."""

    def __init__(self) -> None:
        super().__init__()
        self.reranker: Reranker | None = None

    def with_reranker(self, reranker: Reranker | None) -> "RerankableSearch":
        self.reranker = reranker
        return self


# The same question by rule, whatever the artifact's structure asks (votes, loop, forms).
COMPILED_RULES = [
    (AMBIGUITY, NO_AMBIGUITY),
    (REWRITE, {"company": "Acme", "period": "FY2024", "variants": ["operating cash flow"]}),
    (HYDE, {"hypotheses": [{"query": "cash flow statement", "passage": "Operating cash flow"}]}),
    (CURATE, {"keep": [1, 2], "answerable": True, "missing": "", "complementary_query": ""}),
    (DECOMPOSE, {"steps": [{"question": "free cash flow 2024", "kind": "computation"}]}),
    (WRITE, fenced("result = 812.4 - 412.6")),
    (VERIFY, ACCEPT),
]


def test_compiled_runs_the_artifacts_structure_and_reranker() -> None:
    full = RerankableSearch()
    lm = marker_lm(COMPILED_RULES)
    with dspy.context(lm=lm):
        answer = build_mode("compiled", corpus(full), ARTIFACT)(RECORD)
    assert answer.answer == "399.8 million" and answer.outcome == "answered"
    assert isinstance(full.reranker, Reranker)  # the artifact's, not the index default
    qa = compiled(ARTIFACT, trained_router=False)
    route = next(step for step in answer.steps if step.name == "route")
    assert qa.router(QUESTION).reason in route.note  # the structure's loop policy
    options = qa.manifest.program_options
    assert qa.pot.samples == options["samples"] and qa.form.choice == options["answer_forms"]
    if options["answer_forms"] != "off":
        assert "answer form" in [step.name for step in answer.steps]


def test_compiled_and_compiled_with_router_differ_by_the_router_alone() -> None:
    unrouted = compiled(ARTIFACT, trained_router=False)
    trained = compiled(ARTIFACT, trained_router=True)
    assert unrouted.manifest.loop is not None  # a structure-search artifact
    by_policy = loop_router(unrouted.manifest.loop)
    assert unrouted.router("What was revenue in 2024?") == by_policy("What was revenue in 2024?")
    assert isinstance(trained.router, LightGBMRouter)
    assert unrouted.dump_state() == trained.dump_state()
