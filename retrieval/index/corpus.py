"""A corpus of filings: documents known up front with their metadata (names, dataset
information, cover pages), ingested lazily, one item at a time.

A corpus is files on disk (:func:`file_corpus`, :func:`files_corpus`) or ready passages per
document (:func:`passages_corpus`, a dataset's contexts); :mod:`.build` indexes it, with the
statement records of each filing on disk (:meth:`CorpusItem.statement_records`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from filingqa.records.documents import Document, Passage
from filingqa.records.statements import StatementRecord
from filingqa.retrieval.index.passage_recipe import LEGACY, PassageRecipe
from filingqa.retrieval.ingest.chunking import ESTIMATED, TokenBudget
from filingqa.retrieval.ingest.cover_page import pdf_first_pages
from filingqa.retrieval.ingest.filings import (
    SUFFIXES,
    IngestedDocument,
    IngestFailure,
    expected_pages,
    ingest,
    read_pages,
)
from filingqa.retrieval.ingest.metadata import (
    DocumentInfo,
    DocumentRecord,
    build_records,
)
from filingqa.retrieval.ingest.metadata_store import MetadataStore
from filingqa.retrieval.ingest.pdf import PARSER_VERSION, UnreadableDocument
from filingqa.retrieval.ingest.statements import statement_records
from filingqa.retrieval.vocabulary.fiscal import FiscalCalendar

COVER_PAGES = 3
COVER_CHARS = 20_000


@dataclass(frozen=True)
class CorpusItem:
    """One unit of ingestion: a filing on disk, or a dataset context's ready passages."""

    document: Document
    path: Path | None = None
    passages: tuple[Passage, ...] = ()

    @property
    def doc_id(self) -> str:
        """The id of the item's document."""
        return self.document.doc_id

    @property
    def label(self) -> str:
        """How failures name the item: its path, else its doc id."""
        return str(self.path) if self.path else self.doc_id

    def key(self, recipe: PassageRecipe = LEGACY) -> str:
        """Changes whenever the item's passages or metadata would, or how they are cut and
        embedded (``recipe``): the ledger key. A file counts by its bytes, not by where it
        lies or when it was last written, so a copied or restored corpus is not indexed
        again."""
        if self.path is None:
            return self._key("\n".join(p.model_dump_json() for p in self.passages), recipe)
        digest = hashlib.sha256(self.path.read_bytes()).hexdigest()
        return self._key(f"{digest}|{PARSER_VERSION}", recipe)

    def stat_key(self, recipe: PassageRecipe = LEGACY) -> str | None:
        """The key earlier versions gave a file (its path, size and modification time), so
        that an index they built keeps the filings unchanged since; None for ready passages."""
        if self.path is None:
            return None
        stat = self.path.stat()
        content = f"{self.path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{PARSER_VERSION}"
        return self._key(content, recipe)

    def _key(self, content: str, recipe: PassageRecipe) -> str:
        meta = self.document.model_dump_json(exclude={"source", "pages"})
        if recipe != LEGACY:
            meta += json.dumps(recipe.describe(), sort_keys=True)
        return hashlib.sha256(f"{meta}\n{content}".encode()).hexdigest()

    def expected_pages(self) -> int:
        """About how many pages ingesting the item gives, known before reading it."""
        return _page_count(self.passages) if self.path is None else expected_pages(self.path)

    def attempt(self, budget: TokenBudget = ESTIMATED) -> IngestedDocument | IngestFailure:
        """The item ingested (cut to ``budget``), or why it could not be."""
        try:
            return self.ingest(budget)
        except UnreadableDocument as error:
            return IngestFailure(path=self.label, reason=error.reason, detail=error.detail)
        except Exception as error:
            detail = f"{type(error).__name__}: {error}"
            return IngestFailure(path=self.label, reason="failed", detail=detail)

    def ingest(self, budget: TokenBudget = ESTIMATED) -> IngestedDocument:
        """The item's passages (reading the file when it is one, cut to ``budget``; an item
        of ready passages keeps them as they are).

        Raises:
            UnreadableDocument: the file is missing, empty, corrupt, encrypted or image-only.
        """
        if self.path is None:
            document = self.document.model_copy(update={"pages": _page_count(self.passages)})
            return IngestedDocument(document=document, passages=list(self.passages))
        return ingest(self.path, self.document, budget)

    def statement_records(self, calendar: FiscalCalendar | None) -> list[StatementRecord]:
        """The figures of the filing's primary statements under the company's ``calendar``,
        read from its pages (parsed PDFs come from the ingest cache); none for an item of
        ready passages.

        Raises:
            UnreadableDocument: as :meth:`ingest`.
        """
        if self.path is None:
            return []
        return statement_records(self.document, read_pages(self.path), calendar)


@dataclass
class Corpus:
    """Documents known up front (with their metadata) and the items to ingest lazily.

    ``failures`` collects what could not be used: found while assembling the corpus, and
    appended by :meth:`ingest` as files fail.
    """

    name: str
    items: list[CorpusItem]
    metadata: MetadataStore
    failures: list[IngestFailure] = field(default_factory=list)

    @property
    def documents(self) -> dict[str, Document]:
        """The documents, by id."""
        return {item.doc_id: item.document for item in self.items}

    def ingest(self, progress: bool = True) -> Iterator[IngestedDocument]:
        """Each item ingested in turn; failures go to :attr:`failures` and the run goes on."""
        for item in tqdm(self.items, desc="ingest", unit="file", disable=not progress):
            result = item.attempt()
            if isinstance(result, IngestFailure):
                self.failures.append(result)
            else:
                yield result

    def passages(self, progress: bool = True) -> Iterator[Passage]:
        """Every passage of the corpus, file by file."""
        for ingested in self.ingest(progress):
            yield from ingested.passages


def _page_count(passages: Iterable[Passage]) -> int:
    return len({p.page for p in passages})


def file_corpus(paths: Iterable[str | Path], name: str = "files") -> Corpus:
    """The filings at ``paths`` (folders are searched for .pdf/.htm/.html/.txt files).

    Metadata comes from FinanceBench-style file names and the first pages' cover facts; the
    doc id is the file stem.
    """
    files, failures = _expand(paths)
    corpus = files_corpus(name, files, [DocumentInfo(doc_name=path.stem) for path in files])
    corpus.failures.extend(failures)
    return corpus


def files_corpus(name: str, files: list[Path], infos: list[DocumentInfo]) -> Corpus:
    """The filings ``files`` with what is known of each (``infos``, in the same order), the
    metadata completed from their cover pages; the doc id is the file stem."""
    covers = {path.stem: text for path in files if (text := _cover_text(path))}
    store = _store(infos, covers, {path.stem: str(path) for path in files})
    items = [CorpusItem(document=_document(store, path.stem), path=path) for path in files]
    return Corpus(name=name, items=items, metadata=store)


def passages_corpus(
    name: str, passages: dict[str, tuple[Passage, ...]], infos: list[DocumentInfo]
) -> Corpus:
    """Documents given as ready passages (by doc id), with what is known of each: a document
    whose info names no company is kept without metadata."""
    named = [info for info in infos if info.company]
    records, calendars = build_records(named, {})
    anonymous = [
        DocumentRecord(document=Document(doc_id=info.doc_name), period_source="none")
        for info in infos
        if not info.company
    ]
    store = MetadataStore([*records, *anonymous], calendars)
    items = [
        CorpusItem(document=_document(store, doc_id), passages=doc_passages)
        for doc_id, doc_passages in passages.items()
    ]
    return Corpus(name=name, items=items, metadata=store)


def _expand(paths: Iterable[str | Path]) -> tuple[list[Path], list[IngestFailure]]:
    """The files named or found under folders; a doc id seen twice is a failure."""
    files: dict[str, Path] = {}
    failures: list[IngestFailure] = []
    for raw in paths:
        path = Path(raw)
        found = (
            sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES)
            if path.is_dir()
            else [path]
        )
        for file in found:
            if file.stem in files and files[file.stem].resolve() != file.resolve():
                detail = f"document id {file.stem!r} already taken by {files[file.stem]}"
                failures.append(IngestFailure(path=str(file), reason="failed", detail=detail))
            else:
                files.setdefault(file.stem, file)
    return list(files.values()), failures


def _cover_text(path: Path) -> str | None:
    """The first pages' text, for cover-page facts; None when unreadable (ingest says why)."""
    try:
        if path.suffix.lower() == ".pdf":
            return pdf_first_pages(path, COVER_PAGES)
        pages = read_pages(path)[:COVER_PAGES]
    except Exception:
        return None
    blocks = [b if isinstance(b, str) else b.render() for page in pages for b in page.blocks]
    return "\n".join(blocks)[:COVER_CHARS]


def _store(
    infos: list[DocumentInfo], covers: dict[str, str], sources: dict[str, str]
) -> MetadataStore:
    """Records for ``infos``; a document whose company would be its file name gets none."""
    records, calendars = build_records(infos, covers, sources)
    kept = [
        r.model_copy(update={"document": r.document.model_copy(update={"company": None})})
        if r.document.company == r.document.doc_id
        else r
        for r in records
    ]
    companies = {r.document.company for r in kept}
    return MetadataStore(kept, [c for c in calendars if c.company in companies])


def _document(store: MetadataStore, doc_id: str) -> Document:
    document = store.document(doc_id)
    assert document is not None, doc_id
    return document
