"""Two runs of one setting by two code versions, compared question by question."""

import pytest

from filingqa.evaluation import run_pairs
from filingqa.records import QARecord

from ..kit.data import judged_row


def record(id_: str, docs: list[str], missing: list[str] | None = None) -> QARecord:
    return QARecord(
        id=id_,
        dataset="financebench",
        split="dev",
        question="Q",
        answer="1",
        answer_value=1.0,
        answer_type="number",
        meta={"pdf_paths": {d: f"/x/{d}.pdf" for d in docs}, "missing_pdfs": missing or []},
    )


def test_the_company_of_a_document_name_is_its_part_before_the_year() -> None:
    assert run_pairs.company_key("3M_2018_10K") == "3m"
    assert run_pairs.company_key("AMERICANEXPRESS_2022Q2_EARNINGS") == "americanexpress"
    assert run_pairs.company_key("JOHNSON_JOHNSON_2023_8K_dated-2023-08-30") == "johnsonjohnson"


def test_an_absent_filing_answered_from_another_company_is_flagged() -> None:
    absent = record("a", [], missing=["AES_2022_10K"])
    own = judged_row(id="a", score=1.0, cited=[("AES_2021_10K", 40)])
    cited = [("GENERALMILLS_2022_10K", 3), ("AES_2021_10K", 1)]
    foreign = judged_row(id="a", score=0.0, cited=cited)
    refused = judged_row(id="a", score=0.0, outcome="not_indexed")
    assert run_pairs.foreign_citations(foreign, absent) == ["GENERALMILLS_2022_10K"]
    assert run_pairs.absent_handling(own, absent) == "correct"
    assert run_pairs.absent_handling(foreign, absent) == "other company"
    assert run_pairs.absent_handling(refused, absent) == "not_indexed"


def test_runs_are_compared_on_the_questions_both_answered() -> None:
    records = {i: record(i, ["3M_2018_10K"]) for i in "abc"}
    yes_no = {"answer_type": "yes_no", "question_type": "domain-relevant"}
    before = [
        judged_row(id="a", score=0.0, seconds=10.0, **yes_no),
        judged_row(id="b", score=1.0, seconds=10.0, question_type="metrics-generated"),
        judged_row(id="c", score=0.0, seconds=10.0, question_type="metrics-generated"),
    ]
    after = [
        judged_row(id="a", score=1.0, seconds=12.0, **yes_no),
        judged_row(id="b", score=1.0, seconds=12.0, question_type="metrics-generated"),
    ]
    figures = run_pairs.compare_runs(before, after, records, ("before", "after"))
    assert figures["questions"] == 2
    assert (figures["paired"]["wins"], figures["paired"]["losses"]) == (1, 0)
    assert figures["speed_ratio"] == pytest.approx(1.2)
    assert figures["after"]["yes_no"] == "1/1"
    by_type = {"domain-relevant": "0/1", "metrics-generated": "1/1"}
    assert figures["before"]["by_question_type"] == by_type
    assert "wins   1  losses   0" in figures["text"]
