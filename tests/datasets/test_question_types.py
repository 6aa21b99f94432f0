import pytest

from filingqa.datasets.question_types import question_type
from filingqa.records.qa_record import QARecord


def record(dataset: str, meta: dict[str, str], program: str | None = None) -> QARecord:
    return QARecord(
        id="x",
        dataset=dataset,
        split="dev",
        question="Q?",
        answer="1",
        answer_value=1.0,
        answer_type="number",
        gold_program=program,
        meta=meta,
    )


@pytest.mark.parametrize(
    ("dataset", "meta", "expected"),
    [
        ("financebench", {"question_type": "metrics-generated"}, "metrics-generated"),
        ("tatqa", {"answer_from": "table-text"}, "table-text"),
        ("lofin", {"subset": "numeric"}, "numeric"),
        ("convfinqa", {"kind": "Double"}, "Double"),
        ("financebench", {}, ""),
        ("synthetic", {"question_type": "ignored"}, ""),
    ],
)
def test_each_dataset_labels_its_questions(dataset: str, meta: dict, expected: str) -> None:
    assert question_type(record(dataset, meta)) == expected


@pytest.mark.parametrize(
    ("program", "expected"),
    [
        ("divide(637, const_5)", "1 step"),
        ("subtract(5829, 5735), divide(#0, 5735)", "2 steps"),
        (None, ""),
    ],
)
def test_finqa_questions_are_typed_by_gold_program_steps(
    program: str | None, expected: str
) -> None:
    assert question_type(record("finqa", {}, program)) == expected
