"""FinanceBench: open-book questions on public-company filings (PDFs, zero-indexed pages)."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from filingqa.datasets.base import DatasetLoader, read_jsonl
from filingqa.datasets.parsing import classify_answer
from filingqa.records.qa_record import Context, Evidence, Page, QARecord

NAME = "financebench"
DOC_INFO_FILE = "financebench/financebench_document_information.jsonl"
PDF_DIR = "financebench/pdfs"


@functools.cache
def _document_info(path: Path) -> dict[str, dict[str, Any]]:
    if not path.is_file():
        return {}
    return {row["doc_name"]: row for row in read_jsonl(path)}


def pdf_path(data_dir: Path, doc_name: str) -> Path:
    """Where the PDF of ``doc_name`` is expected (it may be missing)."""
    return data_dir / PDF_DIR / f"{doc_name}.pdf"


def _record(row: dict[str, Any], split: str, data_dir: Path) -> QARecord:
    evidence = [
        Evidence(doc_name=ev["doc_name"], page=ev["evidence_page_num"], text=ev["evidence_text"])
        for ev in row["evidence"]
    ]
    pages = {
        (ev["doc_name"], ev["evidence_page_num"]): ev["evidence_text_full_page"]
        for ev in row["evidence"]
    }
    documents = list(dict.fromkeys([row["doc_name"], *(ev.doc_name for ev in evidence)]))
    pdfs = {doc: pdf_path(data_dir, doc) for doc in documents}
    info = _document_info(data_dir / DOC_INFO_FILE).get(row["doc_name"], {})
    answer = classify_answer(row["answer"], row["question"])
    return QARecord(
        id=row["financebench_id"],
        dataset=NAME,
        split=split,
        question=row["question"],
        answer=row["answer"],
        answer_value=answer.value,
        answer_type=answer.answer_type,
        scale=answer.scale,
        unit=answer.unit,
        evidence=evidence,
        context=Context(
            pages=[Page(doc_name=doc, page=page, text=text) for (doc, page), text in pages.items()]
        ),
        documents=documents,
        meta={
            "company": row["company"],
            "question_type": row["question_type"],
            "question_reasoning": row["question_reasoning"],
            "domain_question_num": row["domain_question_num"],
            "justification": row["justification"],
            "doc_type": info.get("doc_type"),
            "doc_period": info.get("doc_period"),
            "gics_sector": info.get("gics_sector"),
            "doc_link": info.get("doc_link"),
            "pdf_paths": {doc: str(path) for doc, path in pdfs.items() if path.is_file()},
            "missing_pdfs": [doc for doc, path in pdfs.items() if not path.is_file()],
        },
    )


def _read(path: Path, split: str, data_dir: Path) -> Iterator[QARecord]:
    for row in read_jsonl(path):
        yield _record(row, split, data_dir)


def _notes(records: list[QARecord]) -> list[str]:
    documents = {doc for record in records for doc in record.documents}
    missing = {doc for record in records for doc in record.meta["missing_pdfs"]}
    affected = sum(bool(record.meta["missing_pdfs"]) for record in records)
    if not missing:
        return [f"all {len(documents)} PDFs present"]
    return [f"{len(missing)} of {len(documents)} PDFs missing ({affected} questions affected)"]


LOADER = DatasetLoader(
    name=NAME,
    patterns=("financebench/financebench_{split}.jsonl",),
    read=_read,
    not_splits=frozenset({"document_information"}),
    notes=_notes,
)
