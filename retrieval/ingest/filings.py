"""Ingestion: a filing (PDF, HTML, plain text) or a QA record's context → passages.

A file is read into pages of paragraphs and tables (:mod:`filingqa.retrieval.ingest.pdf` for PDFs,
cached by content hash; the stdlib HTML parser for HTML; form feeds and markdown pipe tables
for text), Item sections are assigned, tables become table passages with row groups, and
the text between them chunks within a token budget (:class:`.chunking.TokenBudget`:
an index's embedder sets it; ~512 estimated tokens without one). Every passage keeps its
1-based page number.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict
from tqdm import tqdm

from filingqa.core.cache import disk_cache
from filingqa.records.documents import DocType, Document, Passage
from filingqa.records.qa_record import QARecord, Table
from filingqa.retrieval.ingest.chunking import ESTIMATED, TokenBudget, chunk_text
from filingqa.retrieval.ingest.html import html_pages
from filingqa.retrieval.ingest.pdf import (
    PARSER_VERSION,
    PageContent,
    Reason,
    UnreadableDocument,
    pdf_page_count,
)
from filingqa.retrieval.ingest.pdf import read_pdf as _read_pdf
from filingqa.retrieval.ingest.sections import Section, assign_sections
from filingqa.retrieval.ingest.tables import add_table, clean_rows, table_passages

SUFFIXES = (".pdf", ".htm", ".html", ".txt")
CACHE_NAME = "ingest-pdf"

_NAME = re.compile(
    r"^(?P<company>.+?)_(?:fy)?(?P<year>\d{4})(?:q(?P<quarter>[1-4]))?_(?P<type>10k|10q|8k|earnings)",
    re.IGNORECASE,
)
_DOC_TYPES: dict[str, DocType] = {"10k": "10k", "10q": "10q", "8k": "8k", "earnings": "earnings"}
_PIPE_SEPARATOR = re.compile(r"^\|?[\s:\-|]+\|?$")
_FINQA_PAGE = re.compile(r"page_(\d+)")


class IngestedDocument(BaseModel):
    """A filing and its passages, in page order."""

    model_config = ConfigDict(extra="forbid")

    document: Document
    passages: list[Passage]


class IngestFailure(BaseModel):
    """A file that could not be ingested, and why."""

    model_config = ConfigDict(extra="forbid")

    path: str
    reason: Reason
    detail: str

    @property
    def message(self) -> str:
        """One line for a person: ``<path>: <reason>: <detail>``."""
        return f"{self.path}: {self.reason}: {self.detail}"


def ingest(
    path: str | Path, document: Document | None = None, budget: TokenBudget = ESTIMATED
) -> IngestedDocument:
    """The passages of the filing at ``path`` (.pdf, .htm/.html or .txt), cut to ``budget``.

    ``document`` gives the filing's metadata; by default it is read from a FinanceBench-style
    file name (``COMPANY_2022_10K``, ``COMPANY_2023Q2_10Q``), the doc id being the file stem.

    Raises:
        UnreadableDocument: the file is missing, empty, corrupt, encrypted, image-only or of
            an unsupported type.
    """
    path = Path(path)
    pages = read_pages(path)
    base = document or document_from_name(path.stem)
    document = base.model_copy(update={"source": str(path), "pages": len(pages)})
    passages = page_passages(document, pages, budget)
    return IngestedDocument(document=document, passages=passages)


def ingest_many(
    paths: Iterable[str | Path],
    on_error: Literal["continue", "raise"] = "continue",
    progress: bool = True,
) -> Iterator[IngestedDocument | IngestFailure]:
    """Ingest each file in turn, yielding its result or (``on_error="continue"``) its failure.

    Any error in one file (not only :class:`UnreadableDocument`) is reported as that file's
    failure and the run goes on; ``on_error="raise"`` stops at the first one instead.
    """
    paths = list(paths)
    for path in tqdm(paths, desc="ingest", unit="file", disable=not progress):
        try:
            yield ingest(path)
        except UnreadableDocument as error:
            if on_error == "raise":
                raise
            yield IngestFailure(path=str(path), reason=error.reason, detail=error.detail)
        except Exception as error:
            if on_error == "raise":
                raise
            detail = f"{type(error).__name__}: {error}"
            yield IngestFailure(path=str(path), reason="failed", detail=detail)


def document_from_name(doc_id: str) -> Document:
    """A Document whose company, year, quarter and type come from a FinanceBench-style name."""
    match = _NAME.match(doc_id)
    if not match:
        return Document(doc_id=doc_id)
    return Document(
        doc_id=doc_id,
        company=match["company"].replace("_", " "),
        doc_type=_DOC_TYPES[match["type"].lower()],
        fiscal_year=int(match["year"]),
        fiscal_quarter=int(match["quarter"]) if match["quarter"] else None,
    )


# --- reading files into pages ------------------------------------------------------------


def read_pages(path: str | Path) -> list[PageContent]:
    """The pages of a .pdf (cached), .htm/.html or .txt file.

    Raises:
        UnreadableDocument: as :func:`ingest`.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise UnreadableDocument(path, "unsupported", f"unsupported file type {suffix!r}")
    if suffix == ".pdf":
        return read_pdf_cached(path)
    if not path.is_file():
        raise UnreadableDocument(path, "unsupported", "no such file")
    raw = path.read_bytes()
    text = raw.decode("utf-8", errors="replace") if raw.strip() else ""
    pages = html_pages(text) if suffix in (".htm", ".html") else text_pages(text)
    if not any(page.blocks for page in pages):
        raise UnreadableDocument(path, "empty", "no text")
    return pages


def expected_pages(path: str | Path) -> int:
    """About how many pages reading ``path`` gives, without reading them: a PDF's page
    count, a text file's form feeds plus one, else (HTML, an unreadable file) one."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        return pdf_page_count(path) or 1
    if suffix == ".txt" and path.is_file():
        return path.read_bytes().count(b"\f") + 1
    return 1


def read_pdf_cached(path: Path) -> list[PageContent]:
    """:func:`~filingqa.retrieval.ingest.pdf.read_pdf`, cached by file sha256 and parser version."""
    if not path.is_file() or path.stat().st_size == 0:
        return _read_pdf(path)
    cache = disk_cache(CACHE_NAME)
    key = f"{PARSER_VERSION}:{hashlib.sha256(path.read_bytes()).hexdigest()}"
    cached = cache.get(key)
    if cached is not None:
        return [PageContent.model_validate(page) for page in cached]
    pages = _read_pdf(path)
    cache.set(key, [page.model_dump() for page in pages])
    return pages


def text_pages(text: str) -> list[PageContent]:
    """Plain text: pages split on form feeds, paragraphs on blank lines, pipe tables found."""
    return [
        PageContent(number=n, blocks=_text_blocks(page))
        for n, page in enumerate(text.split("\f"), start=1)
    ]


def _text_blocks(page: str) -> list[Table | str]:
    blocks: list[Table | str] = []
    paragraph: list[str] = []
    table: list[str] = []
    for line in [*page.splitlines(), ""]:
        if line.lstrip().startswith("|"):
            if paragraph:
                blocks.append("\n".join(paragraph))
                paragraph = []
            table.append(line)
            continue
        if table:
            add_table(blocks, _pipe_rows(table))
            table = []
        if line.strip():
            paragraph.append(line.strip())
        elif paragraph:
            blocks.append("\n".join(paragraph))
            paragraph = []
    return blocks


def _pipe_rows(lines: list[str]) -> list[list[str]]:
    rows = [line.strip().strip("|").split("|") for line in lines if not _PIPE_SEPARATOR.match(line)]
    return [[cell.strip() for cell in row] for row in rows]


# --- pages → passages ---------------------------------------------------------------------


def page_passages(
    document: Document, pages: list[PageContent], budget: TokenBudget = ESTIMATED
) -> list[Passage]:
    """Table passages (with row groups) and text chunks of each page, tagged with Items."""
    sections = assign_sections([page.blocks for page in pages], document.doc_type)
    passages: list[Passage] = []
    for page, page_sections in zip(pages, sections, strict=True):
        passages += _one_page(document.doc_id, page, page_sections, budget)
    return passages


def _one_page(
    doc_id: str, page: PageContent, sections: list[Section | None], budget: TokenBudget
) -> list[Passage]:
    passages: list[Passage] = []
    run: list[str] = []
    run_section: Section | None = None
    tables = texts = 0
    for block, section in zip(page.blocks, sections, strict=True):
        if isinstance(block, str) and (not run or section == run_section):
            run.append(block)
            run_section = section
            continue
        if run:
            texts += 1
            passages += text_passages(run, doc_id, page.number, texts, run_section, budget)
            run = []
        if isinstance(block, str):
            run, run_section = [block], section
            continue
        tables += 1
        item = section.item if section else None
        passages += table_passages(
            block, doc_id=doc_id, page=page.number, number=tables, item=item, budget=budget
        )
    if run:
        passages += text_passages(run, doc_id, page.number, texts + 1, run_section, budget)
    return passages


def text_passages(
    paragraphs: list[str],
    doc_id: str,
    page: int,
    number: int,
    section: Section | None = None,
    budget: TokenBudget = ESTIMATED,
) -> list[Passage]:
    """Chunks of consecutive paragraphs: ``text<number>``, or ``text<number>.<k>`` with a
    ``parent_id`` of ``text<number>`` when they take more than one chunk."""
    block_id = f"{doc_id}:p{page}:text{number}"
    chunks = chunk_text("\n\n".join(paragraphs), budget.text, budget.overlap, budget.count)
    common = partial(
        Passage,
        doc_id=doc_id,
        page=page,
        kind="text",
        item=section.item if section else None,
        title=section.title if section else None,
    )
    if len(chunks) == 1:
        return [common(id=block_id, text=chunks[0])]
    return [
        common(id=f"{block_id}.{k}", text=chunk, parent_id=block_id)
        for k, chunk in enumerate(chunks, start=1)
    ]


# --- QA-record contexts (FinQA, TAT-QA) ---------------------------------------------------


def context_passages(record: QARecord) -> list[Passage]:
    """A FinQA / TAT-QA record's gold context as passages: its tables (with row groups),
    then one text passage per paragraph (``text<n>`` is the n-th paragraph, chunked if long).

    The doc id is the record's first document (FinQA file name, TAT-QA table uid); the page
    is the report page a FinQA file name gives, else 1.
    """
    if record.context is None:
        return []
    doc_id = record.documents[0] if record.documents else record.id
    match = _FINQA_PAGE.search(doc_id)
    page = int(match[1]) if match and int(match[1]) > 0 else 1
    passages: list[Passage] = []
    for n, table in enumerate(record.context.tables, start=1):
        cleaned = table.model_copy(update={"rows": clean_rows(table.rows)})
        passages += table_passages(cleaned, doc_id=doc_id, page=page, number=n)
    for n, paragraph in enumerate(record.context.paragraphs, start=1):
        passages += text_passages([paragraph.text], doc_id, page, n)
    return passages
