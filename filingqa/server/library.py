"""The index a server answers from and ingests into, shared safely between the two.

Questions search through :meth:`Library.handle`; an upload is added by :meth:`Library.add`.
A filing is read and embedded outside the lock, then written and its metadata published
under it, so a search runs either before a filing's passages are written or after its
whole filing is: never over half of one. A filing the build's ledger does not list as
finished (its build was killed midway, or it could not be read) is hidden from searches,
listings and pages until an add finishes it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

from filingqa.records import Document, Passage
from filingqa.records.search_handle import Holdings, SearchHandle
from filingqa.records.statements import StatementRecord
from filingqa.retrieval.index.build import LEDGER_FILE, IndexReport, Ledger, build_index
from filingqa.retrieval.index.corpus import file_corpus
from filingqa.retrieval.index.embedder import Embedder
from filingqa.retrieval.index.filters import SearchFilters
from filingqa.retrieval.index.statement_store import StatementStore
from filingqa.retrieval.ingest.filings import IngestFailure
from filingqa.retrieval.ingest.metadata_store import MetadataStore
from filingqa.retrieval.search.pipeline import FilingSearch, ReRankerChoice, SearchSettings


class Library:
    """One open index with its metadata, searched and extended under one lock."""

    def __init__(self, directory: Path, search: FilingSearch) -> None:
        self.directory = directory
        self.search = search
        self._lock = threading.RLock()
        self.finished = _finished(directory, search)

    @classmethod
    def open(
        cls,
        directory: Path,
        *,
        embedder: Embedder | None = None,
        reranker: ReRankerChoice = "default",
        settings: SearchSettings | None = None,
    ) -> Library:
        """The index at ``directory`` (created empty when missing), open for the server,
        searching with ``settings`` (default: :class:`SearchSettings`'s).

        Raises:
            IndexLockedError: another process (a ``filingqa index`` run, another server)
                holds the directory.
        """
        directory.mkdir(parents=True, exist_ok=True)
        metadata = _metadata(directory)
        return cls(
            directory,
            FilingSearch.open(
                directory,
                metadata=metadata,
                reranker=reranker,
                embedder=embedder,
                settings=settings,
            ),
        )

    def handle(self, doc_ids: Sequence[str] = ()) -> SearchHandle:
        """A search handle for one question (within ``doc_ids`` when given)."""
        return _LockedSearch(self, list(doc_ids))

    def documents(self) -> list[Document]:
        """The indexed filings (wholly indexed) with their metadata, by id."""
        with self._lock:
            store = self.search.metadata
            records = store.records() if store else []
            documents = [r.document for r in records if r.document.doc_id in self.finished]
        return sorted(documents, key=lambda d: d.doc_id)

    def document(self, doc_id: str) -> Document | None:
        """The indexed filing ``doc_id``, or None."""
        with self._lock:
            store = self.search.metadata
            if store is None or doc_id not in self.finished:
                return None
            return store.document(doc_id)

    def passage(self, passage_id: str) -> Passage | None:
        """The stored passage ``passage_id``, or None."""
        with self._lock:
            passage = self.search.index.passage(passage_id)
            return passage if passage is not None and passage.doc_id in self.finished else None

    def add(self, path: Path) -> IndexReport:
        """Index the filing at ``path``: read and embedded first, then written and published
        at once. Adding a file already indexed unchanged changes nothing."""
        corpus = file_corpus([path])
        for item in corpus.items:
            ingested = item.attempt()
            if not isinstance(ingested, IngestFailure):
                self.search.index.embedder.embed_passages([p.text for p in ingested.passages])
        with self._lock:
            report = build_index(
                self.search.index, paths=[path], state_dir=self.directory, progress=False
            )
            self.search.reload(_metadata(self.directory), StatementStore.found(self.directory))
            self.finished = _finished(self.directory, self.search)
        return report

    def unfinished(self, files: list[Path]) -> list[Path]:
        """The filings among ``files`` that are not (wholly) indexed, by file stem."""
        with self._lock:
            return [path for path in files if path.stem not in self.finished]

    def close(self) -> None:
        """Release the index."""
        with self._lock:
            self.search.close()


class _LockedSearch:
    """A question's search handle: each search holds the library's lock; it searches as
    ``filingqa ask --index`` does (the pipeline's own handle, or within ``doc_ids``)."""

    def __init__(self, library: Library, doc_ids: list[str]) -> None:
        self.library = library
        self.doc_ids = doc_ids

    def search(
        self, query: str, *, k: int, company: str | None = None, period: str | None = None
    ) -> list[Passage]:
        with self.library._lock:
            ranked = self.library.search.ranked(
                query, k=k, company=company, period=period, doc_ids=self.doc_ids or None
            )
            finished = self.library.finished
        return [r.passage for r in ranked if r.passage.doc_id in finished]

    def holdings(self) -> Holdings | None:
        """What the library holds, of the finished filings (and the chosen ones, if any)."""
        with self.library._lock:
            held = self.library.search.holdings()
            usable = self._usable(self.library.finished)
        if held is None:
            return None
        companies = [
            company.model_copy(
                update={"documents": [d for d in company.documents if d.doc_id in usable]}
            )
            for company in held.companies
        ]
        return Holdings(companies=[company for company in companies if company.documents])

    def statement_records(
        self, company: str, concepts: Iterable[str], periods: Iterable[str], *, prior: bool = False
    ) -> list[StatementRecord]:
        """The library's statement records, of the finished filings (and the chosen ones)."""
        with self.library._lock:
            found = self.library.search.statement_records(company, concepts, periods, prior=prior)
            usable = self._usable(self.library.finished)
        return [record for record in found if record.doc_id in usable]

    def _usable(self, finished: frozenset[str]) -> frozenset[str]:
        return finished & frozenset(self.doc_ids) if self.doc_ids else finished


def _finished(directory: Path, search: FilingSearch) -> frozenset[str]:
    """The documents the build's ledger lists whose passages are all stored."""
    finished = Ledger(directory / LEDGER_FILE).finished()
    return frozenset(
        doc_id
        for doc_id, passages in finished.items()
        if search.index.count(SearchFilters(doc_ids=[doc_id])) >= passages
    )


def _metadata(directory: Path) -> MetadataStore:
    """The metadata saved beside the index (empty for a new index)."""
    if (directory / MetadataStore.FILENAME).is_file():
        return MetadataStore.load(directory)
    return MetadataStore([], [])
