"""Sources into an index: a corpus of filings (files or a dataset) and the build that indexes it.

A :class:`Corpus` is known up front (its documents and their metadata: names, dataset
information, cover pages) and ingested lazily, one item at a time. :func:`build_index` saves
the corpus's :class:`~filingqa.retrieval.metadata.MetadataStore` next to the index (so search
can resolve companies and periods), then ingests and indexes item by item. A small ledger
(``ledger.jsonl``) records each item once its passages are stored, so a killed build re-run
skips finished files at once; :meth:`PassageIndex.add` being idempotent, whatever was
half-written is completed without duplicates. A file that cannot be read is reported and
the build goes on.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field
from tqdm import tqdm

from filingqa.core.config import home_dir
from filingqa.records.documents import Document, Passage
from filingqa.records.qa_record import QARecord
from filingqa.retrieval.cover_page import pdf_first_pages
from filingqa.retrieval.edge_store import META_FILE
from filingqa.retrieval.embedder import Embedder
from filingqa.retrieval.index import PassageIndex, SearchFilters
from filingqa.retrieval.ingest import (
    SUFFIXES,
    IngestedDocument,
    IngestFailure,
    context_passages,
    ingest,
    read_pages,
)
from filingqa.retrieval.metadata import (
    DocumentInfo,
    DocumentRecord,
    MetadataStore,
    build_records,
    load_document_info,
)
from filingqa.retrieval.pdf import PARSER_VERSION, UnreadableDocument

LEDGER_FILE = "ledger.jsonl"
COVER_PAGES = 3
COVER_CHARS = 20_000
FINANCEBENCH_PDFS = "financebench/pdfs"
FINANCEBENCH_INFO = "financebench/financebench_document_information.jsonl"
DEFAULT_FLUSH = 2_000
_FINQA_FILE = re.compile(r"^(?P<ticker>[A-Za-z.\-]+)/(?P<year>\d{4})/page_\d+\.pdf$")
_REMOTE = re.compile(r"^https?://")


class IndexMissingError(FileNotFoundError):
    """The index a retrieved-context setting needs has not been built."""


def index_built(directory: Path) -> bool:
    """Whether ``filingqa index`` has built an index in ``directory``."""
    return (directory / META_FILE).is_file()


def default_index_dir(name: str = "default") -> Path:
    """Where a named index lives by default: ``<FILINGQA_HOME>/indexes/<name>``."""
    return home_dir() / "indexes" / name


def dataset_index_name(spec: str) -> str:
    """The default index name of a dataset corpus: ``finqa:dev`` → ``finqa-dev``."""
    return spec.strip().replace(":", "-")


def state_dir_for(location: str | Path) -> Path | None:
    """Where an index's metadata and ledger live: the index directory itself; for a Qdrant
    URL, ``<FILINGQA_HOME>/indexes/<host-port-path>``; None for ``":memory:"``."""
    text = str(location)
    if text == ":memory:":
        return None
    if _REMOTE.match(text):
        return default_index_dir(re.sub(r"[^A-Za-z0-9.]+", "-", _REMOTE.sub("", text)).strip("-"))
    return Path(location)


# --- the corpus ---------------------------------------------------------------------------


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

    def key(self) -> str:
        """Changes whenever the item's passages or metadata would: the ledger key."""
        meta = self.document.model_dump_json(exclude={"source", "pages"})
        if self.path is None:
            content = "\n".join(p.model_dump_json() for p in self.passages)
        else:
            stat = self.path.stat()
            content = f"{self.path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{PARSER_VERSION}"
        return hashlib.sha256(f"{meta}\n{content}".encode()).hexdigest()

    def ingest(self) -> IngestedDocument:
        """The item's passages (reading the file when it is one).

        Raises:
            UnreadableDocument: the file is missing, empty, corrupt, encrypted or image-only.
        """
        if self.path is None:
            document = self.document.model_copy(update={"pages": _page_count(self.passages)})
            return IngestedDocument(document=document, passages=list(self.passages))
        return ingest(self.path, self.document)


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
            result = _ingest_item(item)
            if isinstance(result, IngestFailure):
                self.failures.append(result)
            else:
                yield result

    def passages(self, progress: bool = True) -> Iterator[Passage]:
        """Every passage of the corpus, file by file."""
        for ingested in self.ingest(progress):
            yield from ingested.passages


def _ingest_item(item: CorpusItem) -> IngestedDocument | IngestFailure:
    try:
        return item.ingest()
    except UnreadableDocument as error:
        return IngestFailure(path=item.label, reason=error.reason, detail=error.detail)
    except Exception as error:
        detail = f"{type(error).__name__}: {error}"
        return IngestFailure(path=item.label, reason="failed", detail=detail)


def _page_count(passages: Iterable[Passage]) -> int:
    return len({p.page for p in passages})


def file_corpus(paths: Iterable[str | Path], name: str = "files") -> Corpus:
    """The filings at ``paths`` (folders are searched for .pdf/.htm/.html/.txt files).

    Metadata comes from FinanceBench-style file names and the first pages' cover facts; the
    doc id is the file stem.
    """
    files, failures = _expand(paths)
    infos = [DocumentInfo(doc_name=path.stem) for path in files]
    covers = {path.stem: text for path in files if (text := _cover_text(path))}
    store = _store(infos, covers, {path.stem: str(path) for path in files})
    items = [CorpusItem(document=_document(store, path.stem), path=path) for path in files]
    return Corpus(name=name, items=items, metadata=store, failures=failures)


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


def dataset_corpus(spec: str, data_dir: str | Path | None = None) -> Corpus:
    """The corpus of a dataset: ``financebench`` (every PDF of ``financebench/pdfs``, with the
    document information and cover pages), or ``finqa:<split>`` / ``tatqa:<split>`` (every
    record's context, one document each, first record wins).

    Raises:
        filingqa.core.config.ConfigError: no data dir, or no such dataset or split.
    """
    from filingqa.core.config import data_dir as resolve

    root = resolve(data_dir)
    name = spec.strip()
    if name.split(":")[0] == "financebench":
        return _financebench(root, name)
    if name.split(":")[0] not in ("finqa", "tatqa"):
        raise ValueError(
            f"no corpus for {spec!r}: use financebench, finqa:<split> or tatqa:<split>"
        )
    from filingqa.datasets import load_dataset

    return _contexts(name, load_dataset(name, root))


def _financebench(root: Path, name: str) -> Corpus:
    folder = root / FINANCEBENCH_PDFS
    pdfs = sorted(folder.glob("*.pdf"))
    if not pdfs:
        raise FileNotFoundError(f"no FinanceBench PDFs in {folder}")
    info_path = root / FINANCEBENCH_INFO
    known = {i.doc_name: i for i in load_document_info(info_path)} if info_path.is_file() else {}
    infos = [known.get(p.stem) or DocumentInfo(doc_name=p.stem) for p in pdfs]
    covers = {p.stem: text for p in pdfs if (text := _cover_text(p))}
    store = _store(infos, covers, {p.stem: str(p) for p in pdfs})
    items = [CorpusItem(document=_document(store, p.stem), path=p) for p in pdfs]
    return Corpus(name=name, items=items, metadata=store)


def _contexts(name: str, records: Iterable[QARecord]) -> Corpus:
    """One item per distinct context document; FinQA file names give ticker and year."""
    items: dict[str, CorpusItem] = {}
    for record in records:
        passages = context_passages(record)
        if not passages or passages[0].doc_id in items:
            continue
        doc_id = passages[0].doc_id
        items[doc_id] = CorpusItem(document=Document(doc_id=doc_id), passages=tuple(passages))
    infos = [_context_info(doc_id) for doc_id in items]
    named = [info for info in infos if info.company]
    records_, calendars = build_records(named, {})
    anonymous = [
        DocumentRecord(document=Document(doc_id=i.doc_name), period_source="none")
        for i in infos
        if not i.company
    ]
    store = MetadataStore([*records_, *anonymous], calendars)
    final = [
        CorpusItem(document=_document(store, d), passages=i.passages) for d, i in items.items()
    ]
    return Corpus(name=name, items=final, metadata=store)


def _context_info(doc_id: str) -> DocumentInfo:
    match = _FINQA_FILE.match(doc_id)
    if match is None:
        return DocumentInfo(doc_name=doc_id)
    return DocumentInfo(
        doc_name=doc_id, company=match["ticker"], doc_type="10k", doc_period=int(match["year"])
    )


# --- the ledger ---------------------------------------------------------------------------


class LedgerEntry(BaseModel):
    """One item whose passages are all stored."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    key: str
    doc_id: str
    pages: int
    passages: int


class Ledger:
    """Finished items, one JSON line each, appended and synced as they finish (None: off)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._entries: dict[str, LedgerEntry] = {}
        if path is not None and path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    entry = LedgerEntry.model_validate_json(line)
                except ValueError:
                    continue  # a line cut short by a kill
                self._entries[entry.key] = entry

    def get(self, key: str) -> LedgerEntry | None:
        """The entry of a finished item, or None."""
        return self._entries.get(key)

    def add(self, entries: Iterable[LedgerEntry]) -> None:
        """Record finished items (durably, before returning)."""
        entries = list(entries)
        self._entries |= {entry.key: entry for entry in entries}
        if self.path is None or not entries:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as out:
            out.write("".join(entry.model_dump_json() + "\n" for entry in entries))
            out.flush()
            os.fsync(out.fileno())


# --- the build ----------------------------------------------------------------------------


class IndexReport(BaseModel):
    """What :func:`build_index` did."""

    model_config = ConfigDict(extra="forbid")

    location: str
    corpus: str
    files: int = Field(description="items in the corpus (files or dataset contexts)")
    indexed: int = Field(description="items ingested and stored by this run")
    resumed: int = Field(description="items a previous run had finished (skipped)")
    pages: int
    passages: int = Field(description="passages of the corpus now stored")
    written: int = Field(description="passages embedded and written by this run")
    unchanged: int = Field(description="passages found already stored")
    failures: list[IngestFailure]
    seconds: float
    disk_bytes: int | None = Field(
        description="disk space the index directory takes (allocated blocks); None if remote"
    )


def build_index(
    index: str | Path | PassageIndex,
    *,
    paths: Iterable[str | Path] = (),
    dataset: str | None = None,
    data_dir: str | Path | None = None,
    progress: bool = True,
    embedder: Embedder | None = None,
    state_dir: Path | None = None,
    flush_passages: int = DEFAULT_FLUSH,
) -> IndexReport:
    """Ingest ``paths`` or ``dataset`` into the index at ``index`` and report.

    ``index`` is a directory, a Qdrant URL, ``":memory:"`` or an open :class:`PassageIndex`
    (left open). Metadata and the ledger go to ``state_dir`` (default:
    :func:`state_dir_for`; none for memory or an open index unless given), merged with any
    metadata already there. Passages are added ``flush_passages`` at a time (whole items).

    Raises:
        ValueError: neither or both of ``paths`` and ``dataset``.
    """
    paths = list(paths)
    if bool(paths) == bool(dataset):
        raise ValueError("give files to index or a dataset, not both or neither")
    started = time.perf_counter()
    corpus = dataset_corpus(dataset, data_dir) if dataset else file_corpus(paths)
    if state_dir is None and not isinstance(index, PassageIndex):
        state_dir = state_dir_for(index)
    opened = index if isinstance(index, PassageIndex) else PassageIndex.open(index, embedder)
    try:
        metadata = _save_metadata(corpus.metadata, state_dir)
        build = _Build(opened, corpus, Ledger(state_dir / LEDGER_FILE if state_dir else None))
        build.run(progress, flush_passages)
        opened.add_signals(progress=progress)  # passages an older build stored without them
        if state_dir is not None:
            _with_pages(metadata, build.pages_by_doc).save(state_dir)
    finally:
        if opened is not index:
            opened.close()
    location = str(index) if not isinstance(index, PassageIndex) else "(open index)"
    return IndexReport(
        location=location,
        corpus=corpus.name,
        files=len(corpus.items),
        indexed=build.indexed,
        resumed=build.resumed,
        pages=sum(build.pages_by_doc.values()),
        passages=build.passages,
        written=build.written,
        unchanged=build.unchanged,
        failures=corpus.failures,
        seconds=round(time.perf_counter() - started, 2),
        disk_bytes=_disk_bytes(index),
    )


class _Build:
    """The ingest-and-add loop, with its counts."""

    def __init__(self, index: PassageIndex, corpus: Corpus, ledger: Ledger) -> None:
        self.index = index
        self.corpus = corpus
        self.ledger = ledger
        self.pages_by_doc: dict[str, int] = {}
        self.indexed = self.resumed = self.passages = self.written = self.unchanged = 0
        self._pending: list[tuple[str, IngestedDocument]] = []

    def run(self, progress: bool, flush_passages: int) -> None:
        bar = tqdm(self.corpus.items, desc="index", unit="file", disable=not progress)
        for item in bar:
            key = item.key()
            if self._finished(key, item.doc_id):
                continue
            result = _ingest_item(item)
            if isinstance(result, IngestFailure):
                self.corpus.failures.append(result)
                continue
            self._pending.append((key, result))
            if sum(len(i.passages) for _, i in self._pending) >= flush_passages:
                self._flush()
            bar.set_postfix(passages=self.passages, failed=len(self.corpus.failures))
        self._flush()

    def _finished(self, key: str, doc_id: str) -> bool:
        """Whether the ledger says so and the index holds that many passages of the doc."""
        entry = self.ledger.get(key)
        if entry is None or self.index.count(SearchFilters(doc_ids=doc_id)) < entry.passages:
            return False
        self.resumed += 1
        self.passages += entry.passages
        self.pages_by_doc[doc_id] = entry.pages
        return True

    def _flush(self) -> None:
        if not self._pending:
            return
        passages = [p for _, ingested in self._pending for p in ingested.passages]
        documents = [ingested.document for _, ingested in self._pending]
        added = self.index.add(passages, documents, progress=False)
        entries = [
            LedgerEntry(
                key=key,
                doc_id=ingested.document.doc_id,
                pages=ingested.document.pages or 0,
                passages=len(ingested.passages),
            )
            for key, ingested in self._pending
        ]
        self.ledger.add(entries)
        for entry in entries:
            self.pages_by_doc[entry.doc_id] = entry.pages
        self.indexed += len(entries)
        self.passages += len(passages)
        self.written += added.written
        self.unchanged += added.unchanged
        self._pending = []


def _save_metadata(store: MetadataStore, state_dir: Path | None) -> MetadataStore:
    """``store`` merged over the metadata already in ``state_dir`` (saved there, if any)."""
    if state_dir is None:
        return store
    if (state_dir / MetadataStore.FILENAME).is_file():
        store = MetadataStore.load(state_dir).merged(store)
    store.save(state_dir)
    return store


def _with_pages(store: MetadataStore, pages: dict[str, int]) -> MetadataStore:
    records = [
        r.model_copy(update={"document": r.document.model_copy(update={"pages": pages[doc]})})
        if (doc := r.document.doc_id) in pages
        else r
        for r in store.records()
    ]
    return MetadataStore(records, store.calendars())


def _disk_bytes(index: str | Path | PassageIndex) -> int | None:
    if isinstance(index, PassageIndex) or state_dir_for(index) != Path(index):
        return None
    return sum(p.stat().st_blocks * 512 for p in Path(index).rglob("*") if p.is_file())


def format_report(report: IndexReport) -> str:
    """A summary table of the build, then one line per failed file."""
    disk = "-" if report.disk_bytes is None else f"{report.disk_bytes / 1e6:.1f} MB"
    rows = [
        ("index", report.location),
        ("corpus", report.corpus),
        (
            "files",
            f"{report.files} ({report.indexed} indexed, {report.resumed} already done, "
            f"{len(report.failures)} failed)",
        ),
        ("pages", str(report.pages)),
        (
            "passages",
            f"{report.passages} ({report.written} written, {report.unchanged} already stored)",
        ),
        ("seconds", f"{report.seconds:.1f}"),
        ("disk", disk),
    ]
    lines = [f"{name:<9} {value}" for name, value in rows]
    return "\n".join(lines + [f"failed: {failure.message}" for failure in report.failures])
