"""Ingestion of PDF / HTML / text filings and QA contexts into passages; batch errors."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from filingqa.records.documents import Document
from filingqa.records.qa_record import Context, Paragraph, QARecord, Table
from filingqa.retrieval.ingest import filings as ingest_module
from filingqa.retrieval.ingest.filings import (
    IngestedDocument,
    IngestFailure,
    context_passages,
    document_from_name,
    expected_pages,
    ingest,
    ingest_many,
    text_pages,
)
from filingqa.retrieval.ingest.html import html_pages
from filingqa.retrieval.ingest.pdf import UnreadableDocument

from ..pdf_fixtures import write_fixtures

FIXTURES = write_fixtures()
SAMPLE = Path(__file__).resolve().parents[3] / "filingqa" / "samples" / "northwind_fy2024_10k.txt"

FILING_HTML = """<html><head><title>10-K</title><style>p {margin:0}</style></head><body>
<p>ACME CORP ANNUAL REPORT</p>
<div style="page-break-after: always"></div>
<p><b>Item 7. Management&#8217;s Discussion and Analysis</b></p>
<p>Revenue grew&nbsp;8% in 2024.</p>
<hr style="page-break-after:always">
<p>Item 8. Financial Statements and Supplementary Data</p>
<p>CONSOLIDATED BALANCE SHEETS</p>
<p>(In millions)</p>
<table>
<tr><td></td><td colspan="5">December 31,</td></tr>
<tr><td></td><td colspan="2">2024</td><td></td><td colspan="2">2023</td></tr>
<tr><td>Cash</td><td>$</td><td>1,200</td><td></td><td>$</td><td>1,100</td></tr>
<tr><td>Total assets</td><td></td><td>9,876</td><td></td><td></td><td>(5</td><td>)</td></tr>
</table>
<table><tr><td>Signature</td></tr></table>
</body></html>"""


@pytest.fixture(autouse=True)
def _home(isolated_home: Path) -> Path:
    return isolated_home


def test_sample_filing_ingests_with_pages_items_and_tables() -> None:
    result = ingest(SAMPLE)
    assert result.document.pages == 4
    assert result.document.doc_type == "10k" and result.document.fiscal_year == 2024
    passages = {p.id: p for p in result.passages}
    assert len(passages) == len(result.passages)
    table = passages["northwind_fy2024_10k:p4:table1"]
    assert table.title == "Table 2. Consolidated Statements of Cash Flows (condensed) (In millions)"
    assert "| Purchases of property and equipment | (412.6) | (355.0) | (298.7) |" in table.text
    assert table.item == "Item 8"
    mdna = next(p for p in result.passages if "Tucson assembly plant" in p.text)
    assert (mdna.page, mdna.kind, mdna.item) == (2, "text", "Item 7")
    assert result.passages[0].item is None


def test_pdf_ingests_with_sections_and_table_passages() -> None:
    result = ingest(FIXTURES / "filing.pdf")
    assert result.document.doc_id == "filing" and result.document.pages == 3
    by_page = {p.page for p in result.passages}
    assert by_page == {1, 2, 3}
    assert all(p.item is None for p in result.passages if p.page == 1)  # the contents page
    (table,) = [p for p in result.passages if p.kind == "table"]
    assert table.id == "filing:p3:table1" and table.item == "Item 8"
    assert "| Restructuring | — | (12.5) |" in table.text
    growth = next(p for p in result.passages if "7.3%" in p.text)
    assert (growth.page, growth.item) == (2, "Item 7")


def test_pages_are_counted_before_a_file_is_read(tmp_path: Path) -> None:
    assert expected_pages(FIXTURES / "filing.pdf") == ingest(FIXTURES / "filing.pdf").document.pages
    assert expected_pages(SAMPLE) == ingest(SAMPLE).document.pages
    html = tmp_path / "filing.html"
    html.write_text(FILING_HTML)
    assert expected_pages(html) == 1  # known once read (3 here)
    assert [expected_pages(path) for path in _bad_files(tmp_path)] == [1, 1, 1, 1]


def test_parsed_pdfs_are_cached_by_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "ACME_2024_10K.pdf"
    shutil.copy(FIXTURES / "filing.pdf", copy)
    first = ingest(copy)

    def fail(path: Path) -> None:
        raise AssertionError("parsed again")

    monkeypatch.setattr(ingest_module, "_read_pdf", fail)
    assert ingest(copy) == first


def test_html_pages_tables_and_items() -> None:
    pages = html_pages(FILING_HTML)
    assert len(pages) == 3
    assert pages[0].blocks == ["ACME CORP ANNUAL REPORT"]
    assert pages[1].blocks == [
        "Item 7. Management’s Discussion and Analysis",
        "Revenue grew 8% in 2024.",
    ]
    (table,) = pages[2].tables
    assert table.caption == "CONSOLIDATED BALANCE SHEETS (In millions)"
    assert table.rows == [
        ["", "December 31,", "December 31,"],
        ["", "2024", "2023"],
        ["Cash", "$1,200", "$1,100"],
        ["Total assets", "9,876", "(5)"],
    ]
    assert pages[2].blocks[-1] == "Signature"


def test_html_file_ingests(tmp_path: Path) -> None:
    path = tmp_path / "ACME_2024_10K.htm"
    path.write_text(FILING_HTML, encoding="utf-8")
    result = ingest(path)
    table = next(p for p in result.passages if p.kind == "table")
    assert (table.page, table.item) == (3, "Item 8")
    assert "| Cash | $1,200 | $1,100 |" in table.text


def test_text_pages_find_pipe_tables_and_captions() -> None:
    text = (
        "Intro line.\n\nTable 1. Sales\n(In millions)\n\n"
        "| Year | 2024 |\n|---|---|\n| Sales | 5 |\nAfter."
    )
    (page,) = text_pages(text)
    assert page.blocks[0] == "Intro line."
    table = page.blocks[1]
    assert isinstance(table, Table)
    assert table.caption == "Table 1. Sales (In millions)"
    assert table.rows == [["Year", "2024"], ["Sales", "5"]]
    assert page.blocks[2] == "After."


def test_table_after_a_colon_takes_the_lead_in_sentence_as_caption() -> None:
    text = "Liquidity is ample. Cash was as follows:\n\n| | 2024 |\n|---|---|\n| Cash | 5 |"
    (page,) = text_pages(text)
    assert page.blocks[0] == "Liquidity is ample. Cash was as follows:"
    assert page.tables[0].caption == "Cash was as follows:"


def test_long_text_becomes_chunks_with_a_parent(tmp_path: Path) -> None:
    path = tmp_path / "long.txt"
    path.write_text(" ".join(f"Sentence {i} about revenue." for i in range(400)))
    passages = ingest(path).passages
    assert len(passages) > 1
    assert {p.parent_id for p in passages} == {"long:p1:text1"}
    assert passages[0].id == "long:p1:text1.1"


def test_explicit_document_metadata_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    path.write_text("Hello.")
    result = ingest(path, Document(doc_id="ACME_2024_10K", company="Acme", doc_type="10k"))
    assert result.document.company == "Acme" and result.document.source == str(path)
    assert result.passages[0].id == "ACME_2024_10K:p1:text1"


@pytest.mark.parametrize(
    ("name", "fields"),
    [
        ("3M_2023Q2_10Q", ("3M", "10q", 2023, 2)),
        ("JOHNSON_JOHNSON_2022Q4_EARNINGS", ("JOHNSON JOHNSON", "earnings", 2022, 4)),
        ("AMCOR_2022_8K_dated-2022-07-01", ("AMCOR", "8k", 2022, None)),
        ("notes", (None, "other", None, None)),
    ],
)
def test_document_from_financebench_name(name: str, fields: tuple) -> None:
    doc = document_from_name(name)
    assert (doc.company, doc.doc_type, doc.fiscal_year, doc.fiscal_quarter) == fields


def test_unsupported_and_empty_files_raise(tmp_path: Path) -> None:
    (tmp_path / "a.docx").write_bytes(b"x")
    (tmp_path / "b.txt").write_text("  \n")
    for name, reason in (("a.docx", "unsupported"), ("b.txt", "empty")):
        with pytest.raises(UnreadableDocument) as caught:
            ingest(tmp_path / name)
        assert caught.value.reason == reason


def _bad_files(tmp_path: Path) -> list[Path]:
    corrupt = tmp_path / "corrupt.pdf"
    corrupt.write_bytes(b"%PDF-1.4\n" + bytes(range(256)) * 8)
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    return [corrupt, FIXTURES / "encrypted.pdf", empty, FIXTURES / "image_only.pdf"]


def test_batch_reports_each_bad_file_and_continues(tmp_path: Path) -> None:
    paths = [FIXTURES / "filing.pdf", *_bad_files(tmp_path), SAMPLE]
    results = list(ingest_many(paths, progress=False))
    assert [type(r).__name__ for r in results] == [
        "IngestedDocument",
        *["IngestFailure"] * 4,
        "IngestedDocument",
    ]
    failures = [r for r in results if isinstance(r, IngestFailure)]
    assert [f.reason for f in failures] == ["corrupt", "encrypted", "empty", "image-only"]
    assert failures[1].message == f"{FIXTURES / 'encrypted.pdf'}: encrypted: password-protected"


def test_batch_turns_unexpected_errors_into_failures(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(path: Path) -> list:
        raise ValueError("layout bug")

    monkeypatch.setattr(ingest_module, "read_pages", boom)
    (failure,) = ingest_many([SAMPLE], progress=False)
    assert isinstance(failure, IngestFailure)
    assert (failure.reason, failure.detail) == ("failed", "ValueError: layout bug")


def test_batch_can_stop_at_the_first_error(tmp_path: Path) -> None:
    with pytest.raises(UnreadableDocument):
        list(ingest_many(_bad_files(tmp_path), on_error="raise", progress=False))


def _record(documents: list[str], rows: list[list[str]], paragraphs: list[str]) -> QARecord:
    return QARecord(
        id="q1",
        dataset="finqa",
        split="dev",
        question="What was revenue?",
        answer="5",
        answer_value=5.0,
        answer_type="number",
        documents=documents,
        context=Context(
            tables=[Table(id="table", rows=rows)],
            paragraphs=[Paragraph(id=f"text_{i}", text=t) for i, t in enumerate(paragraphs)],
        ),
    )


def test_finqa_context_becomes_table_and_text_passages() -> None:
    record = _record(
        ["ADI/2009/page_49.pdf"],
        [["", "2009", "2008"], ["revenue", "$ 5", "$ 4"]],
        ["revenue rose .", "costs fell ."],
    )
    passages = context_passages(record)
    assert [p.id for p in passages] == [
        "ADI/2009/page_49.pdf:p49:table1",
        "ADI/2009/page_49.pdf:p49:text1",
        "ADI/2009/page_49.pdf:p49:text2",
    ]
    assert passages[0].text.splitlines()[0] == "|  | 2009 | 2008 |"
    assert passages[2].text == "costs fell ."


def test_tatqa_context_gets_page_one_and_row_groups_for_big_tables() -> None:
    rows = [["", "2019", "2018"]] + [[f"Item {i}", str(i), str(i + 1)] for i in range(80)]
    passages = context_passages(_record(["uid-123"], rows, ["A paragraph."]))
    assert {p.page for p in passages} == {1}
    parts = [p for p in passages if p.parent_id == "uid-123:p1:table1"]
    assert len(parts) > 1
    assert all(p.text.splitlines()[0] == "|  | 2019 | 2018 |" for p in parts)


def test_record_without_context_has_no_passages() -> None:
    record = _record(["x"], [["a", "b"]], [])
    assert context_passages(record.model_copy(update={"context": None})) == []


def test_ingested_document_round_trips() -> None:
    result = ingest(SAMPLE)
    assert IngestedDocument.model_validate_json(result.model_dump_json()) == result
