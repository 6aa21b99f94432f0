"""The index a server answers from and ingests into, shared safely between the two.

Questions search through :meth:`Library.handle`; an upload is added by :meth:`Library.add`.
A filing is read and embedded outside the lock, then written and its metadata published
under it, so a search runs either before a filing's passages are written or after its
whole filing is: never over half of one.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from filingqa.records import Document, Passage
from filingqa.records.search_handle import SearchHandle
from filingqa.retrieval.index.build import IndexReport, build_index
from filingqa.retrieval.index.corpus import file_corpus
from filingqa.retrieval.index.embedder import Embedder
from filingqa.retrieval.ingest.filings import IngestFailure
from filingqa.retrieval.ingest.metadata_store import MetadataStore
from filingqa.retrieval.search.pipeline import FilingSearch, ReRankerChoice


class Library:
    """One open index with its metadata, searched and extended under one lock."""

    def __init__(self, directory: Path, search: FilingSearch) -> None:
        self.directory = directory
        self.search = search
        self._lock = threading.RLock()

    @classmethod
    def open(
        cls,
        directory: Path,
        *,
        embedder: Embedder | None = None,
        reranker: ReRankerChoice = "default",
    ) -> Library:
        """The index at ``directory`` (created empty when missing), open for the server.

        Raises:
            IndexLockedError: another process (a ``filingqa index`` run, another server)
                holds the directory.
        """
        directory.mkdir(parents=True, exist_ok=True)
        metadata = _metadata(directory)
        return cls(
            directory,
            FilingSearch.open(directory, metadata=metadata, reranker=reranker, embedder=embedder),
        )

    def handle(self, doc_ids: Sequence[str] = ()) -> SearchHandle:
        """A search handle for one question (within ``doc_ids`` when given)."""
        return _LockedSearch(self, list(doc_ids))

    def documents(self) -> list[Document]:
        """The indexed filings with their metadata, by id."""
        with self._lock:
            store = self.search.metadata
            return (
                sorted((r.document for r in store.records()), key=lambda d: d.doc_id)
                if store
                else []
            )

    def document(self, doc_id: str) -> Document | None:
        """The indexed filing ``doc_id``, or None."""
        with self._lock:
            store = self.search.metadata
            return store.document(doc_id) if store else None

    def passage(self, passage_id: str) -> Passage | None:
        """The stored passage ``passage_id``, or None."""
        with self._lock:
            return self.search.index.passage(passage_id)

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
            self.search.metadata = _metadata(self.directory)
        return report

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
        return [r.passage for r in ranked]


def _metadata(directory: Path) -> MetadataStore:
    """The metadata saved beside the index (empty for a new index)."""
    if (directory / MetadataStore.FILENAME).is_file():
        return MetadataStore.load(directory)
    return MetadataStore([], [])
