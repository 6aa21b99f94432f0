"""PDF reading: pages, paragraphs, whitespace-aligned tables, typed errors for bad files."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from filingqa.records.qa_record import Table
from filingqa.retrieval.ingest.pdf import PageContent, UnreadableDocument, read_pdf

from ..pdf_fixtures import write_fixtures

FIXTURES = write_fixtures()


@pytest.fixture(scope="module")
def filing() -> list[PageContent]:
    return read_pdf(FIXTURES / "filing.pdf")


def test_pages_are_numbered_from_one(filing: list[PageContent]) -> None:
    assert [page.number for page in filing] == [1, 2, 3]


def test_text_keeps_words_and_drops_page_furniture(filing: list[PageContent]) -> None:
    assert "Table of Contents" not in filing[0].text
    assert "Item 1A. Risk Factors" in filing[0].text
    assert "Net revenue grew 7.3% in fiscal 2024 on demand for field analyzers." in filing[1].text


def test_paragraphs_split_at_vertical_gaps(filing: list[PageContent]) -> None:
    paragraphs = [b for b in filing[1].blocks if isinstance(b, str)]
    assert paragraphs[0] == "PART II"
    assert paragraphs[2].startswith("Net revenue grew") and "Gross margin" in paragraphs[2]
    assert paragraphs[3].startswith("Liquidity.")


def test_prose_with_numbers_is_not_a_table(filing: list[PageContent]) -> None:
    assert filing[1].tables == []


def test_unruled_table_is_recovered_with_header_caption_and_columns(
    filing: list[PageContent],
) -> None:
    (table,) = filing[2].tables
    assert table.caption == "Consolidated Statements of Operations"
    assert table.rows == [
        ["(In millions, except per share amounts)", "2024", "2023"],
        ["Net revenue", "$4,186.3", "$3,902.7"],
        ["Cost of revenue", "2,301.9", "2,226.4"],
        ["Operating expenses:", "", ""],
        ["Research and development", "512.0", "478.9"],
        ["Restructuring", "—", "(12.5)"],
        ["Operating income", "671.1", "529.4"],
        ["Diluted earnings per share", "$3.92", "$3.05"],
    ]


def test_blocks_keep_reading_order_around_a_table(filing: list[PageContent]) -> None:
    kinds = ["table" if isinstance(b, Table) else b[:12] for b in filing[2].blocks]
    assert kinds[-2:] == ["table", "The accompan"]
    assert kinds[0] == "Item 8. Fina"


def _reason(path: Path) -> str:
    with pytest.raises(UnreadableDocument) as caught:
        read_pdf(path)
    assert str(path) in str(caught.value)
    return caught.value.reason


def test_zero_byte_file_is_empty(tmp_path: Path) -> None:
    path = tmp_path / "zero.pdf"
    path.write_bytes(b"")
    assert _reason(path) == "empty"


def test_pdf_without_pages_is_empty() -> None:
    assert _reason(FIXTURES / "no_pages.pdf") == "empty"


@pytest.mark.parametrize("header", [b"", b"%PDF-1.7\n"])
def test_random_bytes_are_corrupt(tmp_path: Path, header: bytes) -> None:
    path = tmp_path / "random.pdf"
    path.write_bytes(header + random.Random(7).randbytes(4096))
    assert _reason(path) == "corrupt"


def test_password_protected_pdf_is_encrypted() -> None:
    assert _reason(FIXTURES / "encrypted.pdf") == "encrypted"


def test_encrypted_after_corrupt_and_empty_still_reported_right(tmp_path: Path) -> None:
    corrupt = tmp_path / "corrupt.pdf"
    corrupt.write_bytes(b"not a pdf")
    reasons = [_reason(p) for p in (FIXTURES / "encrypted.pdf", FIXTURES / "no_pages.pdf")]
    reasons.append(_reason(corrupt))
    assert reasons == ["encrypted", "empty", "corrupt"]


def test_page_without_text_layer_is_image_only() -> None:
    assert _reason(FIXTURES / "image_only.pdf") == "image-only"


def test_missing_file_is_reported(tmp_path: Path) -> None:
    assert _reason(tmp_path / "absent.pdf") == "unsupported"


@pytest.mark.data
def test_financebench_statement_page_columns(shared_data_dir: Path) -> None:
    """ADOBE_2022_10K page 57 (gold evidence of financebench_id_00591): cash-flow rows keep
    their labels and the fiscal-2022 column."""
    path = shared_data_dir / "financebench" / "pdfs" / "ADOBE_2022_10K.pdf"
    if not path.is_file():
        pytest.skip("ADOBE_2022_10K.pdf not present")
    (table,) = read_pdf(path)[56].tables
    rows = {row[0]: row[1:] for row in table.rows}
    assert "CONSOLIDATED STATEMENTS OF CASH FLOWS" in (table.caption or "")
    assert "2022" in table.rows[0][1]
    assert rows["Net income"] == ["$4,756", "$4,822", "$5,260"]
    assert rows["Purchases of property and equipment"] == ["(442)", "(348)", "(419)"]
