"""The build: a corpus ingested item by item into the index, resumable.

:func:`build_index` saves the corpus's metadata store next to the index (so search can
resolve companies and periods), then ingests and indexes item by item. A small ledger
(``ledger.jsonl``) records each item once its passages are stored, so a killed build re-run
skips finished files at once; :meth:`PassageIndex.add` being idempotent, whatever was
half-written is completed without duplicates. A file that cannot be read is reported and
the build goes on.

Each filing's statement records (:mod:`.statement_store`) are written beside the metadata
before the ledger marks the filing done; a rerun over an index built without them adds them
in place, from the ingest cache, embedding nothing."""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field
from tqdm import tqdm

from filingqa.records.documents import Passage
from filingqa.records.statements import StatementRecord
from filingqa.retrieval.index.corpus import Corpus, CorpusItem, file_corpus
from filingqa.retrieval.index.embedder import Embedder
from filingqa.retrieval.index.locations import state_dir_for
from filingqa.retrieval.index.passage_index import PassageIndex, SearchFilters
from filingqa.retrieval.index.statement_store import StatementStore
from filingqa.retrieval.ingest.filings import (
    IngestedDocument,
    IngestFailure,
)
from filingqa.retrieval.ingest.metadata_store import MetadataStore

LEDGER_FILE = "ledger.jsonl"
DEFAULT_FLUSH = 2_000


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

    def superseded(self, doc_id: str, key: str) -> bool:
        """Whether ``doc_id`` was finished under another key (its stored passages may be
        cut otherwise than it is being cut now)."""
        return any(e.doc_id == doc_id and e.key != key for e in self._entries.values())

    def finished(self) -> dict[str, int]:
        """The documents finished, by id, with their passage count (the latest entry)."""
        return {entry.doc_id: entry.passages for entry in self._entries.values()}

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
    statements: int = Field(description="filings whose statement records this run stored")
    failures: list[IngestFailure]
    seconds: float
    disk_bytes: int | None = Field(
        description="disk space the index directory takes (allocated blocks); None if remote"
    )


def build_index(
    index: str | Path | PassageIndex,
    *,
    paths: Iterable[str | Path] = (),
    corpus: Corpus | None = None,
    progress: bool = True,
    embedder: Embedder | None = None,
    state_dir: Path | None = None,
    flush_passages: int = DEFAULT_FLUSH,
) -> IndexReport:
    """Ingest the filings at ``paths`` (:func:`file_corpus`), or ``corpus``, into the index
    at ``index`` and report.

    ``index`` is a directory, a Qdrant URL, ``":memory:"`` or an open :class:`PassageIndex`
    (left open). Metadata, the ledger and the filings' statement records go to
    ``state_dir`` (default: :func:`state_dir_for`; none for memory or an open index unless
    given), merged with any metadata already there; finished filings stored without
    records get them. Passages are added ``flush_passages`` at a time (whole items).

    Raises:
        ValueError: neither or both of ``paths`` and ``corpus``.
    """
    paths = list(paths)
    if bool(paths) == (corpus is not None):
        raise ValueError("give files to index or a corpus, not both or neither")
    started = time.perf_counter()
    corpus = corpus or file_corpus(paths)
    if state_dir is None and not isinstance(index, PassageIndex):
        state_dir = state_dir_for(index)
    opened = index if isinstance(index, PassageIndex) else PassageIndex.open(index, embedder)
    try:
        metadata = _save_metadata(corpus.metadata, state_dir)
        ledger = Ledger(state_dir / LEDGER_FILE if state_dir else None)
        statements = _Statements(StatementStore(state_dir), metadata) if state_dir else None
        build = _Build(opened, corpus, ledger, statements)
        if opened.recuts():
            _say_recut(opened, progress)
            opened.record_recipe()
        build.run(progress, flush_passages)
        build.add_statements(progress)  # filings an older build stored without them
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
        statements=build.statements_stored,
        failures=corpus.failures,
        seconds=round(time.perf_counter() - started, 2),
        disk_bytes=_disk_bytes(index),
    )


class _Statements:
    """Where a build stores statement records, and the calendars it reads them under."""

    def __init__(self, store: StatementStore, metadata: MetadataStore) -> None:
        self.store = store
        self.metadata = metadata

    def read(self, item: CorpusItem) -> list[StatementRecord] | IngestFailure:
        """The filing's records, or why they could not be read."""
        company = item.document.company
        calendar = self.metadata.calendar(company) if company else None
        try:
            return item.statement_records(calendar)
        except Exception as error:
            detail = f"statement records: {type(error).__name__}: {error}"
            return IngestFailure(path=item.label, reason="failed", detail=detail)


class _PageBar:
    """The build's progress in pages: a file's pages count as its passages are stored (a
    failed or empty file's once it is read), so pages/s and the time left follow the
    embedding, not the reading ahead of it."""

    def __init__(self, expected_pages: int, files: int, progress: bool) -> None:
        self._bar = tqdm(total=expected_pages, desc="index", unit="page", disable=not progress)
        self._files = files
        self._done = 0.0
        self._read = self._failed = self._passages = 0
        self._pages_per_passage: dict[str, float] = {}

    def read(self, expected_pages: int, ingested: IngestedDocument | None) -> None:
        """A file read (None: it failed): its own page count replaces the one expected."""
        self._read += 1
        pages = expected_pages
        if ingested is None:
            self._failed += 1
        else:
            pages = ingested.document.pages or expected_pages
            if ingested.passages:
                self._pages_per_passage[ingested.document.doc_id] = pages / len(ingested.passages)
        self._bar.total = (self._bar.total or 0) + pages - expected_pages
        self._advance(0.0 if ingested and ingested.passages else pages)

    def stored(self, batch: list[Passage]) -> None:
        """A batch of passages stored: their share of their files' pages is done."""
        self._passages += len(batch)
        self._advance(sum(self._pages_per_passage.get(p.doc_id, 0.0) for p in batch))

    def close(self) -> None:
        """Close the bar."""
        self._bar.close()

    def _advance(self, pages: float) -> None:
        self._done += pages
        self._bar.update(round(self._done) - self._bar.n)
        postfix = {"files": f"{self._read}/{self._files}", "passages": self._passages}
        self._bar.set_postfix(postfix | {"failed": self._failed})


class _Build:
    """The ingest-and-add loop, with its counts."""

    def __init__(
        self,
        index: PassageIndex,
        corpus: Corpus,
        ledger: Ledger,
        statements: _Statements | None,
    ) -> None:
        self.index = index
        self.corpus = corpus
        self.ledger = ledger
        self.statements = statements
        self.pages_by_doc: dict[str, int] = {}
        self.indexed = self.resumed = self.passages = self.written = self.unchanged = 0
        self.statements_stored = 0
        self._pending: list[tuple[str, IngestedDocument, list[StatementRecord] | None]] = []
        self._resumed: list[CorpusItem] = []
        self._bar: _PageBar | None = None

    def run(self, progress: bool, flush_passages: int) -> None:
        """Ingest and add every item not finished yet. The next item is read and cut in a
        worker thread while the current batch is embedded (the embedder releases the GIL),
        so reading a PDF and embedding the last one's passages share the cores."""
        recipe = self.index.recipe
        todo = []
        for item in self.corpus.items:
            key = item.key(recipe)
            self._take_over_stat_key(item, key)
            if self._finished(key, item.doc_id):
                self._resumed.append(item)
            else:
                todo.append((key, item))
        expected = [item.expected_pages() for _, item in todo]
        self._bar = _PageBar(sum(expected), len(todo), progress)
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ingest") as reader:
            items = [item for _, item in todo]
            read = zip(todo, expected, read_ahead(reader, items, self._read), strict=True)
            for (key, _), guess, (result, records) in read:
                if isinstance(result, IngestFailure):
                    self.corpus.failures.append(result)
                    self._bar.read(guess, None)
                else:
                    self._bar.read(guess, result)
                    self._take(key, result, records, flush_passages)
            self._flush()
        self._bar.close()

    def _take(
        self, key: str, result: IngestedDocument, records: _Records, flush_passages: int
    ) -> None:
        """Queue a read item's passages and statement records; add the queue to the index
        once it holds ``flush_passages`` passages."""
        if isinstance(records, IngestFailure):
            self.corpus.failures.append(records)
            records = None
        self._pending.append((key, result, records))
        if sum(len(ingested.passages) for _, ingested, _ in self._pending) >= flush_passages:
            self._flush()

    def _read(self, item: CorpusItem) -> tuple[IngestedDocument | IngestFailure, _Records]:
        """The item ingested and cut, and its statement records (None when it failed, or
        has none to store); safe in a worker thread (it touches no index)."""
        result = item.attempt(self.index.recipe.budget)
        if isinstance(result, IngestFailure) or self.statements is None or item.path is None:
            return result, None
        return result, self.statements.read(item)

    def add_statements(self, progress: bool) -> None:
        """Store the records of the finished filings stored without them (an older build's),
        or of every finished filing when the store's records recipe is not the code's."""
        if self.statements is None:
            return
        store = self.statements.store
        current = store.current()
        missing = [
            i for i in self._resumed if i.path is not None and not (current and store.has(i.doc_id))
        ]
        failed = False
        for item in tqdm(missing, desc="statements", unit="file", disable=not progress):
            records = self.statements.read(item)
            if isinstance(records, IngestFailure):
                self.corpus.failures.append(records)
                failed = True
                continue
            store.write(item.doc_id, records)
            self.statements_stored += 1
        if not failed:
            store.mark_current()

    def _take_over_stat_key(self, item: CorpusItem, key: str) -> None:
        """Record ``key`` for a file an earlier version finished under its stat key
        (:meth:`CorpusItem.stat_key`), unchanged since."""
        if self.ledger.get(key) is not None:
            return
        old = item.stat_key(self.index.recipe)
        entry = self.ledger.get(old) if old else None
        if entry is not None:
            self.ledger.add([entry.model_copy(update={"key": key})])

    def _finished(self, key: str, doc_id: str) -> bool:
        """Whether the ledger says so and the index holds that many passages of the doc."""
        entry = self.ledger.get(key)
        if entry is None or self.index.count(SearchFilters(doc_ids=[doc_id])) < entry.passages:
            return False
        self.resumed += 1
        self.passages += entry.passages
        self.pages_by_doc[doc_id] = entry.pages
        return True

    def _flush(self) -> None:
        if not self._pending:
            return
        for key, ingested, _ in self._pending:
            if self.ledger.superseded(ingested.document.doc_id, key):
                self.index.delete_document(ingested.document.doc_id)
        passages = [p for _, ingested, _ in self._pending for p in ingested.passages]
        documents = [ingested.document for _, ingested, _ in self._pending]
        stored = self._bar.stored if self._bar else None
        added = self.index.add(passages, documents, progress=False, on_batch=stored)
        self._store_records()
        entries = [
            LedgerEntry(
                key=key,
                doc_id=ingested.document.doc_id,
                pages=ingested.document.pages or 0,
                passages=len(ingested.passages),
            )
            for key, ingested, _ in self._pending
        ]
        self.ledger.add(entries)
        for entry in entries:
            self.pages_by_doc[entry.doc_id] = entry.pages
        self.indexed += len(entries)
        self.passages += len(passages)
        self.written += added.written
        self.unchanged += added.unchanged
        self._pending = []

    def _store_records(self) -> None:
        """The pending filings' statement records, stored before the ledger lists them."""
        if self.statements is None:
            return
        for _, ingested, records in self._pending:
            if records is not None:
                self.statements.store.write(ingested.document.doc_id, records)
                self.statements_stored += 1


_Read = TypeVar("_Read")
_Records = list[StatementRecord] | IngestFailure | None


def read_ahead(
    reader: ThreadPoolExecutor, items: list[CorpusItem], read: Callable[[CorpusItem], _Read]
) -> Iterator[_Read]:
    """``read(item)`` of each item in order, the next one already being read in ``reader``
    while the caller works on the current one."""
    pending: deque[Future[_Read]] = deque()
    for item in items:
        pending.append(reader.submit(read, item))
        if len(pending) > 1:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()


def _say_recut(index: PassageIndex, progress: bool) -> None:
    """One line: the index's passages are cut or embedded otherwise; every filing is done
    again, in place."""
    if not progress:
        return
    was, now = index.stored_recipe, index.recipe.describe()
    tqdm.write(
        f"the index's passages were cut as {_recipe_text(was)}; this build cuts them as "
        f"{_recipe_text(now)}: every filing is cut and embedded again, in place "
        "(an interrupted build resumes)"
    )


def _recipe_text(recipe: dict[str, object]) -> str:
    header = recipe.get("header")
    embedded = f"under a {header} header" if header else "bare"
    return f"{recipe.get('text')} tokens ({recipe.get('counted_by')}-counted), embedded {embedded}"


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
        ("records", f"statement records of {report.statements} filing(s) stored"),
        ("seconds", f"{report.seconds:.1f}"),
        ("disk", disk),
    ]
    lines = [f"{name:<9} {value}" for name, value in rows]
    return "\n".join(lines + [f"failed: {failure.message}" for failure in report.failures])
