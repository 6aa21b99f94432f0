"""Questions about filings the corpus lacks: counted ``not_indexed`` in the outcomes, and the
summary's accuracy over all questions and over the answerable ones."""

from __future__ import annotations

from pathlib import Path

import dspy
import pytest

from filingqa.evaluation.modes import ModeAnswer, searching_program
from filingqa.evaluation.open_corpus import OpenCorpus, RecordingSearch
from filingqa.evaluation.runner import run_mode
from filingqa.evaluation.summary import format_table, summarize
from filingqa.metrics.judge import StrictJudge
from filingqa.program.financial_qa import FinancialQA
from filingqa.records import QARecord

from ..kit.data import judged_row
from ..kit.lm import marker_lm
from ..kit.passages import CASH_FLOW, ListSearch, held


def record(question: str, missing: list[str]) -> QARecord:
    return QARecord(
        id="fb_globex",
        dataset="financebench",
        split="dev",
        question=question,
        answer="$120.0 million",
        answer_value=120.0,
        answer_type="number",
        meta={"missing_pdfs": missing},
    )


def test_a_question_about_a_filing_the_corpus_lacks_is_counted_not_indexed(
    tmp_path: Path,
) -> None:
    search = ListSearch([CASH_FLOW], holdings=held("ACME_2024_10K"))
    mode = searching_program(OpenCorpus(search=search, plain=search), FinancialQA())
    asked = record("What was Globex's free cash flow in 2024?", ["GLOBEX_2024_10K"])
    with dspy.context(lm=marker_lm([])):  # no LM call may be made
        [row] = run_mode(
            [asked], mode, judge=StrictJudge(), rows_path=tmp_path / "r.jsonl", progress=False
        )
    assert row.outcome == "not_indexed" and row.in_corpus is False
    assert row.answer.startswith("Not in the index: no filing of Globex is indexed")
    assert row.score == 0 and row.lm_calls == 0 and search.calls == []
    assert [step.name for step in row.steps] == ["holdings"]


def test_the_summary_counts_not_indexed_and_reports_accuracy_over_the_answerable() -> None:
    rows = [
        judged_row(id="a", score=1.0, in_corpus=True),
        judged_row(id="b", score=0.0, in_corpus=True),
        judged_row(id="c", score=1.0),  # the dataset does not say: answerable
        judged_row(id="d", score=0.0, outcome="not_indexed", in_corpus=False),
    ]
    summary = summarize(rows)
    assert summary.outcomes == {"answered": 3, "not_indexed": 1}
    assert summary.accuracy == pytest.approx(0.5)
    assert summary.answerable == 3
    assert summary.answerable_accuracy == pytest.approx(2 / 3)
    lines = format_table({"program@retrieved": summary}).splitlines()
    assert lines[1].endswith("answered 3, not_indexed 1")
    assert lines[-1] == (
        "note: program@retrieved: accuracy 66.7% over the 3 answerable questions "
        "(1 ask about filings not in the corpus; 50.0% over all)"
    )


def test_no_answerable_line_when_every_question_is_answerable() -> None:
    summary = summarize([judged_row(id="a", in_corpus=True), judged_row(id="b")])
    assert (summary.answerable, summary.answerable_accuracy) == (2, 1.0)
    assert len(format_table({"program": summary}).splitlines()) == 2
    assert summarize([]).answerable_accuracy is None


def test_rows_know_whether_their_filings_are_in_the_corpus(tmp_path: Path) -> None:
    def mode(asked: QARecord) -> ModeAnswer:
        return ModeAnswer(answer="1")

    records = [
        record("Q one?", []),
        record("Q two?", ["GLOBEX_2024_10K"]).model_copy(update={"id": "fb_2"}),
        record("Q three?", []).model_copy(update={"id": "fb_3", "meta": {}}),
    ]
    rows = run_mode(
        records, mode, judge=StrictJudge(), rows_path=tmp_path / "r.jsonl", progress=False
    )
    assert [r.in_corpus for r in rows] == [True, False, None]


def test_the_recording_search_tells_what_its_handle_holds() -> None:
    holdings = held("ACME_2024_10K")
    assert RecordingSearch(ListSearch(holdings=holdings)).holdings() == holdings
    assert RecordingSearch(ListSearch()).holdings() is None
