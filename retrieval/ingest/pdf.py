"""Read a PDF into pages of paragraphs and tables, with pypdfium2 (PDFium; Apache-2.0/BSD).

Filings printed from EDGAR HTML draw their tables without ruling lines: columns are aligned
by whitespace. So tables are found from character positions: characters are grouped into
lines, lines into cells at wide gaps, and a run of lines whose cells end in numbers becomes
a table whose columns are the clusters of the numbers' right edges (numbers are
right-aligned). Header lines above it (years, dates, spanning titles) are joined per column,
and short title or units lines above those become the caption
(:mod:`.pdf_layout` groups the characters, :mod:`.pdf_tables` finds the tables).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from pydantic import BaseModel, ConfigDict

from filingqa.records.qa_record import Table
from filingqa.retrieval.ingest.pdf_layout import NOISE_LINE, Line, page_chars, page_lines
from filingqa.retrieval.ingest.pdf_tables import find_tables
from filingqa.retrieval.ingest.tables import lead_in

PARSER_VERSION = "pdfium-layout-3"

Reason = Literal["corrupt", "encrypted", "empty", "image-only", "unsupported", "failed"]

_NO_PAGES = re.compile(rb"/Type\s*/Pages\b[^>]*/Count\s+0\b")

PARAGRAPH_GAP = 0.7  # a vertical gap wider than this many line heights starts a paragraph


class UnreadableDocument(Exception):
    """A file that cannot be ingested: corrupt, encrypted, empty, image-only or unsupported."""

    def __init__(self, path: str | Path, reason: Reason, detail: str) -> None:
        super().__init__(f"{path}: {reason}: {detail}")
        self.path = str(path)
        self.reason: Reason = reason
        self.detail = detail


class PageContent(BaseModel):
    """One page of a document (any source) as paragraphs and tables in reading order."""

    model_config = ConfigDict(extra="forbid")

    number: int  # 1-based
    blocks: list[Table | str]

    @property
    def text(self) -> str:
        """The page as plain text: paragraphs, and tables rendered as pipe rows."""
        return "\n\n".join(b if isinstance(b, str) else b.render() for b in self.blocks)

    @property
    def tables(self) -> list[Table]:
        """The tables found on the page."""
        return [b for b in self.blocks if isinstance(b, Table)]


def read_pdf(path: str | Path) -> list[PageContent]:
    """The pages of the PDF at ``path`` (1-based numbers) with their paragraphs and tables.

    Raises:
        UnreadableDocument: the file is empty, corrupt, encrypted, or has no text layer.
    """
    path = Path(path)
    document = _open(path)
    try:
        pages = [
            PageContent(number=i + 1, blocks=_page_blocks(document[i]))
            for i in range(len(document))
        ]
    finally:
        document.close()
    if not pages:
        raise UnreadableDocument(path, "empty", "the PDF has no pages")
    if not any(page.blocks for page in pages):
        raise UnreadableDocument(path, "image-only", "no text layer (scanned?); OCR unsupported")
    return pages


def pdf_page_count(path: str | Path) -> int | None:
    """How many pages the PDF at ``path`` has, without reading them (None: unreadable)."""
    try:
        document = _open(Path(path))
    except UnreadableDocument:
        return None
    try:
        return len(document)
    finally:
        document.close()


def _open(path: Path) -> pdfium.PdfDocument:
    if not path.is_file():
        raise UnreadableDocument(path, "unsupported", "no such file")
    if path.stat().st_size == 0:
        raise UnreadableDocument(path, "empty", "the file has zero bytes")
    try:
        return pdfium.PdfDocument(path)
    except pdfium.PdfiumError as error:
        raise _load_failure(path, error) from error


def _load_failure(path: Path, error: pdfium.PdfiumError) -> UnreadableDocument:
    """Why PDFium could not open a file. Its error code can be stale (it is left over from an
    earlier call when a zero-page file fails), so the file's bytes confirm it."""
    data = path.read_bytes()
    locked = error.err_code in (pdfium_c.FPDF_ERR_PASSWORD, pdfium_c.FPDF_ERR_SECURITY)
    if locked and b"/Encrypt" in data:
        return UnreadableDocument(path, "encrypted", "password-protected")
    if _NO_PAGES.search(data):
        return UnreadableDocument(path, "empty", "the PDF has no pages")
    return UnreadableDocument(path, "corrupt", f"not a readable PDF ({error})")


# --- characters, lines, cells --------------------------------------------------------------


def _page_blocks(page: pdfium.PdfPage) -> list[Table | str]:
    textpage = page.get_textpage()
    try:
        chars = page_chars(textpage, page.get_height())
    finally:
        textpage.close()
    return _blocks(page_lines(chars))


# --- tables --------------------------------------------------------------------------------


def _blocks(lines: list[Line]) -> list[Table | str]:
    """Lines as paragraphs and tables in reading order."""
    blocks: list[Table | str] = []
    position = 0
    for start, end, table in find_tables(lines):
        blocks += _paragraphs(lines[position:start])
        if table.caption is None and blocks and isinstance(blocks[-1], str):
            table.caption = lead_in(blocks[-1])
        blocks.append(table)
        position = end
    blocks += _paragraphs(lines[position:])
    return blocks


def _paragraphs(lines: list[Line]) -> list[str]:
    paragraphs: list[list[str]] = []
    previous: Line | None = None
    for line in lines:
        if NOISE_LINE.match(line.text.strip()) and len(line.cells) == 1:
            continue
        if previous is None or line.top - previous.bottom > PARAGRAPH_GAP * line.height:
            paragraphs.append([])
        paragraphs[-1].append(line.text)
        previous = line
    return ["\n".join(p) for p in paragraphs]
