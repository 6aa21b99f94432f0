"""The record model, answer parsing, FinanceBench and LOFin records, on synthetic data."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from filingqa.datasets import load_dataset
from filingqa.datasets.parsing import classify_answer, parse_quantity
from filingqa.records import Context, Evidence, Paragraph, QARecord, Table, Turn


def make(**fields: object) -> QARecord:
    base: dict[str, object] = {
        "id": "r1",
        "dataset": "demo",
        "split": "dev",
        "question": "How much?",
        "answer": "5",
        "answer_value": 5.0,
        "answer_type": "number",
    }
    return QARecord(**(base | fields))


def test_int_value_becomes_float_and_documents_default_to_evidence() -> None:
    record = make(answer_value=5, evidence=[Evidence(doc_name="A", page=0), Evidence(doc_name="A")])
    assert type(record.answer_value) is float
    assert record.documents == ["A"]
    assert record.spec == "demo:dev"


@pytest.mark.parametrize(
    ("answer_type", "value"),
    [("number", True), ("yes_no", 1.0), ("span", "x"), ("explanation", 1.0), ("count", None)],
)
def test_value_must_match_answer_type(answer_type: str, value: object) -> None:
    with pytest.raises(ValidationError, match="answer_value"):
        make(answer_type=answer_type, answer_value=value)


@pytest.mark.parametrize(("field", "value"), [("scale", "lakh"), ("answer_type", "numeric")])
def test_invalid_literals(field: str, value: str) -> None:
    with pytest.raises(ValidationError):
        make(**{field: value})


def test_pages_are_zero_indexed() -> None:
    with pytest.raises(ValidationError):
        Evidence(doc_name="A", page=-1)


def test_context_text_and_dspy_example() -> None:
    record = make(
        context=Context(
            tables=[Table(id="t", rows=[["a", "1"]], caption="in millions")],
            paragraphs=[Paragraph(id="p1", text="Hello.")],
        ),
        history=[Turn(question="Q0?", answer="1", program="ans = 1")],
    )
    text = record.context_text()
    assert text.startswith("Conversation so far:\nQ: Q0?\nA: 1")
    assert "in millions\n| a | 1 |" in text
    assert "[p1] Hello." in text
    example = record.to_dspy_example()
    assert set(example.inputs().keys()) == {"question", "context"}
    assert example.labels().answer_value == 5.0
    assert example.context == text


@pytest.mark.parametrize(
    ("text", "value", "scale", "unit"),
    [
        ("$1,577.00", 1577.0, "", "USD"),
        ("(12.5)", -12.5, "", None),
        ("−4.2%", -4.2, "percent", "%"),
        ("3.5 million", 3.5, "million", None),
        ("1e-05", 1e-05, "", None),
        ("-$ 5", -5.0, "", "USD"),
    ],
)
def test_parse_quantity(text: str, value: float, scale: str, unit: str | None) -> None:
    assert parse_quantity(text) == (value, scale, unit)


@pytest.mark.parametrize("text", ["abc", "1.2.3", "(5", "They could receive $66.56 per share."])
def test_parse_quantity_rejects_non_numbers(text: str) -> None:
    assert parse_quantity(text) is None


@pytest.mark.parametrize(
    ("answer", "question", "expected"),
    [
        ("$1832.00", "What is EBITDA in USD millions?", ("number", 1832.0, "million", "USD")),
        ("65.4%", "", ("number", 65.4, "percent", "%")),
        ("0.66", "", ("number", 0.66, "", None)),
        ("Yes. It decreased.", "", ("yes_no", True, "", None)),
        ("No, it is not.", "", ("yes_no", False, "", None)),
        ("Nobody knows", "", ("explanation", None, "", None)),
    ],
)
def test_classify_answer(answer: str, question: str, expected: tuple) -> None:
    assert tuple(classify_answer(answer, question)) == expected


def test_financebench_record(synthetic_data_dir: Path) -> None:
    (record,) = load_dataset("financebench:dev", synthetic_data_dir)
    assert (record.answer_value, record.scale, record.unit) == (120.0, "million", "USD")
    assert record.evidence[0].page == 3
    assert record.context.pages[0].page == 3
    assert record.meta["doc_type"] == "10k"
    assert record.meta["missing_pdfs"] == ["ACME_2020_10K"]
    pdf = synthetic_data_dir / "financebench/pdfs/ACME_2020_10K.pdf"
    pdf.parent.mkdir()
    pdf.write_bytes(b"%PDF-1.4")
    (record,) = load_dataset("financebench:dev", synthetic_data_dir)
    assert record.meta["pdf_paths"] == {"ACME_2020_10K": str(pdf)}
    assert record.meta["missing_pdfs"] == []


def test_lofin_record(synthetic_data_dir: Path) -> None:
    (record,) = load_dataset("lofin:numeric_table_test", synthetic_data_dir)
    assert (record.answer_type, record.answer_value, record.scale) == ("number", 12.5, "percent")
    assert record.context is None
    assert (record.evidence[0].doc_name, record.evidence[0].page) == ("ACME_2020_10K", 5)
    assert record.documents == ["ACME_2020_10K"]
    assert record.meta["evidence_type"] == "table"
