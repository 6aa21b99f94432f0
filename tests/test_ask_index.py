"""``ask`` over an index: FinancialQA with a search handle, restricted to a company or documents."""

from pathlib import Path

import pytest

from filingqa.ask import (
    DocumentSearch,
    answer_over_index,
    answer_with_search,
    format_answer,
)
from filingqa.program.financial_qa import FinancialQA
from filingqa.records import Passage
from filingqa.retrieval.search.pipeline import FilingSearch, RankedPassage
from filingqa.retrieval.search.rerank import Reranker

from .kit.passages import CASH_FLOW, MDNA, QUESTION
from .kit.replies import NO_AMBIGUITY, chat, program_replies


class FakeFilingSearch:
    """What ask uses of FilingSearch: ``search``, ``ranked`` (with ``doc_ids``) and ``close``."""

    def __init__(self, passages: list[Passage]) -> None:
        self.passages = passages
        self.calls: list[dict] = []
        self.closed = False

    def ranked(self, query: str, *, k: int, company=None, period=None, doc_ids=None):
        self.calls.append({"query": query, "company": company, "doc_ids": doc_ids})
        kept = [p for p in self.passages if doc_ids is None or p.doc_id in doc_ids]
        return [RankedPassage(passage=p, score=1.0) for p in kept[:k]]

    def search(self, query: str, *, k: int, company=None, period=None) -> list[Passage]:
        return [r.passage for r in self.ranked(query, k=k, company=company, period=period)]

    def close(self) -> None:
        self.closed = True


def test_answer_with_search_prints_answer_working_and_citations(scripted_lm) -> None:
    search = FakeFilingSearch([MDNA, CASH_FLOW])
    answer = answer_with_search(QUESTION, search=search, lm=scripted_lm(program_replies()))
    assert answer.answer == "399.8 million"
    assert answer.working == "result = 812.4 - 412.6"
    assert [c.passage_id for c in answer.citations] == [CASH_FLOW.id]
    assert (answer.outcome, answer.refused, answer.untraced_numbers) == ("answered", False, [])
    assert (answer.lm_calls, answer.tokens) == (5, 75)
    assert {call["company"] for call in search.calls} == {"Acme"}
    printed = format_answer(answer)
    assert "Answer:   399.8 million" in printed
    assert "Outcome:  answered (single pass" in printed
    assert "    result = 812.4 - 412.6" in printed
    assert "  - ACME_2024_10K, page 4, table [ACME_2024_10K:p4:tab1]" in printed


def test_a_given_company_narrows_every_search(scripted_lm) -> None:
    search = FakeFilingSearch([MDNA, CASH_FLOW])
    answer_with_search(
        QUESTION, search=search, lm=scripted_lm(program_replies("Other")), company="ACME Corp"
    )
    assert {call["company"] for call in search.calls} == {"ACME Corp"}


def test_document_search_restricts_the_pipeline_to_the_documents() -> None:
    other = CASH_FLOW.model_copy(update={"id": "BETA_2024_10K:p4:tab1", "doc_id": "BETA_2024_10K"})
    inner = FakeFilingSearch([other, CASH_FLOW])
    found = DocumentSearch(inner, ["ACME_2024_10K"]).search("cash flow", k=5, company="Acme")
    assert found == [CASH_FLOW]
    assert inner.calls == [{"query": "cash flow", "company": "Acme", "doc_ids": ["ACME_2024_10K"]}]


def test_answer_over_index_opens_restricts_and_releases_the_index(
    scripted_lm, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake = FakeFilingSearch([MDNA, CASH_FLOW])
    opened: list[Path] = []

    def open_(index: Path, reranker: object = "default") -> FakeFilingSearch:
        opened.append(index)
        assert reranker == "default"  # no program: the default reranker
        return fake

    monkeypatch.setattr(FilingSearch, "open", open_)
    answer = answer_over_index(
        QUESTION, index=tmp_path, lm=scripted_lm(program_replies()), doc_ids=["ACME_2024_10K"]
    )
    assert answer.answer == "399.8 million"
    assert opened == [tmp_path] and fake.closed
    assert {tuple(call["doc_ids"]) for call in fake.calls} == {("ACME_2024_10K",)}


def test_a_compiled_programs_own_reranker_orders_the_search(
    scripted_lm, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    own = Reranker()
    program = FinancialQA(samples=1)
    program.reranker = own
    used: list[object] = []

    def open_(index: Path, reranker: object = "default") -> FakeFilingSearch:
        used.append(reranker)
        return FakeFilingSearch([MDNA, CASH_FLOW])

    monkeypatch.setattr(FilingSearch, "open", open_)
    answer_over_index(QUESTION, index=tmp_path, lm=scripted_lm(program_replies()), program=program)
    assert used == [own]


def test_a_worded_answer_says_there_is_no_program(scripted_lm) -> None:
    replies = [
        chat(**NO_AMBIGUITY),
        chat(company="Acme", period="FY2024", variants=[]),
        chat(hypotheses=[]),
        chat(keep=[1], answerable=True, missing="", complementary_query=""),
        chat(reasoning="the MD&A says so", answer="Demand for analyzers."),
    ]
    answer = answer_with_search(
        "Why did Acme's free cash flow rise?",
        search=FakeFilingSearch([MDNA]),
        lm=scripted_lm(replies),
    )
    assert answer.answer == "Demand for analyzers."
    printed = format_answer(answer)
    assert "Working:  none (answered in words from the sources)" in printed
    assert "[ACME_2024_10K:p2:tex1]" in printed


def test_empty_question_is_rejected(scripted_lm) -> None:
    with pytest.raises(ValueError, match="empty"):
        answer_with_search(" ", search=FakeFilingSearch([]), lm=scripted_lm([]))
